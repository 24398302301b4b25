package convo

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/convo/audit"
	"github.com/botgw/botgw/convo/operator"
	"github.com/botgw/botgw/internal/syncbuf"
	"github.com/botgw/botgw/internal/wait"
	"github.com/botgw/botgw/providers/fake"
	"github.com/botgw/botgw/state"
)

// refusingChannel refuses every send for good (as Telegram's "chat not
// found") until fixed, then records.
type refusingChannel struct {
	mu        sync.Mutex
	broken    bool
	transient bool
	reason    string // the refusal's dead-letter reason, if any
	waiting   string // set: the channel says it waits (PlatformError.Waiting)
	calls     int
	sent      []botgw.Outbound
}

func (c *refusingChannel) Name() string { return "test" }

func (c *refusingChannel) Send(_ context.Context, m botgw.Outbound) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls++
	if c.broken && c.waiting != "" {
		return &botgw.PlatformError{Channel: "test", Waiting: c.waiting, Err: errors.New("account banned for now")}
	}
	if c.broken {
		return &botgw.PlatformError{Channel: "test", Status: 400, Permanent: !c.transient, Reason: c.reason, Err: errors.New("Bad Request: chat not found")}
	}
	c.sent = append(c.sent, m)
	return nil
}

func (c *refusingChannel) fix() { c.mu.Lock(); c.broken = false; c.mu.Unlock() }

func (c *refusingChannel) got() []botgw.Outbound {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]botgw.Outbound(nil), c.sent...)
}

func newDeadRig(t *testing.T, st *state.Store, ch *refusingChannel, cfg Config) (*Engine, *syncbuf.Buffer) {
	t.Helper()
	logs := &syncbuf.Buffer{}
	cfg.PollInterval = 50 * time.Millisecond
	eng, err := New(cfg, Deps{Store: st, Provider: fake.New(), Channels: map[string]botgw.Channel{"test": ch},
		Log: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go eng.Run(ctx)
	t.Cleanup(func() {
		cancel()
		c, done := context.WithTimeout(context.Background(), 5*time.Second)
		defer done()
		_ = eng.Close(c)
	})
	return eng, logs
}

func deadList(t *testing.T, st *state.Store) []botgw.DeadLetter {
	t.Helper()
	items, _, err := st.ListDeadLetters(context.Background(), "", 100)
	if err != nil {
		t.Fatal(err)
	}
	return items
}

// TestRefusedReplyIsDeadLetteredRetriedOnceAndDiscarded: a reply the
// platform refuses for good is kept, not dropped; once the platform is
// fixed a retry delivers it exactly once; both actions are audited.
func TestRefusedReplyIsDeadLetteredRetriedOnceAndDiscarded(t *testing.T) {
	st := openStore(t, false, fastStore)
	ch := &refusingChannel{broken: true}
	eng, logs := newDeadRig(t, st, ch, Config{})
	ctx := context.Background()
	trail := audit.NewLog(st.AuditStream())
	op := &operator.API{Store: st, Trail: trail, Deliver: eng.Handle}
	for i, text := range []string{"where is the clue?", "hello?"} {
		if err := eng.Handle(ctx, botgw.Inbound{Chat: testChat, ID: msgID(i), Text: text}); err != nil {
			t.Fatal(err)
		}
		wait.Eventually(t, "a dead letter", func() bool { return len(deadList(t, st)) == i+1 })
	}
	dls := deadList(t, st)
	if d := dls[0]; d.Kind != "reply" || d.Chat != "test:player1" || !strings.Contains(d.Reason, "chat not found") || d.Text == "" || d.Reply == nil {
		t.Fatalf("dead letter = %+v", d)
	}
	if dls[0].ID <= dls[1].ID || dls[0].At.Before(dls[1].At) {
		t.Errorf("dead letters not newest first: %s then %s", dls[0].ID, dls[1].ID)
	}
	if !strings.Contains(logs.String(), "level=WARN msg=\"dead letter") || strings.Contains(logs.String(), "where is the clue") {
		t.Errorf("want a warn line without the text; logs:\n%s", logs.String())
	}
	ch.fix()
	if err := op.RetryDeadLetter(ctx, dls[1].ID, "admin-api (Sam)"); err != nil {
		t.Fatal(err)
	}
	if err := op.RetryDeadLetter(ctx, dls[1].ID, "admin-api (Kim)"); !errors.Is(err, botgw.ErrNotFound) {
		t.Errorf("second retry of the same dead letter: %v, want not found", err)
	}
	wait.Eventually(t, "the retried reply delivered", func() bool { return len(ch.got()) == 1 })
	if got := ch.got()[0]; got.Text != dls[1].Text {
		t.Errorf("retried reply = %q, want %q", got.Text, dls[1].Text)
	}
	if err := op.DiscardDeadLetter(ctx, dls[0].ID, "admin-api (Sam)"); err != nil {
		t.Fatal(err)
	}
	if left := deadList(t, st); len(left) != 0 {
		t.Errorf("dead letters after retry and discard: %+v", left)
	}
	entries, _ := trail.Recent(ctx, 10)
	var actions []string
	for _, e := range entries {
		actions = append(actions, e.Actor+" "+e.Action+" "+e.Target+" "+e.Result)
	}
	joined := strings.Join(actions, "\n")
	if !strings.Contains(joined, "admin-api (Sam) dead-letter retry "+dls[1].ID+" ok") ||
		!strings.Contains(joined, "admin-api (Sam) dead-letter discard "+dls[0].ID+" ok") {
		t.Errorf("audit log:\n%s", joined)
	}
	// The chat's replies go out in order: once the next one is out, a
	// second copy of the retried one would have gone before it.
	if err := eng.Handle(ctx, botgw.Inbound{Chat: testChat, ID: "after", Text: "thanks"}); err != nil {
		t.Fatal(err)
	}
	wait.Eventually(t, "the next reply", func() bool { return len(ch.got()) >= 2 })
	if n := len(ch.got()); n != 2 {
		t.Errorf("sends after the retry and one more message: %d, want 2 (the retried reply once)", n)
	}
}

// TestReplyFailingPastItsBudgetIsDeadLettered: a platform that keeps
// failing (not for good) gets DeliveryAttempts rounds, then the reply is a
// dead letter and the chat's next reply is no longer stuck behind it.
func TestReplyFailingPastItsBudgetIsDeadLettered(t *testing.T) {
	st := openStore(t, false, fastStore)
	ch := &refusingChannel{broken: true, transient: true}
	eng, _ := newDeadRig(t, st, ch, Config{DeliveryAttempts: 1})
	if err := eng.Handle(context.Background(), botgw.Inbound{Chat: testChat, ID: "m1", Text: "hi"}); err != nil {
		t.Fatal(err)
	}
	wait.Eventually(t, "a dead letter", func() bool { return len(deadList(t, st)) == 1 })
	d := deadList(t, st)[0]
	if d.Attempts != 1 || !strings.Contains(d.Reason, "still failing after 1 delivery rounds") {
		t.Errorf("dead letter = %+v", d)
	}
	wait.Eventually(t, "the outbox emptied", func() bool {
		info, err := st.Info(context.Background(), testChat)
		return err == nil && info.Outbox == 0
	})
}

// TestDeadLetterInputAndCounts: input that can never be processed is kept
// with its reason, and counted by channel and kind.
func TestDeadLetterInputAndCounts(t *testing.T) {
	st := openStore(t, false, fastStore)
	eng, _ := newDeadRig(t, st, &refusingChannel{}, Config{})
	bad := botgw.Inbound{Chat: botgw.ChatKey{Channel: "slack", ID: "C{1}"}, ID: "x", Text: "poison"}
	if err := eng.DeadLetterInput(context.Background(), bad, "chat key has braces"); err != nil {
		t.Fatal(err)
	}
	counts, err := st.DeadLetterCounts(context.Background())
	if err != nil || counts[[2]string{"slack", "input"}] != 1 {
		t.Errorf("counts = %v, %v", counts, err)
	}
	d := deadList(t, st)[0]
	if d.Kind != "input" || d.Chat != "slack:C{1}" || d.Text != "poison" || d.Reason != "chat key has braces" {
		t.Errorf("dead letter = %+v", d)
	}
	if _, err := st.TakeDeadLetter(context.Background(), d.ID); err != nil {
		t.Fatal(err)
	}
	if counts, _ := st.DeadLetterCounts(context.Background()); len(counts) != 0 {
		t.Errorf("counts after taking the only entry = %v", counts)
	}
}

// TestUnstorableInputIsADeadLetter: input the store refuses for good is
// acknowledged (no error: the platform would redeliver it forever) and kept
// for an operator.
func TestUnstorableInputIsADeadLetter(t *testing.T) {
	st := openStore(t, false, fastStore)
	eng, _ := newDeadRig(t, st, &refusingChannel{}, Config{})
	bad := botgw.Inbound{Chat: botgw.ChatKey{Channel: "slack", ID: "C{1}"}, ID: "x", Text: "poison"}
	if err := eng.Handle(context.Background(), bad); err != nil {
		t.Fatalf("Handle of unstorable input = %v, want nil (acknowledged)", err)
	}
	d := deadList(t, st)
	if len(d) != 1 || d[0].Kind != "input" || d[0].Chat != "slack:C{1}" || d[0].Text != "poison" || !strings.Contains(d[0].Reason, "chat key") {
		t.Errorf("dead letters = %+v", d)
	}
}

// TestRefusalWithAReasonIsKeptUnderIt: a permanent refusal that names its
// reason (Slack: a workspace that uninstalled the app) is the dead
// letter's reason.
func TestRefusalWithAReasonIsKeptUnderIt(t *testing.T) {
	st := openStore(t, false, fastStore)
	eng, _ := newDeadRig(t, st, &refusingChannel{broken: true, reason: "uninstalled"}, Config{})
	if err := eng.Handle(context.Background(), botgw.Inbound{Chat: testChat, ID: msgID(0), Text: "hello?"}); err != nil {
		t.Fatal(err)
	}
	wait.Eventually(t, "a dead letter", func() bool { return len(deadList(t, st)) == 1 })
	if d := deadList(t, st)[0]; d.Kind != "reply" || d.Reason != "uninstalled" {
		t.Errorf("dead letter = %+v, want a reply kept with the reason uninstalled", d)
	}
}
