package gateway

import (
	"strings"
	"testing"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// The page's "share my location" button reads the browser's position
// (Geolocation API, overridden here as a phone would report it) and sends
// it as a pin: the model sees the coordinates as the player's message and
// as the chat's pinned location event.
func TestChatPageSharesLocation(t *testing.T) {
	base := startGateway(t, demoConfig(t))
	ctx := browser(t)
	lat, lon, acc := 53.992123, -1.541812, 10.0
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS("#locate"))); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.CallBrowser(ctx, cdpbrowser.SetPermission, cdpbrowser.SetPermissionParams{
		Permission: &cdpbrowser.PermissionDescriptor{Name: "geolocation"}, Setting: cdpbrowser.PermissionSettingGranted, Origin: base}); err != nil {
		t.Fatalf("grant geolocation: %v", err)
	}
	if _, err := chromedp.Call(ctx, emulation.SetGeolocationOverride, emulation.SetGeolocationOverrideParams{
		Latitude: &lat, Longitude: &lon, Accuracy: &acc}); err != nil {
		t.Fatalf("override geolocation: %v", err)
	}
	err := chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS("#locate")),
		chromedp.WaitVisible(chromedp.CSS(".msg.bot")),
	)
	if err != nil {
		t.Fatalf("browser: share location: %v", err)
	}
	mine, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(".msg.me")))
	if err != nil {
		t.Fatal(err)
	}
	reply, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(".msg.bot")))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(mine, "53.99212, -1.54181") {
		t.Errorf("the page shows the pin as %q", mine)
	}
	if !strings.Contains(reply, `You said: "53.992123, -1.541812"`) || !strings.Contains(reply, "current location: 53.992123, -1.541812") {
		t.Errorf("the model did not see the pin as the player's words and the location event: %q", reply)
	}
}
