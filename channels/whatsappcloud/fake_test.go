package whatsappcloud

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/channels/channeltest"
	"github.com/botgw/botgw/state/ratelimit"
	"github.com/botgw/botgw/state/redistest"
)

const (
	testPhone  = "109876543210"
	testToken  = "EAAG-test-token"
	testSecret = "app-secret"
	testVerify = "verify-me"
	player     = "447700900123"
)

// rig is the adapter on an embedded Redis and a fake Graph API.
type rig struct {
	a     *Adapter
	graph *channeltest.GraphAPI
	store *channeltest.Store
	rdb   *redis.Client
}

func newRig(t *testing.T, template bool) *rig {
	t.Helper()
	// real Redis: the send limits' holds expire by TTL, which the embedded
	// Redis only moves when told
	url := redistest.URL(t)
	prefix := redistest.Prefix(t, url)
	opts, err := redis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opts)
	t.Cleanup(func() { rdb.Close() })
	g := channeltest.NewGraphAPI(t, testToken)
	cfg := Config{PhoneNumberID: testPhone, AccessToken: testToken, AppSecret: testSecret, VerifyToken: testVerify,
		APIURL: g.URL, RatePerSecond: 1000}
	if template {
		cfg.Template = &Template{Name: "game_update", Language: "en"}
	}
	a, err := New(cfg, rdb, prefix, ratelimit.New(rdb, ratelimit.Sends(prefix), nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	return &rig{a: a, graph: g, store: &channeltest.Store{}, rdb: rdb}
}

// post posts body signed with secret and returns the recorder.
func (r *rig) post(t *testing.T, body []byte, secret string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, WebhookPath, bytes.NewReader(body))
	if secret != "" {
		req.Header.Set(signatureHeader, channeltest.WASignature(secret, body))
	}
	w := httptest.NewRecorder()
	r.a.WebhookHandler(r.store.Deliver).ServeHTTP(w, req)
	return w
}

// receive posts one message and returns what was stored from it.
func (r *rig) receive(t *testing.T, m map[string]any) botgw.Inbound {
	t.Helper()
	before := len(r.store.Stored())
	if w := r.post(t, channeltest.WAHook(testPhone, []map[string]any{m}, nil), testSecret); w.Code != http.StatusOK {
		t.Fatalf("webhook answered %d %s", w.Code, w.Body)
	}
	stored := r.store.Stored()
	if len(stored) != before+1 {
		t.Fatalf("%d stored, want one more than %d", len(stored), before)
	}
	return stored[len(stored)-1]
}

func text(id, body string, at time.Time) map[string]any {
	return channeltest.WAMessage(player, id, at, "text", map[string]any{"body": body})
}

func chat() botgw.ChatKey { return botgw.ChatKey{Channel: Name, ID: player} }

// sendsOf is the texts the fake Graph API took for the player.
func (r *rig) texts() []string {
	var out []string
	for _, m := range r.graph.SentTo(player) {
		out = append(out, m["type"].(string)+":"+channeltest.GraphText(m))
	}
	return out
}

func ctx(t *testing.T) context.Context { return t.Context() }

func contains(s, sub string) bool { return strings.Contains(s, sub) }
