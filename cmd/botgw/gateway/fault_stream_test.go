package gateway

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/internal/wait"
)

const streamSecret = "fault-stream-secret"

// streamReceiver is the game's stream endpoint: it verifies each batch's
// signature, refuses everything while down, and keeps what it took. While
// hold is set it takes nothing and answers only when the sender hangs up
// (a batch in flight that the sender must send again), signalling held.
type streamReceiver struct {
	mu   sync.Mutex
	got  map[string][]botgw.StreamRecord
	raw  []byte // every body it took
	down atomic.Bool
	bad  atomic.Int64
	hold atomic.Bool
	held chan struct{}
}

func newStreamReceiver(t *testing.T) (*streamReceiver, string) {
	rc := &streamReceiver{got: map[string][]botgw.StreamRecord{}, held: make(chan struct{}, 1)}
	srv := httptest.NewServer(rc)
	t.Cleanup(srv.Close)
	return rc, srv.URL
}

func (rc *streamReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	m := hmac.New(sha256.New, []byte(streamSecret))
	m.Write([]byte(r.Header.Get("X-Botgw-Timestamp") + "." + string(body)))
	if !hmac.Equal([]byte(r.Header.Get("X-Botgw-Signature")), []byte("v1="+hex.EncodeToString(m.Sum(nil)))) {
		rc.bad.Add(1)
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	if rc.down.Load() {
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	var batch struct{ Records []botgw.StreamRecord }
	if json.Unmarshal(body, &batch) != nil || len(batch.Records) > 100 {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	if rc.hold.Load() {
		select {
		case rc.held <- struct{}{}:
		default:
		}
		<-r.Context().Done()
		return
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.raw = append(rc.raw, body...)
	for _, rec := range batch.Records {
		rc.got[rec.ConversationID] = append(rc.got[rec.ConversationID], rec)
	}
}

// records are the records of chat the receiver took, as they came.
func (rc *streamReceiver) records(chat int64) []botgw.StreamRecord {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return slices.Clone(rc.got[fmt.Sprintf("telegram:%d", chat)])
}

// summary is, per chat, the seqs the receiver took in the order they came.
func (rc *streamReceiver) summary() string {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	var b strings.Builder
	for _, chat := range slices.Sorted(maps.Keys(rc.got)) {
		fmt.Fprintf(&b, "\n  %s:", chat)
		for _, r := range rc.got[chat] {
			fmt.Fprintf(&b, " %d", r.Seq)
		}
	}
	if b.Len() == 0 {
		return "nothing"
	}
	return b.String()
}

// check verifies one chat's records: each id the same record on every
// delivery, first sightings in seq order 1..n without gaps, the player's
// messages in the order sent. It reports whether all of them arrived.
func (rc *streamReceiver) check(t *testing.T, chat int64, lines []string) bool {
	recs := rc.records(chat)
	var firsts []botgw.StreamRecord
	for _, r := range recs {
		switch {
		case r.Seq == int64(len(firsts)+1):
			firsts = append(firsts, r)
		case r.Seq > int64(len(firsts)+1):
			t.Fatalf("chat %d: record %d arrived before record %d", chat, r.Seq, len(firsts)+1)
		case firsts[r.Seq-1].Text != r.Text:
			t.Fatalf("chat %d: record %s delivered twice with different content", chat, r.ID)
		}
	}
	var said []string
	for _, r := range firsts {
		if r.Action == botgw.ActionMessage {
			said = append(said, r.Text)
		}
	}
	if !slices.Equal(said, lines[:min(len(said), len(lines))]) {
		t.Fatalf("chat %d: messages recorded %q, want %q", chat, said, lines)
	}
	return len(said) == len(lines) && firsts[len(firsts)-1].Action == botgw.ActionReply
}

// TestFaultStreamInOrderAcrossKillAndOutage runs two replicas with a
// webhook sink, on a single Redis and on a Redis Cluster of three masters.
// Both replicas are killed (-9) while a batch is in flight and restarted;
// then the receiver goes down, and a replica is killed and restarted
// meanwhile. Once the receiver is back every record arrives, each chat's
// in seq order without gaps, signed.
func TestFaultStreamInOrderAcrossKillAndOutage(t *testing.T) {
	eachTarget(t, testStreamAcrossKillAndOutage)
}

func testStreamAcrossKillAndOutage(t *testing.T, target redisTarget) {
	rc, url := newStreamReceiver(t)
	extra := fmt.Sprintf("stream: {webhook: {url: %q, secret: %s}}\n", url, streamSecret)
	sc := newScenario(t, target, 2, func(c string) string { return c + extra })
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the receiver took %s\nwhat the replicas complained of:\n%s", rc.summary(), sc.complaints(0))
		}
	})
	chats, per := chatIDs(6), 6
	rc.hold.Store(true)
	sc.traffic(chats, per/2, 6, 0)
	select {
	case <-rc.held:
	case <-time.After(60 * time.Second):
		t.Fatal("no stream batch reached the receiver within 60s")
	}
	for _, r := range sc.replicas { // the relay holding the batch dies mid-delivery
		r.kill(t)
	}
	rc.hold.Store(false)
	for _, r := range sc.replicas {
		r.start(t)
	}
	rc.down.Store(true)
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range chats {
			for n := per/2 + 1; n <= per; n++ {
				deliver(t, sc.replicas, i+n, tgText(chats[i], n, lineOf(chats[i], n)))
			}
		}
	})
	sc.answered(2)
	sc.replicas[0].kill(t)
	wg.Wait()
	sc.replicas[0].start(t)
	sc.settle(chats, per, 30*time.Second, false)
	time.Sleep(2 * time.Second) // the receiver stays down a while longer: records wait in Redis
	rc.down.Store(false)
	for _, c := range chats {
		var lines []string
		for i := 1; i <= per; i++ {
			lines = append(lines, lineOf(c, i))
		}
		wait.Eventually(t, fmt.Sprintf("chat %d's records of %d messages and their replies at the receiver", c, per),
			func() bool { return rc.check(t, c, lines) })
	}
	if n := rc.bad.Load(); n > 0 {
		t.Fatalf("%d batches had a signature that did not verify", n)
	}
	wait.Eventually(t, "no record pending for the webhook (GET /v1/admin/stream)",
		func() bool { return streamPending(t, sc.replicas[1].base) == 0 })
}

// streamPending is the webhook sink's pending count from GET /v1/admin/stream.
func streamPending(t *testing.T, base string) int64 {
	req, _ := http.NewRequest(http.MethodGet, base+"/v1/admin/stream", nil)
	req.Header.Set("Authorization", "Bearer "+faultAdminToken)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return -1
	}
	defer res.Body.Close()
	var v struct {
		Sinks []struct {
			Name    string `json:"name"`
			Pending int64  `json:"pending"`
		} `json:"sinks"`
	}
	if err := json.NewDecoder(res.Body).Decode(&v); err != nil || len(v.Sinks) != 1 || !strings.EqualFold(v.Sinks[0].Name, "webhook") {
		t.Fatalf("GET /v1/admin/stream: %v %+v", err, v)
	}
	return v.Sinks[0].Pending
}

// tgLocation is a private-chat location update from user (and chat) chat.
func tgLocation(chat int64, msgID int, lat, lon float64) string {
	b, _ := json.Marshal(map[string]any{
		"update_id": chat*100 + int64(msgID),
		"message": map[string]any{
			"message_id": msgID, "date": 1732270000,
			"location": map[string]any{"latitude": lat, "longitude": lon},
			"from":     map[string]any{"id": chat, "is_bot": false, "first_name": "Player"},
			"chat":     map[string]any{"id": chat, "type": "private", "first_name": "Player"},
		},
	})
	return string(b)
}

// TestStreamContentOffOnTheBinary runs the built gateway with
// stream.webhook.content false: a player's text and a shared location make
// records with their action, agent and seq, and neither the text, the
// location nor the assistant's answers reach the receiver.
func TestStreamContentOffOnTheBinary(t *testing.T) {
	rc, url := newStreamReceiver(t)
	extra := fmt.Sprintf("stream: {webhook: {url: %q, secret: %s, content: false}}\n", url, streamSecret)
	sc := newScenario(t, sharedRedis(t), 1, func(c string) string { return c + extra })
	chat := chatIDs(1)[0]
	deliver(t, sc.replicas, 0, tgText(chat, 1, "I am at the old bridge"))
	sc.answered(1)
	deliver(t, sc.replicas, 0, tgLocation(chat, 2, 53.99212, -1.54181))
	sc.answered(1)
	var got []string
	wait.Eventually(t, "four records of the text and the location at the receiver", func() bool {
		got = got[:0]
		for i, r := range rc.records(chat) {
			if r.Seq != int64(i+1) || r.Text != "" || r.Location != nil {
				t.Fatalf("record %d = %+v: want seq %d, no text, no location", i, r, i+1)
			}
			got = append(got, r.AgentID+" "+r.Action)
		}
		return len(got) >= 4
	})
	user := fmt.Sprintf("user:%d", chat)
	want := []string{user + " message", "botgw reply", user + " location", "botgw reply"}
	if !slices.Equal(got, want) {
		t.Fatalf("records %q, want %q", got, want)
	}
	rc.mu.Lock()
	raw := string(rc.raw)
	rc.mu.Unlock()
	for _, leak := range []string{"old bridge", "53.99", "latitude", `"text"`} {
		if strings.Contains(raw, leak) {
			t.Fatalf("the stream carried %q with content off: %s", leak, raw)
		}
	}
}
