//go:build !nowhatsapp

package gateway

import (
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/botgw/botgw/channels/whatsapp"
	"github.com/botgw/botgw/convo/tools"
	"github.com/botgw/botgw/internal/syncbuf"
)

// openFiles counts this process's file descriptors on paths under dir.
func openFiles(t *testing.T, dir string) int {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("counting open files needs /proc (Linux)")
	}
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, fd := range fds {
		if target, err := os.Readlink("/proc/self/fd/" + fd.Name()); err == nil && strings.HasPrefix(target, dir) {
			n++
		}
	}
	return n
}

// unlinkedWhatsApp is a config with a WhatsApp section whose device store
// (in dir) holds no linked device.
func unlinkedWhatsApp(dir string) Config {
	cfg := DefaultConfig()
	cfg.Listen = "127.0.0.1:0"
	cfg.Admin.Token = "admin-token"
	cfg.Channels.WhatsApp = &whatsapp.Config{Store: "sqlite://" + filepath.Join(dir, "whatsapp.db")}
	return cfg
}

func TestWhatsAppWithoutALinkedDeviceSaysSoAndIsNotReady(t *testing.T) {
	dir := t.TempDir()
	var logs syncbuf.Buffer
	base := startGatewayWithLog(t, unlinkedWhatsApp(dir), slog.New(slog.NewTextHandler(&logs, nil)))
	if !strings.Contains(logs.String(), "botgw whatsapp link") {
		t.Errorf("start-up log does not say how to link WhatsApp:\n%s", logs.String())
	}
	res, err := http.Get(base + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	var ready map[string]string
	_ = json.NewDecoder(res.Body).Decode(&ready)
	res.Body.Close()
	if res.StatusCode != http.StatusServiceUnavailable || !strings.Contains(ready["whatsapp"], "link") {
		t.Errorf("/readyz = %d %v, want 503 naming whatsapp", res.StatusCode, ready)
	}
	req, _ := http.NewRequest(http.MethodGet, base+"/v1/admin/channels", nil)
	req.Header.Set("Authorization", "Bearer admin-token")
	res, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var chans map[string]struct {
		Healthy bool   `json:"healthy"`
		Problem string `json:"problem"`
	}
	_ = json.NewDecoder(res.Body).Decode(&chans)
	res.Body.Close()
	if wa := chans["whatsapp"]; wa.Healthy || !strings.Contains(wa.Problem, "botgw whatsapp link") {
		t.Errorf("/v1/admin/channels whatsapp = %+v, want not ready with the link command", wa)
	}
}

func TestChannelsAreClosedOnShutdown(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	listening := make(chan struct{})
	go func() {
		done <- Serve(ctx, unlinkedWhatsApp(dir), slog.New(slog.DiscardHandler), func(net.Addr) { close(listening) })
	}()
	select {
	case <-listening:
	case err := <-done:
		t.Fatalf("serve: %v", err)
	}
	if openFiles(t, dir) == 0 {
		t.Fatal("the WhatsApp device store is not open while serving: the test cannot see a leak")
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop")
	}
	if n := openFiles(t, dir); n != 0 {
		t.Errorf("%d files of the WhatsApp device store still open after shutdown", n)
	}
}

func TestChannelsAreClosedWhenStartUpFails(t *testing.T) {
	dir := t.TempDir()
	cfg := unlinkedWhatsApp(dir)
	cfg.Tools = []tools.Config{{Name: "not a valid name!", URL: "http://127.0.0.1:1/"}} // fails after the channels are built
	err := Serve(context.Background(), cfg, slog.New(slog.DiscardHandler), nil)
	if err == nil {
		t.Fatal("serve started with a broken tool")
	}
	if n := openFiles(t, dir); n != 0 {
		t.Errorf("%d files of the WhatsApp device store left open after a failed start (%v)", n, err)
	}
}
