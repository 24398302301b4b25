package convo

import (
	"context"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/internal/wait"
	"github.com/botgw/botgw/providers/fake"
	"github.com/botgw/botgw/state"
)

// A replica whose lease expires during a slow turn (its renewal suppressed
// here) must not commit: the chat has moved to another replica, and the
// stale answer would duplicate the turn. The new holder has not committed
// yet, so the state version still matches: only the lease fences it.
func TestExpiredLeaseRefusesTheStaleCommit(t *testing.T) {
	stores := openShared(t, 2, fastStore) // lease 1s
	slow := fake.New()
	releaseSlow := slow.Block()
	defer releaseSlow()
	stale := newRig(t, stores[0], slow, Config{LeaseRenew: time.Hour})
	stale.say(t, testChat, "1", "slow question")
	wait.Eventually(t, "the condition", func() bool { return len(slow.Requests()) == 1 })

	next := fake.New()
	releaseNext := next.Block()
	defer releaseNext()
	other := newRig(t, stores[1], next, Config{})
	// Both replicas race for the chat's claim every visibility timeout
	// (0.5 s); the stale one, still running its turn, wins about half of
	// them, so the other may need a few rounds.
	wait.Eventually(t, "the other replica to take the expired lease", func() bool { return len(next.Requests()) == 1 })
	releaseSlow()
	wait.Eventually(t, "the condition", func() bool {
		return strings.Contains(stale.logs.String(), `msg="commit turn"`) &&
			strings.Contains(stale.logs.String(), botgw.ErrLeaseLost.Error())
	})
	releaseNext()
	other.ch.Wait(t, 1, 5*time.Second)

	if sent := stale.ch.Sent(); len(sent) != 0 {
		t.Errorf("the stale replica sent %d replies, want none", len(sent))
	}
	h := history(t, stores[1], testChat)
	if got := userTexts(h); !slices.Equal(got, []string{"slow question"}) {
		t.Errorf("history user messages = %q, want the question once", got)
	}
	if n := countRole(h, botgw.RoleAssistant); n != 1 {
		t.Errorf("history holds %d answers, want 1 (the stale turn was committed)", n)
	}
}

func countRole(h []botgw.Message, r botgw.Role) int {
	n := 0
	for _, m := range h {
		if m.Role == r {
			n++
		}
	}
	return n
}

// A worker whose lease expired between two turns of a busy chat, its
// renewal late (suppressed here), does not go on with the next turn on the
// state it kept: FinishNext did not check the lease, so the worker checks
// it first, and leaves the input to the replica that took the chat.
func TestLeaseLostBetweenTurnsStopsTheWorker(t *testing.T) {
	stores := openShared(t, 2, fastStore) // lease 1s
	send := newGatedSend()
	stale := newRig(t, stores[0], fake.New(), Config{LeaseRenew: time.Hour}, sendThrough(send.around))
	stale.say(t, testChat, "1", "first")
	<-send.entered // the first answer is committed; its send hangs

	next := fake.New()
	releaseNext := next.Block()
	defer releaseNext()
	other := newRig(t, stores[1], next, Config{})
	other.say(t, testChat, "2", "second")
	wait.Eventually(t, "the other replica to take the expired lease", func() bool { return len(next.Requests()) == 1 })
	close(send.open)
	wait.Eventually(t, "the condition", func() bool { return strings.Contains(stale.logs.String(), `msg="lease lost between turns"`) })
	releaseNext()
	other.ch.Wait(t, 2, 5*time.Second) // the first answer (from the outbox), then the second

	if n := len(stale.prov.Requests()); n != 1 {
		t.Errorf("the stale replica asked the model %d times, want once (not for the input it no longer holds)", n)
	}
	h := history(t, stores[1], testChat)
	if got := userTexts(h); !slices.Equal(got, []string{"first", "second"}) {
		t.Errorf("history user messages = %q, want [first second]", got)
	}
	if n := countRole(h, botgw.RoleAssistant); n != 2 {
		t.Errorf("history holds %d answers, want 2", n)
	}
}

// gatedSend holds every send until open is closed, and closes entered at
// the first.
type gatedSend struct {
	botgw.Channel
	entered, open chan struct{}
	once          sync.Once
}

func newGatedSend() *gatedSend {
	return &gatedSend{entered: make(chan struct{}), open: make(chan struct{})}
}

// around is gatedSend in front of ch, for sendThrough.
func (g *gatedSend) around(ch botgw.Channel) botgw.Channel {
	g.Channel = ch
	return g
}

func (g *gatedSend) Send(ctx context.Context, m botgw.Outbound) error {
	g.once.Do(func() { close(g.entered) })
	<-g.open
	return g.Channel.Send(ctx, m)
}

// An operator's reset while a busy chat goes from one turn to the next on
// the state its worker kept is not undone by that turn: its commit meets
// the reset (the version fence), and the turn runs again on the empty state.
func TestResetBetweenKeptTurnsHolds(t *testing.T) {
	st := openStore(t, false, state.Options{})
	send := newGatedSend()
	r := newRig(t, st, fake.New(), Config{}, sendThrough(send.around))
	r.say(t, testChat, "1", "first")
	<-send.entered // the first turn is committed; its reply's send hangs
	release := r.prov.Block()
	defer release()
	r.say(t, testChat, "2", "second")
	close(send.open) // the worker finishes and goes on with "second" at once
	wait.Eventually(t, "the condition", func() bool { return len(r.prov.Requests()) == 2 })
	if err := st.Reset(t.Context(), testChat); err != nil {
		t.Fatal(err)
	}
	release()
	r.ch.Wait(t, 2, 5*time.Second)

	if got := userTexts(history(t, st, testChat)); !slices.Equal(got, []string{"second"}) {
		t.Errorf("history user messages after a reset during the second turn = %q, want [second]", got)
	}
	if n := len(r.prov.Requests()); n != 3 {
		t.Errorf("model asked %d times, want 3 (the second turn again, on the reset state)", n)
	}
}

// A message that reaches a busy chat is answered by the chat's next turn,
// whose input the worker reads along with the last turn's finish: once the
// turns end, it takes no second lease to look at a chat with nothing left.
func TestInputToABusyChatTakesNoSecondLease(t *testing.T) {
	st := &beginCounter{Store: openStore(t, false, state.Options{})}
	send := newGatedSend()
	r := newRig(t, st, fake.New(), Config{}, sendThrough(send.around))
	r.say(t, testChat, "1", "first")
	<-send.entered
	r.say(t, testChat, "2", "second") // the chat's worker is busy: the kick marks it
	close(send.open)
	r.ch.Wait(t, 2, 5*time.Second)
	wait.Eventually(t, "the condition", func() bool {
		r.eng.mu.Lock()
		defer r.eng.mu.Unlock()
		return len(r.eng.workers) == 0
	})
	if n := st.begins.Load(); n != 1 {
		t.Errorf("the chat's lease was taken %d times for two messages in a row, want once", n)
	}
}

// beginCounter counts the store's Begin calls.
type beginCounter struct {
	*state.Store
	begins atomic.Int32
}

func (b *beginCounter) Begin(ctx context.Context, k botgw.ChatKey, lease string) (botgw.Snapshot, error) {
	b.begins.Add(1)
	return b.Store.Begin(ctx, k, lease)
}

// A turn that waits on the model longer than its lease keeps its chat: the
// replica renews the leases of all its waiting chats together, in one call
// a renewal, and the other replica, polling all along, takes none of them.
// The renewal interval is the default one, a third of the store's lease.
func TestWaitingTurnsKeepTheirLeasesRenewedTogether(t *testing.T) {
	stores := openShared(t, 2, fastStore) // lease 1s
	counted := &renewCounter{Store: stores[0]}
	slow := fake.New()
	release := slow.Block()
	defer release()
	r := newRig(t, counted, slow, Config{})
	chats := []botgw.ChatKey{{Channel: "test", ID: "a"}, {Channel: "test", ID: "b"}, {Channel: "test", ID: "c"}}
	for i, k := range chats {
		r.say(t, k, msgID(i), "slow question")
	}
	wait.Eventually(t, "the condition", func() bool { return len(slow.Requests()) == len(chats) })
	other := fake.New()
	newRig(t, stores[1], other, Config{})
	// Six renewals of all three: two lease TTLs have passed.
	wait.Eventually(t, "six renewals carrying every waiting chat", func() bool { return counted.together(len(chats)) >= 6 })
	release()
	r.ch.Wait(t, len(chats), 10*time.Second)

	if n := len(other.Requests()); n != 0 {
		t.Errorf("the other replica asked the model %d times, want none (the leases were kept)", n)
	}
	for _, k := range chats {
		if n := countRole(history(t, stores[0], k), botgw.RoleAssistant); n != 1 {
			t.Errorf("chat %s holds %d answers, want 1", k, n)
		}
	}
}

// renewCounter counts the store's batch renewals by how many leases each
// carried.
type renewCounter struct {
	*state.Store
	mu    sync.Mutex
	sizes []int
}

func (c *renewCounter) RenewLeases(ctx context.Context, chats []botgw.ChatKey, leases []string) []error {
	c.mu.Lock()
	c.sizes = append(c.sizes, len(chats))
	c.mu.Unlock()
	return c.Store.RenewLeases(ctx, chats, leases)
}

// together is the number of renewals that carried n leases at once.
func (c *renewCounter) together(n int) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(slices.DeleteFunc(slices.Clone(c.sizes), func(s int) bool { return s != n }))
}

// A worker stops renewing its lease before FinishNext releases it: a
// renewal landing after the release would read as a lost lease and log a
// false alarm ("lease lost during turn").
func TestNoRenewalWhileFinishing(t *testing.T) {
	st := &finishWatch{Store: openStore(t, false, state.Options{})}
	r := newRig(t, st, fake.New(), Config{LeaseRenew: 60 * time.Millisecond})
	for i := range 3 {
		r.say(t, testChat, msgID(i), "hello")
		r.ch.Wait(t, i+1, 10*time.Second)
	}
	wait.Eventually(t, "three finishes", func() bool { return st.finishes.Load() >= 3 })
	if n := st.overlaps.Load(); n != 0 {
		t.Errorf("%d renewals ran while the chat's FinishNext did, want none", n)
	}
	if strings.Contains(r.logs.String(), "lease lost") {
		t.Errorf("a chat that kept its lease logged it lost:\n%s", r.logs.String())
	}
}

// finishWatch holds every FinishNext for several renewal intervals and
// counts the renewals that run meanwhile.
type finishWatch struct {
	*state.Store
	finishing          atomic.Bool
	finishes, overlaps atomic.Int32
}

func (f *finishWatch) FinishNext(ctx context.Context, k botgw.ChatKey, lease string, delivered []string, paced time.Time) (botgw.Snapshot, bool, error) {
	f.finishing.Store(true)
	time.Sleep(250 * time.Millisecond) // four renewal intervals: a renewer still holding the lease would renew it
	f.finishing.Store(false)
	defer f.finishes.Add(1)
	return f.Store.FinishNext(ctx, k, lease, delivered, paced)
}

func (f *finishWatch) RenewLeases(ctx context.Context, chats []botgw.ChatKey, leases []string) []error {
	if f.finishing.Load() {
		f.overlaps.Add(1)
	}
	return f.Store.RenewLeases(ctx, chats, leases)
}
