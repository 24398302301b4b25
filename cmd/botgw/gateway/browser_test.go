package gateway

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// browser starts headless Chromium for a page test, or skips the test
// (saying so) when none is installed. CI installs Debian's chromium.
func browser(t *testing.T) context.Context {
	t.Helper()
	path := os.Getenv("BOTGW_CHROMIUM")
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if path != "" {
			break
		}
		path, _ = exec.LookPath(name)
	}
	if path == "" {
		t.Skip("no chromium installed: skipping the browser test (apt-get install chromium)")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-quic", true),
		chromedp.UserDataDir(t.TempDir()),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 60*time.Second)
	t.Cleanup(func() { cancelTimeout(); cancelCtx(); cancelAlloc() })
	return ctx
}

// adminLogin opens the operator console at base and logs in with token.
func adminLogin(base, token string) chromedp.Action[chromedp.Void] {
	return chromedp.Steps(
		chromedp.Navigate(base+"/admin"),
		chromedp.WaitVisible(chromedp.CSS("#token")),
		chromedp.SendKeys(chromedp.CSS("#token"), token),
		chromedp.Click(chromedp.CSS("#enter")),
	)
}

func TestChatPageInABrowser(t *testing.T) {
	base := startGateway(t, demoConfig(t))
	ctx := browser(t)
	err := chromedp.Do(ctx,
		chromedp.Navigate(base+"/"),
		chromedp.WaitVisible(chromedp.CSS("#input")),
		chromedp.SendKeys(chromedp.CSS("#input"), "I am at the station"),
		chromedp.Click(chromedp.CSS("#send")),
		chromedp.WaitVisible(chromedp.CSS(".msg.bot")),
	)
	if err != nil {
		t.Fatalf("browser: first message: %v", err)
	}
	first, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(".msg.bot")))
	if err != nil {
		t.Fatal(err)
	}
	err = chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.CSS("#input"), "where am I?\n"),
		chromedp.WaitVisible(chromedp.CSS(".msg.bot:nth-of-type(4)")),
	)
	if err != nil {
		t.Fatalf("browser: second message: %v", err)
	}
	second, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(".msg.bot:nth-of-type(4)")))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(first, "I am at the station") {
		t.Errorf("first reply on the page = %q", first)
	}
	if !strings.Contains(second, "where am I?") || !strings.Contains(second, "I am at the station") {
		t.Errorf("second reply does not show memory: %q", second)
	}
}
