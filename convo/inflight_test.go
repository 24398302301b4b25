package convo

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/internal/wait"
	"github.com/botgw/botgw/providers/fake"
)

// A worker whose lease lapses while the platform is taking its committed
// reply (its renewal late: every 1.5 s for a 1 s lease) learns that the
// lease is gone from the renewal. The send in flight then is not cut off:
// the platform may already have the reply, and the worker records the
// outcome, so the replica that takes the chat over finds the reply
// delivered when its takeover grace ends and does not send it again.
func TestSendInFlightWhenTheLeaseLapsesGoesOnce(t *testing.T) {
	stores := openShared(t, 2, fastStore) // lease 1s
	platform := newTakingPlatform()
	stale := newRig(t, stores[0], fake.New(fake.Step{Text: "the answer"}), Config{LeaseRenew: 1500 * time.Millisecond},
		sendThrough(platform.around))
	stale.say(t, testChat, "1", "question")
	<-platform.entered // committed; the platform has the reply, its answer is slow
	wait.Eventually(t, "the stale worker to find its lease lost", func() bool {
		return strings.Contains(stale.logs.String(), `msg="lease lost during turn; cancelling it"`)
	})
	other := newRig(t, stores[1], fake.New(), Config{}, sendThrough(platform.around))
	close(platform.open) // the platform answers the stale worker's send
	wait.Eventually(t, "the reply to leave the outbox and both replicas to let the chat go", func() bool {
		info, err := stores[1].Info(t.Context(), testChat)
		return err == nil && info.Outbox == 0 && idle(stale.eng) && idle(other.eng)
	})
	if n := platform.taken(); n != 1 {
		t.Errorf("the platform took the reply %d times, want once (the send cut off at the lease's loss went again)", n)
	}
}

// idle reports whether e runs no chat.
func idle(e *Engine) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.workers) == 0
}

// takingPlatform stands for a platform that takes every send at once but
// answers the first only once open is closed, or never if its caller
// gives up; entered is closed when the first send arrives.
type takingPlatform struct {
	entered, open chan struct{}
	once          sync.Once
	mu            sync.Mutex
	sends         int
}

func newTakingPlatform() *takingPlatform {
	return &takingPlatform{entered: make(chan struct{}), open: make(chan struct{})}
}

// around is the platform in front of a rig's channel, for sendThrough.
func (p *takingPlatform) around(ch botgw.Channel) botgw.Channel {
	return &takingSend{Channel: ch, p: p}
}

func (p *takingPlatform) taken() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.sends
}

type takingSend struct {
	botgw.Channel
	p *takingPlatform
}

func (s *takingSend) Send(ctx context.Context, m botgw.Outbound) error {
	s.p.mu.Lock()
	s.p.sends++
	s.p.mu.Unlock()
	first := false
	s.p.once.Do(func() { first = true; close(s.p.entered) })
	if !first {
		return nil
	}
	select {
	case <-ctx.Done():
		return ctx.Err() // taken all the same: the caller cannot know
	case <-s.p.open:
		return nil
	}
}
