package webhook_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/channels/stream"
	"github.com/botgw/botgw/channels/stream/webhook"
	"github.com/botgw/botgw/internal/wait"
	"github.com/botgw/botgw/state"
)

const secret = "stream-secret"

// receiver is the game's endpoint: it checks each batch's signature the
// way docs/stream.md tells the game to, refuses while down, and keeps the
// records it acknowledged.
type receiver struct {
	mu      sync.Mutex
	got     map[string][]botgw.StreamRecord
	batches []int
	down    atomic.Bool
	bad     atomic.Int64 // requests whose signature did not verify
	failAt  atomic.Int64 // the signed request (counted from 1) to refuse once; 0: none
	signed  atomic.Int64
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	ts := r.Header.Get("X-Botgw-Timestamp")
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(ts + "." + string(body)))
	sec, _ := strconv.ParseInt(ts, 10, 64)
	if !hmac.Equal([]byte(r.Header.Get("X-Botgw-Signature")), []byte("v1="+hex.EncodeToString(m.Sum(nil)))) || time.Since(time.Unix(sec, 0)).Abs() > 5*time.Minute {
		rc.bad.Add(1)
		http.Error(w, "bad signature", http.StatusUnauthorized)
		return
	}
	if rc.down.Load() || rc.signed.Add(1) == rc.failAt.Load() {
		http.Error(w, "down", http.StatusServiceUnavailable)
		return
	}
	var batch struct {
		Records []botgw.StreamRecord `json:"records"`
	}
	if err := json.Unmarshal(body, &batch); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.batches = append(rc.batches, len(batch.Records))
	for _, rec := range batch.Records {
		rc.got[rec.ConversationID] = append(rc.got[rec.ConversationID], rec)
	}
}

func (rc *receiver) records(chat string) []botgw.StreamRecord {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]botgw.StreamRecord(nil), rc.got[chat]...)
}

func setup(t *testing.T, content bool) (*state.Store, *receiver, *stream.Relay) {
	store, rc, relay, start := newRig(t, content)
	start()
	return store, rc, relay
}

// newRig builds a store, a receiver and a relay to it; start runs the
// relay until the test ends.
func newRig(t *testing.T, content bool) (*state.Store, *receiver, *stream.Relay, func()) {
	m := miniredis.RunT(t)
	store := state.New(redis.NewClient(&redis.Options{Addr: m.Addr()}), "", state.Options{Stream: state.StreamOptions{Sinks: []string{"webhook"}}})
	t.Cleanup(func() { store.Close() })
	rc := &receiver{got: map[string][]botgw.StreamRecord{}}
	srv := httptest.NewServer(rc)
	t.Cleanup(srv.Close)
	sink := webhook.New(webhook.Config{URL: srv.URL, Secret: secret}, nil)
	relay := stream.New(sink, store, stream.Config{Content: content, Poll: 5 * time.Millisecond, MinBackoff: 5 * time.Millisecond, MaxBackoff: 20 * time.Millisecond}, slog.New(slog.DiscardHandler))
	start := func() {
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		wg.Go(func() { relay.Run(ctx) })
		t.Cleanup(func() { cancel(); wg.Wait() })
	}
	return store, rc, relay, start
}

func commit(t *testing.T, s *state.Store, k botgw.ChatKey, recs ...botgw.StreamRecord) {
	t.Helper()
	ctx := context.Background()
	snap, err := s.Begin(ctx, k, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(ctx, k, botgw.Commit{Lease: snap.Lease, Version: snap.Version, Blob: []byte("x"), TTL: time.Hour, Records: recs}); err != nil {
		t.Fatal(err)
	}
	if err := s.Release(ctx, k, snap.Lease); err != nil {
		t.Fatal(err)
	}
}

func message(k botgw.ChatKey, text string) botgw.StreamRecord {
	return botgw.StreamRecord{Version: botgw.StreamVersion, ConversationID: k.String(), AgentID: "user:7",
		Action: botgw.ActionLocation, Timestamp: botgw.Millis(time.Now()), Text: text,
		Location: &botgw.StreamLocation{Latitude: 53.99212, Longitude: -1.54181}}
}

// TestWebhookOrderedThroughAnOutage commits 300 records of 4 chats while
// the receiver is down for part of the time: every record arrives signed,
// in batches of at most 100, each chat's in seq order without gaps.
func TestWebhookOrderedThroughAnOutage(t *testing.T) {
	store, rc, relay := setup(t, true)
	for i := range 75 {
		if i == 20 {
			rc.down.Store(true)
		}
		if i == 60 {
			rc.down.Store(false)
		}
		for ch := range 4 {
			k := botgw.ChatKey{Channel: "test", ID: strconv.Itoa(ch)}
			commit(t, store, k, message(k, fmt.Sprintf("m%d", i+1)))
		}
	}
	for ch := range 4 {
		k := "test:" + strconv.Itoa(ch)
		wait.Eventually(t, "chat "+k+" complete", func() bool { return len(dedupe(rc.records(k))) >= 75 })
		for i, r := range dedupe(rc.records(k)) {
			if r.Seq != int64(i+1) || r.ID != k+"#"+strconv.Itoa(i+1) || r.Text != fmt.Sprintf("m%d", i+1) {
				t.Fatalf("chat %s record %d = %+v, want seq %d", k, i, r, i+1)
			}
		}
	}
	rc.mu.Lock()
	for _, n := range rc.batches {
		if n > 100 {
			t.Errorf("a batch of %d records, want at most 100", n)
		}
	}
	rc.mu.Unlock()
	if rc.bad.Load() != 0 {
		t.Fatalf("%d requests had a signature that did not verify", rc.bad.Load())
	}
	wait.Eventually(t, "nothing pending", func() bool {
		st, err := relay.Status(context.Background())
		return err == nil && st.Pending == 0 && st.OldestPendingAt == nil && st.Delivered >= 300
	})
}

// dedupe keeps the first sighting of each id (delivery is at least once)
// and fails on a record seen before an earlier one of its chat.
func dedupe(recs []botgw.StreamRecord) []botgw.StreamRecord {
	var out []botgw.StreamRecord
	var last int64
	for _, r := range recs {
		if r.Seq <= last {
			continue
		}
		last = r.Seq
		out = append(out, r)
	}
	return out
}

// TestWebhookContentOff leaves text and location out.
func TestWebhookContentOff(t *testing.T) {
	store, rc, _ := setup(t, false)
	k := botgw.ChatKey{Channel: "test", ID: "private"}
	commit(t, store, k, message(k, "I'm at the old bridge"))
	wait.Eventually(t, "the record", func() bool { return len(rc.records(k.String())) == 1 })
	r := rc.records(k.String())[0]
	if r.Text != "" || r.Location != nil || r.Action != botgw.ActionLocation || r.AgentID != "user:7" {
		t.Fatalf("record with content off = %+v; want no text or location, the rest kept", r)
	}
}

// TestWebhookRetriesOnlyWhatFailed has the relay find 250 records of one
// chat at once (one read, three POSTs) and the receiver refuse the second
// POST once: the first hundred are not sent again, and every record
// arrives exactly once, in seq order.
func TestWebhookRetriesOnlyWhatFailed(t *testing.T) {
	store, rc, _, start := newRig(t, true)
	k := botgw.ChatKey{Channel: "test", ID: "burst"}
	for i := range 250 {
		commit(t, store, k, message(k, fmt.Sprintf("m%d", i+1)))
	}
	rc.failAt.Store(2)
	start()
	wait.Eventually(t, "all 250 records", func() bool { return len(dedupe(rc.records(k.String()))) >= 250 })
	got := rc.records(k.String())
	for i, r := range got {
		if r.Seq != int64(i+1) {
			t.Fatalf("record %d of %d arrived has seq %d: each record once, in order, wanted", i, len(got), r.Seq)
		}
	}
	if len(got) != 250 {
		t.Fatalf("%d records arrived, want 250 (acknowledged batches sent again?)", len(got))
	}
}
