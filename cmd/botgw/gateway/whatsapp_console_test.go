//go:build !nowhatsapp

package gateway

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/chromedp/chromedp"
	"go.mau.fi/whatsmeow/proto/waAdv"
	"go.mau.fi/whatsmeow/store/sqlstore"
	"go.mau.fi/whatsmeow/types"
	waLog "go.mau.fi/whatsmeow/util/log"
	_ "modernc.org/sqlite"

	"github.com/botgw/botgw/channels/whatsapp"
)

// linkedStore writes a device store holding a linked device for number, as
// `botgw whatsapp link` leaves it.
func linkedStore(t *testing.T, number string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "wa.db")
	c, err := sqlstore.New(context.Background(), "sqlite", "file:"+path+"?_pragma=foreign_keys(1)", waLog.Noop)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	dev := c.NewDevice()
	dev.ID = &types.JID{User: number, Device: 7, Server: types.DefaultUserServer}
	dev.Account = &waAdv.ADVSignedDeviceIdentity{Details: []byte{1}, AccountSignature: make([]byte, 64),
		AccountSignatureKey: make([]byte, 32), DeviceSignature: make([]byte, 64)}
	if err := dev.Save(context.Background()); err != nil {
		t.Fatal(err)
	}
	return "sqlite://" + path
}

// The console shows the number's hold — set by another replica after a
// 463 — with its end, and an operator lifts it from there for every
// replica.
func TestConsoleShowsAndLiftsTheWhatsAppHold(t *testing.T) {
	m := miniredis.RunT(t)
	cfg := demoConfig(t)
	cfg.Redis.URL = "redis://" + m.Addr()
	cfg.Admin.Token = "op-token-789"
	// The proxy refuses at once: no network, the session stays disconnected.
	cfg.Channels.WhatsApp = &whatsappConfig{Store: linkedStore(t, "447700900999"), Proxy: "http://127.0.0.1:1"}
	base := startGateway(t, cfg)
	until := time.Now().Add(24 * time.Hour).UTC().Truncate(time.Second)
	hold, _ := json.Marshal(whatsapp.Hold{Code: 463, Reason: "WhatsApp answered 463 (reach-out timelock)", Since: time.Now(), Until: until})
	key := cfg.Redis.KeyPrefix + ":whatsapp:hold:447700900999"
	m.HSet(key, "until", strconv.FormatInt(until.UnixMilli(), 10), "json", string(hold))

	ctx := browser(t)
	err := chromedp.Do(ctx,
		adminLogin(base, cfg.Admin.Token),
		chromedp.WaitVisible(chromedp.CSS("#wa-hold")),
	)
	if err != nil {
		t.Fatalf("browser: %v", err)
	}
	shown, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#wa-hold-text")))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(shown, "Number held until") || !strings.Contains(shown, "463") || !strings.Contains(shown, strconv.Itoa(until.Year())) {
		t.Errorf("console shows %q, want the 463 hold and its end", shown)
	}
	err = chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS("#wa-lift")),
		chromedp.Poll[chromedp.Void](`document.querySelector("#wa-hold").hidden`, chromedp.WithPollingInterval(50*time.Millisecond)),
	)
	if err != nil {
		t.Fatalf("browser: lift the hold: %v", err)
	}
	if m.Exists(key) {
		t.Error("the hold is still in Redis after the operator lifted it")
	}
}
