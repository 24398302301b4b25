package gateway

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestChatPageChoiceButtons: a reply offering choices shows one button per
// choice and a location button on the page; a click sends the choice as
// the player's message, clears the buttons and shows the answer.
func TestChatPageChoiceButtons(t *testing.T) {
	cfg := demoConfig(t)
	cfg.Events.Secret = eventsSecret
	base := startGateway(t, cfg)
	ctx := browser(t)
	err := chromedp.Do(ctx, chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS("#input")))
	chat, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#session")))
	if err != nil || !strings.HasPrefix(chat, "web:") {
		t.Fatalf("browser: open the page: %v (session %q)", err, chat)
	}
	body := `{"chat":"` + chat + `","text":"The bridge is closed","respond":true,"choices":["Take the ferry","Walk"],"ask_location":true}`
	if code := postEvent(t, base, body); code != 202 {
		t.Fatalf("event with choices: %d", code)
	}
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(".choices .choice"))); err != nil { // the page polls for the reply
		t.Fatalf("browser: choice buttons: %v", err)
	}
	labels, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(".choices")))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Take the ferry", "Walk", "Share my location"} {
		if !strings.Contains(labels, want) {
			t.Errorf("buttons %q lack %q", labels, want)
		}
	}
	err = chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(".choices .choice:nth-child(2)")),
		chromedp.WaitVisible(chromedp.CSS(".msg.me")),
		chromedp.WaitVisible(chromedp.CSS(".msg.bot:nth-of-type(3)")),
	)
	if err != nil {
		t.Fatalf("browser: tap: %v", err)
	}
	mine, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(".msg.me")))
	buttons, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`String(document.querySelectorAll(".choices").length)`))
	if mine != "Walk" || buttons != "0" {
		t.Errorf("after the tap the page shows %q as the player's message and %s button rows, want %q and none", mine, buttons, "Walk")
	}
}
