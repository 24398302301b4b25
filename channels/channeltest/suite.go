package channeltest

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/channels/markup"
)

// Harness is what an adapter gives the conformance suite: its dialect, the
// cases its platform lacks, and a way to build the adapter on a fake of its
// platform. Run calls New once per case, so cases never share state.
type Harness struct {
	// UserID and UserName are the sender of the messages the suite
	// receives, as the platform writes them.
	UserID, UserName string
	// Dialect is how the adapter writes replies; its golden file
	// (testdata/<Dialect.Name>.golden) is what the corpus must render to.
	Dialect markup.Dialect
	// Lacks names the cases (Case* constants) the platform does not have,
	// each with the reason, which the suite prints when it skips the case.
	Lacks map[string]string
	// New builds the adapter wired to a fresh fake platform.
	New func(t *testing.T) Platform
}

// Platform is one adapter on its fake platform.
type Platform interface {
	// Channel is the adapter under test.
	Channel() botgw.Channel
	// Receive makes the platform deliver m to the adapter the way it really
	// would (a webhook, a socket event, a client event), with deliver as
	// the gateway's store. It returns once the adapter is done with m.
	Receive(t *testing.T, m Message, deliver botgw.Deliver)
	// Key is the chat key CONTRACT.md gives the conversation m belongs to.
	Key(m Message) botgw.ChatKey
	// Sent is the text of every message the platform accepted, in order.
	Sent() []string
	// Fail makes every send after the next n accepted ones fail with f,
	// until Fail(OK, 0).
	Fail(f Failure, n int)
	// Typing counts the "working on it" signals the platform was shown.
	Typing() int
}

// Failure is how the fake platform refuses a send.
type Failure int

const (
	OK          Failure = iota
	Temporary           // a server error: retrying later may work
	RateLimited         // too many requests, with a Retry-After
	Permanent           // the bot was blocked or the chat is gone
)

// Where is the kind of conversation a message is written in.
type Where int

const (
	Private Where = iota // a direct chat with the bot
	Group                // a group or channel with other members
	Thread               // a thread or forum topic inside Group
)

// What is the kind of platform message.
type What int

const (
	Text     What = iota
	Media         // a photo without a caption
	Edit          // an edit of an earlier message
	Reaction      // a reaction to a message
	Own           // the bot's own message, echoed back by the platform
)

// Message is a platform message described neutrally; the harness writes it
// in its platform's own format.
type Message struct {
	Seq      int // unique per message within a case; the same Seq is the same platform message
	What     What
	Where    Where
	Mention  bool   // in a group or thread, the message mentions the bot
	Text     string // without the mention, which the harness adds
	UserID   string
	UserName string
}

// Store is a botgw.Deliver that stores like the gateway: a message whose
// chat and ID it already holds is accepted and not stored again. Safe for
// concurrent use; the zero value is ready.
type Store struct {
	mu     sync.Mutex
	stored []botgw.Inbound
	calls  int
	err    error
}

// FailingStore is a Store whose every Deliver returns err.
func FailingStore(err error) *Store { return &Store{err: err} }

// Deliver stores in (a botgw.Deliver), or returns the failure set by Fail.
func (s *Store) Deliver(_ context.Context, in botgw.Inbound) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	if s.err != nil {
		return s.err
	}
	for _, old := range s.stored {
		if old.Chat == in.Chat && old.ID == in.ID {
			return nil
		}
	}
	s.stored = append(s.stored, in)
	return nil
}

// Fail makes every later Deliver return err (nil: store again).
func (s *Store) Fail(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.err = err
}

// Stored returns what was stored, in order.
func (s *Store) Stored() []botgw.Inbound {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]botgw.Inbound(nil), s.stored...)
}

// Calls counts the Deliver calls, duplicates and failures included.
func (s *Store) Calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
}

// env is one case's adapter, its platform, its store and ignored count.
type env struct {
	Platform
	ch      botgw.Channel
	store   Store
	ignored atomic.Int64
}

func newEnv(t *testing.T, h Harness) *env {
	p := h.New(t)
	e := &env{Platform: p, ch: p.Channel()}
	if ic, ok := e.ch.(botgw.IgnoreCounter); ok {
		ic.CountIgnored(func() { e.ignored.Add(1) })
	}
	return e
}

// receive has the platform deliver m and returns what got stored from it.
func (e *env) receive(t *testing.T, m Message) []botgw.Inbound {
	t.Helper()
	before := len(e.store.Stored())
	e.Receive(t, m, e.store.Deliver)
	return e.store.Stored()[before:]
}

// Run runs the conformance suite against the adapter h describes. Each
// case is a subtest named after it (inbound/..., outbound/..., format/...),
// so a broken rule fails the adapter's run naming the case.
func Run(t *testing.T, h Harness) {
	for name := range h.Lacks {
		if !slices.ContainsFunc(cases, func(c suiteCase) bool { return c.name == name }) {
			t.Errorf("Harness.Lacks names %q, which is no case of the suite", name)
		}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if why, ok := h.Lacks[c.name]; ok {
				t.Skipf("%s does not have this: %s", h.Dialect.Name, why)
			}
			c.run(t, h, newEnv(t, h))
		})
	}
}

type suiteCase struct {
	name string
	run  func(t *testing.T, h Harness, e *env)
}
