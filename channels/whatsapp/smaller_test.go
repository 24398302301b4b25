package whatsapp

import (
	"context"
	"database/sql"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.mau.fi/whatsmeow"
	"go.mau.fi/whatsmeow/types/events"

	"github.com/botgw/botgw/channels/channeltest"
)

// When whatsmeow could not delete the logged-out device, the store still
// holds it and it logs out again at once: the adapter backs off before
// opening the store again instead of looping.
func TestLoggedOutReopensAfterBackoff(t *testing.T) {
	f := newFakeClient() // the device was not deleted: open keeps returning it
	a, _ := testAdapter(Config{}, nil, openFake(f))
	waits := make(chan time.Duration, 10)
	a.wait = func(ctx context.Context, d time.Duration) bool {
		waits <- d
		<-ctx.Done() // hold the back-off until the test ends
		return false
	}
	listen(t, a, (&channeltest.Store{}).Deliver)
	f.waitCall(t, "connect")
	f.emit(t, &events.LoggedOut{Reason: events.ConnectFailureLoggedOut})
	select {
	case d := <-waits:
		if d < a.tm.relinkPoll/2 {
			t.Errorf("back-off %v, want at least half the relink poll (%v)", d, a.tm.relinkPoll)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the store was reopened without a back-off")
	}
	if n := f.connectCount(); n != 1 {
		t.Errorf("%d connects before the back-off ended, want 1", n)
	}
}

// Replicas starting at once open (and migrate) the device store one at a
// time.
func TestStoreUpgradeIsLockedAcrossReplicas(t *testing.T) {
	lease := newMemLease()
	var inside, most atomic.Int32
	var wg sync.WaitGroup
	for _, owner := range []string{"a", "b", "c"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := withUpgradeLock(context.Background(), lease, owner, time.Millisecond, func() error {
				n := inside.Add(1)
				if n > most.Load() {
					most.Store(n)
				}
				time.Sleep(5 * time.Millisecond) // a migration in progress
				inside.Add(-1)
				return nil
			})
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if most.Load() != 1 {
		t.Errorf("%d replicas migrated the store at once, want 1", most.Load())
	}
	if h := lease.holder(upgradeLock); h != "" {
		t.Errorf("upgrade lock still held by %q", h)
	}
}

// proxyRecorder records SetProxyAddress calls.
type proxyRecorder struct{ addrs []string }

func (p *proxyRecorder) SetProxyAddress(addr string, _ ...whatsmeow.SetProxyOptions) error {
	p.addrs = append(p.addrs, addr)
	return nil
}

// An empty proxy setting leaves whatsmeow's default (HTTPS_PROXY from the
// environment) alone; SetProxyAddress("") would switch it off.
func TestEmptyProxyKeepsEnvironmentProxy(t *testing.T) {
	p := &proxyRecorder{}
	if err := setProxy(p, ""); err != nil || len(p.addrs) != 0 {
		t.Errorf("empty proxy: calls %q, err %v; want none", p.addrs, err)
	}
	if err := setProxy(p, "socks5://127.0.0.1:1080"); err != nil || len(p.addrs) != 1 {
		t.Errorf("configured proxy: calls %q, err %v; want it set", p.addrs, err)
	}
}

// The SQLite store begins transactions IMMEDIATE, so whatsmeow's
// read-then-write transactions queue on the busy timeout instead of
// failing with SQLITE_BUSY.
func TestSQLiteTransactionsBeginImmediate(t *testing.T) {
	cfg := Config{Store: "sqlite://" + t.TempDir() + "/wa.db"}
	if !strings.Contains(cfg.sqliteDSN(), "_txlock=immediate") {
		t.Errorf("DSN %q lacks _txlock=immediate", cfg.sqliteDSN())
	}
	c, err := openStore(context.Background(), cfg, discardLog())
	if err != nil {
		t.Fatalf("open the store with that DSN: %v", err)
	}
	c.Close()
}

// Two writers doing read-then-write transactions on the store's file, as
// whatsmeow's store does: with the store's DSN none fails with
// SQLITE_BUSY and no update is lost.
func TestSQLiteReadThenWriteTransactionsDoNotFail(t *testing.T) {
	cfg := Config{Store: "sqlite://" + t.TempDir() + "/wa.db"}
	dbs := make([]*sql.DB, 2)
	for i := range dbs {
		db, err := sql.Open("sqlite", cfg.sqliteDSN())
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		dbs[i] = db
	}
	if _, err := dbs[0].Exec(`CREATE TABLE n (v INTEGER); INSERT INTO n VALUES (0)`); err != nil {
		t.Fatal(err)
	}
	const each = 50
	var wg sync.WaitGroup
	errs := make(chan error, 2*each)
	for _, db := range dbs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				errs <- increment(db)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("read-then-write transaction failed: %v", err)
		}
	}
	var v int
	if err := dbs[0].QueryRow(`SELECT v FROM n`).Scan(&v); err != nil || v != 2*each {
		t.Errorf("v = %d (%v), want %d", v, err, 2*each)
	}
}

func increment(db *sql.DB) error {
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var v int
	if err := tx.QueryRow(`SELECT v FROM n`).Scan(&v); err != nil {
		return err
	}
	if _, err := tx.Exec(`UPDATE n SET v = ?`, v+1); err != nil {
		return err
	}
	return tx.Commit()
}

// The client asks the phone for a message this device could not decrypt,
// and keeps whatsmeow's reconnects off (the adapter owns them).
func TestClientRerequestsUndecryptableFromPhone(t *testing.T) {
	cfg := Config{Store: "sqlite://" + t.TempDir() + "/wa.db"}
	cli := testClient(t, cfg)
	if !cli.AutomaticMessageRerequestFromPhone || cli.EnableAutoReconnect {
		t.Errorf("AutomaticMessageRerequestFromPhone=%v EnableAutoReconnect=%v, want true, false",
			cli.AutomaticMessageRerequestFromPhone, cli.EnableAutoReconnect)
	}
}
