package gateway

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/internal/e2e"
	"github.com/botgw/botgw/internal/wait"
)

// TestConsoleShowsPinsAndPhotos: in the console a shared position links
// OpenStreetMap (the same URL the gateway writes), and a photo shows as a
// compact label with its caption, without the "[photo]" marker.
func TestConsoleShowsPinsAndPhotos(t *testing.T) {
	api := newBotAPI(t)
	api.AddFile("ph1", jpegPhoto(3000))
	cfg := demoConfig(t)
	cfg.Admin.Token = "op-token-media"
	cfg.Channels.Telegram = &telegramConfig{Token: e2eBotToken, WebhookSecret: faultSecret, APIURL: api.URL}
	base := startGateway(t, cfg)
	if status, v := e2e.PostJSON(t, base+"/v1/chat", `{"chat":"web:pin","location":{"latitude":53.99212,"longitude":-1.5418}}`); status != 200 {
		t.Fatalf("pin: %d %v", status, v)
	}
	const tgChat = 4343
	if code := postUpdate(base, tgMessage(tgChat, 1, map[string]any{"photo": tgPhoto("ph1", 3011), "caption": "is this the bridge?"})); code != 200 {
		t.Fatalf("photo update: %d", code)
	}
	wait.Eventually(t, "the condition", func() bool { return sentTo(api, tgChat) == 1 })

	ctx := browser(t)
	wantURL := botgw.Location{Latitude: 53.99212, Longitude: -1.5418}.MapURL()
	err := chromedp.Do(ctx,
		adminLogin(base, cfg.Admin.Token),
		chromedp.Click(chromedp.CSS(`#chats button[data-chat="web:pin"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#history .msg.user a.map`)),
	)
	if err != nil {
		t.Fatalf("browser: open the pinned chat: %v", err)
	}
	href, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("#history .msg.user a.map").href`))
	if err != nil || href != wantURL {
		t.Errorf("map link %q (%v), want %q", href, err, wantURL)
	}
	err = chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(fmt.Sprintf(`#chats button[data-chat="telegram:%d"]`, tgChat))),
		waitText("#history", "📷 photo"),
	)
	if err != nil {
		t.Fatalf("browser: open the photo chat: %v", err)
	}
	user, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#history .msg.user")))
	if err != nil || !strings.Contains(user, "is this the bridge?") || strings.Contains(user, "[photo]") {
		t.Errorf("photo message shows %q (%v), want the label and the caption without the marker", user, err)
	}
}
