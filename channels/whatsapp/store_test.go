package whatsapp

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.mau.fi/whatsmeow/proto/waAdv"
	"go.mau.fi/whatsmeow/store"
	"go.mau.fi/whatsmeow/store/sqlstore"
	"go.mau.fi/whatsmeow/types"
)

// TestDeviceStoreCreateReopenFind runs the real whatsmeow SQL store on the
// pure-Go SQLite driver: New creates the database, a paired device saved
// as whatsmeow saves it survives a reopen, and the adapter finds it.
func TestDeviceStoreCreateReopenFind(t *testing.T) {
	createReopenFind(t, Config{Store: "sqlite://" + filepath.Join(t.TempDir(), "state", "whatsapp.db")})
}

// TestDeviceStorePostgres runs the same life cycle on PostgreSQL through
// pgx, in a database of its own that is dropped afterwards. It needs
// BOTGW_TEST_POSTGRES_URL (a role allowed to CREATE DATABASE); .ci/run
// starts a throwaway server and sets it.
func TestDeviceStorePostgres(t *testing.T) {
	admin := os.Getenv("BOTGW_TEST_POSTGRES_URL")
	if admin == "" {
		t.Skip("BOTGW_TEST_POSTGRES_URL not set: skipping the PostgreSQL device store test")
	}
	ctx := context.Background()
	db, err := sql.Open("pgx", admin)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	name := fmt.Sprintf("botgw_test_%d", time.Now().UnixNano())
	if _, err := db.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("create test database: %v", err)
	}
	u, err := url.Parse(admin)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	t.Cleanup(func() {
		if _, err := db.ExecContext(ctx, "DROP DATABASE "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("drop test database: %v", err)
		}
	})
	createReopenFind(t, Config{Store: u.String()})
}

func createReopenFind(t *testing.T, cfg Config) {
	t.Helper()
	ctx := context.Background()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
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
	_, err := New(context.Background(), Config{Store: "postgres:///botgw"}, nil, log)
	if err == nil || !strings.Contains(err.Error(), "needs a host") {
		t.Errorf("New with a host-less PostgreSQL URL = %v, want the config error", err)
	}
}
