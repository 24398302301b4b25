package whatsapp

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.mau.fi/whatsmeow"
)

func discardLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func linkConfig(t *testing.T, proxy string) Config {
	return Config{Store: "sqlite://" + filepath.Join(t.TempDir(), "whatsapp.db"), Proxy: proxy}
}

// TestLinkWithoutNetworkFailsClearly runs the real whatsmeow client with
// its websocket routed through a proxy address nothing listens on, as a
// host without network would see it.
func TestLinkWithoutNetworkFailsClearly(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()

	var out bytes.Buffer
	err = Link(context.Background(), linkConfig(t, "http://"+addr), nil, "", &out, discardLog())
	if err == nil || !strings.Contains(err.Error(), "link whatsapp: connect to WhatsApp") {
		t.Fatalf("Link = %v, want a clear connect error", err)
	}
}

// TestLinkGivesUpOnSilentNetwork points the real client at a proxy that
// accepts connections and never answers: the bound on connecting ends it.
func TestLinkGivesUpOnSilentNetwork(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		var held []net.Conn // hold connections open, say nothing
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	cfg := linkConfig(t, "http://"+l.Addr().String())
	cli := testClient(t, cfg)
	err = link(context.Background(), cli, "", io.Discard, 300*time.Millisecond)
	if !errors.Is(err, errConnectTimeout) || !strings.Contains(err.Error(), "no answer from WhatsApp") {
		t.Fatalf("link = %v, want the connect timeout", err)
	}
}

func TestLinkAlreadyLinkedStore(t *testing.T) {
	cfg := linkConfig(t, "http://127.0.0.1:1") // never dialled
	c, err := openStore(context.Background(), cfg, discardLog())
	if err != nil {
		t.Fatal(err)
	}
	pairDevice(t, c)
	c.Close()
	var out bytes.Buffer
	if err := Link(context.Background(), cfg, nil, "", &out, discardLog()); err != nil {
		t.Fatalf("Link on a linked store: %v", err)
	}
	if !strings.Contains(out.String(), "already linked to +447700900999") {
		t.Errorf("output %q does not say the store is already linked", out.String())
	}
}

func TestLinkRejectsBadConfig(t *testing.T) {
	err := Link(context.Background(), Config{Store: "mysql://x"}, nil, "", io.Discard, discardLog())
	if err == nil || !strings.Contains(err.Error(), "channels.whatsapp.store") {
		t.Errorf("Link = %v, want the config error", err)
	}
}

// fakeLinker plays whatsmeow's pairing: a scripted QR channel.
type fakeLinker struct {
	items []whatsmeow.QRChannelItem
	pairs []string // phones a pairing code was asked for
}

func (f *fakeLinker) ConnectContext(context.Context) error { return nil }
func (f *fakeLinker) Disconnect()                          {}
func (f *fakeLinker) WaitForConnection(time.Duration) bool { return true }

func (f *fakeLinker) GetQRChannel(context.Context) (<-chan whatsmeow.QRChannelItem, error) {
	ch := make(chan whatsmeow.QRChannelItem, len(f.items))
	for _, it := range f.items {
		ch <- it
	}
	close(ch)
	return ch, nil
}

func (f *fakeLinker) PairPhone(_ context.Context, phone string, _ bool, _ whatsmeow.PairClientType, name string) (string, error) {
	if name != pairDisplayName {
		return "", errors.New("400 bad display name")
	}
	f.pairs = append(f.pairs, phone)
	return "ABCD-EFGH", nil
}

func TestLinkFlows(t *testing.T) {
	code := whatsmeow.QRChannelItem{Event: whatsmeow.QRChannelEventCode, Code: "2@Zm9v,YmFy,YmF6", Timeout: 60 * time.Second}
	tests := []struct {
		name    string
		phone   string
		items   []whatsmeow.QRChannelItem
		wantOut string
		wantErr string
		pairs   int
	}{
		{"QR scanned", "", []whatsmeow.QRChannelItem{code, code, whatsmeow.QRChannelSuccess}, "scan this code (valid 1m0s)", "", 0},
		{"pairing code", "447700900999", []whatsmeow.QRChannelItem{code, code, whatsmeow.QRChannelSuccess}, "ABCD-EFGH", "", 1},
		{"codes ran out", "", []whatsmeow.QRChannelItem{code, whatsmeow.QRChannelTimeout}, "", "not used in time", 0},
		{"client outdated", "", []whatsmeow.QRChannelItem{whatsmeow.QRChannelClientOutdated}, "", "update botgw", 0},
		{"pairing error", "", []whatsmeow.QRChannelItem{{Event: whatsmeow.QRChannelEventError, Error: errors.New("bad signature")}}, "", "bad signature", 0},
		{"connection closed", "", []whatsmeow.QRChannelItem{code}, "", "closed before pairing", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeLinker{items: tt.items}
			var out bytes.Buffer
			err := link(context.Background(), f, tt.phone, &out, time.Second)
			if tt.wantErr == "" && err != nil {
				t.Fatalf("link: %v", err)
			}
			if tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("link = %v, want an error about %q", err, tt.wantErr)
			}
			if !strings.Contains(out.String(), tt.wantOut) {
				t.Errorf("output does not show %q:\n%s", tt.wantOut, out.String())
			}
			if tt.name == "QR scanned" && !strings.Contains(out.String(), "▀") {
				t.Errorf("no QR code drawn:\n%s", out.String())
			}
			if len(f.pairs) != tt.pairs {
				t.Errorf("asked for %d pairing codes, want %d", len(f.pairs), tt.pairs)
			}
		})
	}
}

// testClient opens cfg's device store (closed when the test ends) and
// builds the whatsmeow client the adapter would use on its first device.
func testClient(t *testing.T, cfg Config) *whatsmeow.Client {
	t.Helper()
	c, err := openStore(context.Background(), cfg, discardLog())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	dev, err := c.GetFirstDevice(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	cli, err := newClient(dev, cfg, discardLog())
	if err != nil {
		t.Fatal(err)
	}
	return cli
}
