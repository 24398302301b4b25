package gateway

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/botgw/botgw/internal/e2e"
)

// browser starts headless Chromium for a page test (e2e.Browser).
func browser(t *testing.T) context.Context { return e2e.Browser(t) }

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
