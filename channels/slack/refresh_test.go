package slack

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/internal/wait"
)

func TestAppTokenIsRefreshedOnceWhileTwoReplicasSend(t *testing.T) {
	r := newAppRig(t)
	a, b := r.replica(t, appConfig(r.f)), r.replica(t, appConfig(r.f))
	g := grant("T0ONE")
	g.RefreshToken, g.ExpiresIn = "xoxe-1-refresh-one", 300 // within refreshAhead: due at once
	r.install(t, a.WebhookHandler(nil), a.WebhookHandler(nil), "code-one", g)
	next := grant("T0ONE")
	next.BotToken, next.RefreshToken, next.ExpiresIn = "xoxe.xoxb-T0ONE-rotated-token", "xoxe-1-refresh-two", 43200
	r.f.AddRefresh("xoxe-1-refresh-one", next)
	chat := botgw.ChatKey{Channel: "slack", ID: "T0ONE/D0ONE"}
	release := r.f.HoldRefreshes()
	var wg sync.WaitGroup
	for i := range 8 {
		replica := []*eventsAppChannel{a, b}[i%2]
		wg.Go(func() {
			if err := replica.Send(t.Context(), botgw.Outbound{ID: fmt.Sprint("r", i), Chat: chat, Text: "hi"}); err != nil {
				t.Error(err)
			}
		})
	}
	// While one replica refreshes, the sends go on with the token, still
	// valid; none starts a refresh of its own.
	wait.Eventually(t, "seven posts, or a second refresh", func() bool {
		return len(r.f.CallsTo("chat.postMessage")) >= 7 || len(r.f.CallsTo("oauth.v2.access")) > 2
	})
	release()
	wg.Wait()
	if n := len(r.f.CallsTo("oauth.v2.access")); n != 2 { // the install, then one refresh
		t.Fatalf("%d oauth.v2.access calls, want the install and one refresh", n)
	}
	for _, replica := range []*eventsAppChannel{a, b} {
		if err := replica.Send(t.Context(), botgw.Outbound{ID: "after", Chat: chat, Text: "hi"}); err != nil {
			t.Fatal(err)
		}
	}
	posts := r.f.CallsTo("chat.postMessage")
	for _, p := range posts[len(posts)-2:] {
		if p.Token != next.BotToken {
			t.Errorf("a replica still sends with %q after the refresh", p.Token)
		}
	}
	if vals := r.allValues(t); strings.Contains(vals, "rotated-token") || strings.Contains(vals, "refresh-two") {
		t.Errorf("Redis holds a rotated token in clear:\n%s", vals)
	}
}

func TestAppFailedRefreshIsShownAndRetried(t *testing.T) {
	r := newAppRig(t)
	a := r.replica(t, appConfig(r.f))
	g := grant("T0ONE")
	g.RefreshToken, g.ExpiresIn = "xoxe-1-refresh-one", 300
	r.install(t, a.WebhookHandler(nil), a.WebhookHandler(nil), "code-one", g)
	chat := botgw.ChatKey{Channel: "slack", ID: "T0ONE/D0ONE"}
	if err := a.Send(t.Context(), botgw.Outbound{ID: "r1", Chat: chat, Text: "hi"}); err != nil {
		t.Fatalf("send with a token still valid while its refresh fails: %v", err)
	}
	st := a.Status().(AppStatus)
	if len(st.RefreshFailing) != 1 || st.RefreshFailing[0].TeamID != "T0ONE" || st.RefreshFailing[0].Error != "invalid_refresh_token" {
		t.Fatalf("status = %+v, want the failed refresh of T0ONE shown", st)
	}
	a.app.mu.Lock()
	delete(a.app.backoff, "T0ONE") // the backoff has passed
	a.app.mu.Unlock()
	next := grant("T0ONE")
	next.BotToken, next.RefreshToken, next.ExpiresIn = "xoxe.xoxb-T0ONE-rotated-token", "xoxe-1-refresh-two", 43200
	r.f.AddRefresh("xoxe-1-refresh-one", next)
	a.sweep(t.Context())
	if st := a.Status().(AppStatus); len(st.RefreshFailing) != 0 || st.Installations != 1 {
		t.Errorf("status after a good refresh = %+v", st)
	}
	if err := a.Send(t.Context(), botgw.Outbound{ID: "r2", Chat: chat, Text: "hi"}); err != nil {
		t.Fatal(err)
	}
	if p := r.f.CallsTo("chat.postMessage"); p[len(p)-1].Token != next.BotToken {
		t.Errorf("sent with %q after the retried refresh", p[len(p)-1].Token)
	}
}

func TestAppTokenKeyChange(t *testing.T) {
	r := newAppRig(t)
	old := r.replica(t, appConfig(r.f))
	r.install(t, old.WebhookHandler(nil), old.WebhookHandler(nil), "code-one", grant("T0ONE"))
	cfg := appConfig(r.f)
	cfg.TokenKey, cfg.TokenKeyOld = otherKey, testTokenKey
	changed := r.replica(t, cfg)
	chat := botgw.ChatKey{Channel: "slack", ID: "T0ONE/D0ONE"}
	if err := changed.Send(t.Context(), botgw.Outbound{ID: "r1", Chat: chat, Text: "hi"}); err != nil {
		t.Fatalf("send with the old key accepted for reading: %v", err)
	}
	changed.sweep(t.Context())
	if st := changed.Status().(AppStatus); st.OldKey != 0 {
		t.Errorf("still %d sealed with the old key after a sweep", st.OldKey)
	}
	cfg.TokenKeyOld = ""
	newOnly := r.replica(t, cfg)
	if err := newOnly.Send(t.Context(), botgw.Outbound{ID: "r2", Chat: chat, Text: "hi"}); err != nil {
		t.Errorf("send with the new key alone after the sweep: %v", err)
	}
	if err := old.Send(t.Context(), botgw.Outbound{ID: "r3", Chat: chat, Text: "hi"}); err == nil {
		t.Error("the old key alone still opens the token")
	}
}

func TestSealedTokenDoesNotOpenUnderAnotherTeam(t *testing.T) {
	s, err := newSealer(testTokenKey, "")
	if err != nil {
		t.Fatal(err)
	}
	sealed := s.seal("T0ONE", "xoxb-secret")
	if strings.Contains(sealed, "xoxb") || s.seal("T0ONE", "xoxb-secret") == sealed {
		t.Errorf("sealed %q: in clear, or the same nonce twice", sealed)
	}
	if tok, _, err := s.open("T0ONE", sealed); err != nil || tok != "xoxb-secret" {
		t.Errorf("open = %q, %v", tok, err)
	}
	if _, _, err := s.open("T0TWO", sealed); err == nil {
		t.Error("a token sealed for T0ONE opens as T0TWO's")
	}
}
