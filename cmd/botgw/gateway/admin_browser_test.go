package gateway

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/botgw/botgw/internal/e2e"
	"github.com/chromedp/chromedp"
)

const hostile = `<img src=x onerror="document.title='pwned'">`

func TestOperatorPageInABrowser(t *testing.T) {
	cfg := demoConfig(t)
	cfg.Admin.Token = "op-token-123"
	base := startGateway(t, cfg)
	for _, text := range []string{"I am at the station", hostile} {
		if status, v := e2e.PostJSON(t, base+"/v1/chat", `{"chat":"web:alice","text":`+quoteJSON(text)+`}`); status != 200 {
			t.Fatalf("chat: %d %v", status, v)
		}
	}
	ctx := browser(t)
	err := chromedp.Do(ctx,
		adminLogin(base, cfg.Admin.Token),
		chromedp.Click(chromedp.CSS(`#chats button[data-chat="web:alice"]`)),
		chromedp.WaitVisible(chromedp.CSS("#history .msg.assistant")),
	)
	if err != nil {
		t.Fatalf("browser: log in and open the chat: %v", err)
	}
	history, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#history")))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(history, "I am at the station") || !strings.Contains(history, "Demo reply") || !strings.Contains(history, hostile) {
		t.Errorf("history on the page = %q, want both messages, the hostile one as plain text", history)
	}
	if imgs, _ := chromedp.Run(ctx, chromedp.Nodes(chromedp.CSS("#history img"), chromedp.AtLeast(0))); len(imgs) != 0 {
		t.Errorf("chat text became markup: %d <img> elements in the history", len(imgs))
	}
	resetInBrowser(t, ctx)
	if res, err := http.Get(base + "/v1/admin/chats/web%3Aalice"); err != nil || res.StatusCode != http.StatusUnauthorized {
		t.Errorf("admin API without the token: %v %v, want 401", res.Status, err)
	}
}

// resetInBrowser resets the open chat through the page's confirm step and
// checks the page shows it gone and the audit log names the reset.
func resetInBrowser(t *testing.T, ctx context.Context) {
	t.Helper()
	err := chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS("#reset")),
		chromedp.Click(chromedp.CSS("#confirm-reset")),
		chromedp.WaitVisible(chromedp.CSS("#history .empty")),
		chromedp.WaitVisible(chromedp.CSS("#audit tr.audit-entry")),
	)
	if err != nil {
		t.Fatalf("browser: reset: %v", err)
	}
	history, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#history")))
	if !strings.Contains(history, "No conversation stored") {
		t.Errorf("history after reset = %q", history)
	}
	chats, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#chats")))
	if strings.Contains(chats, "web:alice") {
		t.Errorf("chat list after reset still has web:alice: %q", chats)
	}
	audit, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#audit tr.audit-entry")))
	for _, want := range []string{"admin-api", "reset", "web:alice", "ok"} {
		if !strings.Contains(audit, want) {
			t.Errorf("latest audit entry = %q, want it to name %q", audit, want)
		}
	}
	if title, _ := chromedp.Run(ctx, chromedp.Title()); title == "pwned" {
		t.Error("the hostile message ran script in the operator page")
	}
}

func quoteJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
