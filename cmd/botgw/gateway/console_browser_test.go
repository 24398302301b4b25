package gateway

import (
	"strings"
	"testing"
	"time"

	"github.com/botgw/botgw/internal/e2e"
	"github.com/botgw/botgw/internal/wait"
	"github.com/chromedp/chromedp"
)

// TestOperatorConsoleInABrowser drives the console as an operator would:
// find a chat by its key, open it, pause it, talk to the player, see the
// words appear, resume, and retry a reply the platform refused.
func TestOperatorConsoleInABrowser(t *testing.T) {
	api := newBotAPI(t)
	cfg := demoConfig(t)
	cfg.Admin.Token = "op-token-456"
	cfg.Channels.Telegram = &telegramConfig{Token: e2eBotToken, WebhookSecret: faultSecret, APIURL: api.URL}
	base := startGateway(t, cfg)
	for _, chat := range []string{"web:alice", "web:bob"} {
		if status, v := e2e.PostJSON(t, base+"/v1/chat", `{"chat":"`+chat+`","text":"I am at the station"}`); status != 200 {
			t.Fatalf("chat: %d %v", status, v)
		}
	}
	api.Refuse(chatNotFound, 0)
	const tgChat = 4242
	if code := postUpdate(base, tgText(tgChat, 1, "where next?")); code != 200 {
		t.Fatalf("telegram update: %d", code)
	}
	ctx := browser(t)
	run := func(what string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, actions...); err != nil {
			t.Fatalf("browser: %s: %v", what, err)
		}
	}
	run("log in and search",
		adminLogin(base, cfg.Admin.Token),
		chromedp.WaitVisible(chromedp.CSS(`#chats button[data-chat="web:bob"]`)),
		chromedp.SendKeys(chromedp.CSS("#search"), "web:al"),
		chromedp.Poll[chromedp.Void](`document.querySelector("#chats").dataset.filter === "&prefix=web%3Aal"`,
			chromedp.WithPollingInterval(50*time.Millisecond)),
		waitGone(`#chats button[data-chat="web:bob"]`),
	)
	run("open, pause, talk",
		chromedp.Click(chromedp.CSS(`#chats button[data-chat="web:alice"]`)),
		chromedp.WaitVisible(chromedp.CSS("#history .msg.assistant")),
		chromedp.SendKeys(chromedp.CSS("#operator"), "Sam"),
		chromedp.Click(chromedp.CSS("#pause")),
		chromedp.WaitVisible(chromedp.CSS("#pause-state.paused")),
		chromedp.SendKeys(chromedp.CSS("#say-text"), "Hello from Sam, a person."),
		chromedp.Click(chromedp.CSS("#say")),
		waitText("#history", "Hello from Sam, a person."),
		waitText("#history", "operator Sam"),
		chromedp.Click(chromedp.CSS("#resume")),
		chromedp.WaitVisible(chromedp.CSS("#pause-state:not(.paused)")),
	)
	api.Refuse(nil, 0)
	run("retry a dead letter",
		chromedp.Click(chromedp.CSS("#dead-refresh")),
		chromedp.WaitVisible(chromedp.CSS(`#dead tr.dead-letter button.retry`)),
		chromedp.Click(chromedp.CSS(`#dead tr.dead-letter button.retry`)),
		waitGone("#dead tr.dead-letter"),
		waitText("#audit", "dead-letter retry"),
	)
	wait.Eventually(t, "the condition", func() bool { return sentTo(api, tgChat) == 1 })
	audit, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#audit")))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"admin-api (Sam)", "pause", "message", "resume", "dead-letter retry"} {
		if !strings.Contains(audit, want) {
			t.Errorf("audit log on the page lacks %q:\n%s", want, audit)
		}
	}
}

// waitText waits until the element sel contains text.
func waitText(sel, text string) chromedp.Action[chromedp.Void] {
	return chromedp.Poll[chromedp.Void](`(document.querySelector(`+quoteJSON(sel)+`)||{}).textContent.includes(`+quoteJSON(text)+`)`,
		chromedp.WithPollingInterval(50*time.Millisecond))
}

// waitGone waits until nothing matches sel.
func waitGone(sel string) chromedp.Action[chromedp.Void] {
	return chromedp.Poll[chromedp.Void](`document.querySelectorAll(`+quoteJSON(sel)+`).length === 0`,
		chromedp.WithPollingInterval(50*time.Millisecond))
}
