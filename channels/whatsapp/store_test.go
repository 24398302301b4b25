package whatsapp

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"go.mau.fi/whatsmeow/proto/waAdv"
	"go.mau.fi/whatsmeow/store"
	"go.mau.fi/whatsmeow/store/sqlstore"
	"go.mau.fi/whatsmeow/types"
)

// TestDeviceStoreCreateReopenFind runs the real whatsmeow SQL store on the
// pure-Go SQLite driver: New creates the database, a paired device saved
// as whatsmeow saves it survives a reopen, and the adapter finds it.
func TestDeviceStoreCreateReopenFind(t *testing.T) {
	ctx := context.Background()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	cfg := Config{Store: "sqlite://" + filepath.Join(t.TempDir(), "state", "whatsapp.db")}

	ch, err := New(ctx, cfg, nil, log)
	if err != nil {
		t.Fatalf("New on an empty directory: %v", err)
	}
	a := ch.(*Adapter)
	if s := a.State(); s.Linked || s.State != StateNotLinked {
		t.Errorf("fresh store State() = %+v, want not linked", s)
	}
	if _, err := a.open(ctx); err == nil || !strings.Contains(err.Error(), "botgw whatsapp link") {
		t.Errorf("open on a fresh store = %v, want the not-linked error", err)
	}

	dev := pairDevice(t, a.store)
	if err := dev.LIDs.PutLIDMapping(ctx, aliceLID, alicePN); err != nil {
		t.Fatalf("PutLIDMapping: %v", err)
	}
	if err := a.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}

	ch, err = New(ctx, cfg, nil, log)
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	a = ch.(*Adapter)
	defer a.Close()
	if s := a.State(); !s.Linked || s.JID != "447700900999@s.whatsapp.net" {
		t.Errorf("reopened State() = %+v, want linked as 447700900999@s.whatsapp.net", s)
	}
	cli, err := a.open(ctx)
	if err != nil {
		t.Fatalf("open the linked device: %v", err)
	}
	if pn, _ := cli.OwnIDs(); pn != types.NewJID("447700900999", types.DefaultUserServer) {
		t.Errorf("OwnIDs() pn = %s, want the linked number without device", pn)
	}
	if pn, ok := cli.PNForLID(ctx, aliceLID); !ok || pn != alicePN {
		t.Errorf("PNForLID(%s) = %s, %v; want %s from the store", aliceLID, pn, ok, alicePN)
	}
	got := cli.(waClient).Store
	if !bytes.Equal(got.IdentityKey.Priv[:], dev.IdentityKey.Priv[:]) {
		t.Error("identity key not persisted: the session would be lost on restart")
	}
}

// pairDevice saves a device the way whatsmeow does on pair-success: keys,
// an ID and the account signature, then PutDevice.
func pairDevice(t *testing.T, c *sqlstore.Container) *store.Device {
	t.Helper()
	dev := c.NewDevice()
	id := types.JID{User: "447700900999", Device: 7, Server: types.DefaultUserServer}
	dev.ID = &id
	dev.Account = &waAdv.ADVSignedDeviceIdentity{
		Details: []byte{1}, AccountSignature: make([]byte, 64), AccountSignatureKey: make([]byte, 32), DeviceSignature: make([]byte, 64),
	}
	if err := c.PutDevice(context.Background(), dev); err != nil {
		t.Fatalf("PutDevice: %v", err)
	}
	return dev
}

func TestNewRejectsBadConfig(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if _, err := New(context.Background(), Config{Store: "postgres://db/botgw"}, nil, log); err == nil {
		t.Error("New accepted a postgres store this build cannot open")
	}
}
