package convo

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/internal/wait"
	"github.com/botgw/botgw/providers/fake"
	"github.com/redis/go-redis/v9"
)

var errRedisAway = errors.New("redis: connection refused")

// awayStore is one replica's view of a Redis that can go away: while away
// is set every call that writes fails, as on a stopped server.
type awayStore struct {
	botgw.Store
	away atomic.Bool
}

func (s *awayStore) fail() error {
	if s.away.Load() {
		return errRedisAway
	}
	return nil
}

func (s *awayStore) FinishNext(ctx context.Context, k botgw.ChatKey, lease string, ids []string, paced time.Time) (botgw.Snapshot, bool, error) {
	if err := s.fail(); err != nil {
		return botgw.Snapshot{}, false, err
	}
	return s.Store.FinishNext(ctx, k, lease, ids, paced)
}

func (s *awayStore) Delivered(ctx context.Context, k botgw.ChatKey, lease string, ids ...string) error {
	if err := s.fail(); err != nil {
		return err
	}
	return s.Store.Delivered(ctx, k, lease, ids...)
}

func (s *awayStore) Renew(ctx context.Context, k botgw.ChatKey, lease string) error {
	if err := s.fail(); err != nil {
		return err
	}
	return s.Store.Renew(ctx, k, lease)
}

func (s *awayStore) RenewLeases(ctx context.Context, chats []botgw.ChatKey, leases []string) []error {
	errs := make([]error, len(chats))
	for i := range errs {
		errs[i] = s.fail()
	}
	if s.fail() != nil {
		return errs
	}
	return s.Store.RenewLeases(ctx, chats, leases)
}

func (s *awayStore) Due(ctx context.Context, n int) ([]botgw.ChatKey, error) {
	if err := s.fail(); err != nil {
		return nil, err
	}
	return s.Store.Due(ctx, n)
}

// takeoverStore tells when its replica took a chat that has a reply
// waiting, and when it finished a turn.
type takeoverStore struct {
	botgw.Store
	tookOver, finished chan struct{}
}

func (s *takeoverStore) FinishNext(ctx context.Context, k botgw.ChatKey, lease string, ids []string, paced time.Time) (botgw.Snapshot, bool, error) {
	next, more, err := s.Store.FinishNext(ctx, k, lease, ids, paced)
	select {
	case s.finished <- struct{}{}:
	default:
	}
	return next, more, err
}

func (s *takeoverStore) Begin(ctx context.Context, k botgw.ChatKey, lease string) (botgw.Snapshot, error) {
	snap, err := s.Store.Begin(ctx, k, lease)
	if err == nil && lease == "" && len(snap.Outbox) > 0 {
		select {
		case s.tookOver <- struct{}{}:
		default:
		}
	}
	return snap, err
}

// outageAfterSend is a channel after whose first send Redis goes away for
// its replica: the reply reached the platform, recording it fails.
type outageAfterSend struct {
	botgw.Channel
	store *awayStore
}

func (c outageAfterSend) Send(ctx context.Context, m botgw.Outbound) error {
	err := c.Channel.Send(ctx, m)
	c.store.away.Store(true)
	return err
}

// A reply is sent, then Redis goes away before its removal from the
// outbox; the lease expires meanwhile and another replica takes the chat
// as soon as Redis is back. The reply reaches the player once: the first
// replica records it when Redis returns, and the second waits for that.
func TestDeliveredReplyIsRecordedAfterARedisOutage(t *testing.T) {
	stores := openShared(t, 2, fastStore) // lease 1s
	flaky := &awayStore{Store: stores[0]}
	a := newRig(t, flaky, fake.New(), Config{TakeoverGrace: time.Second}, sendThrough(func(ch botgw.Channel) botgw.Channel {
		return outageAfterSend{Channel: ch, store: flaky}
	}))

	a.say(t, testChat, "1", "hello")
	a.ch.Wait(t, 1, 5*time.Second)

	other := &takeoverStore{Store: stores[1], tookOver: make(chan struct{}, 1), finished: make(chan struct{}, 1)}
	b := newRig(t, other, fake.New(), Config{TakeoverGrace: time.Second})
	select {
	case <-other.tookOver: // a's lease expired; b holds the chat, the reply still waiting
	case <-time.After(10 * time.Second):
		t.Fatal("the other replica did not take the chat over")
	}
	flaky.away.Store(false) // Redis is back for a
	select {
	case <-other.finished: // b is done with the chat
	case <-time.After(10 * time.Second):
		t.Fatal("the other replica did not finish the chat")
	}
	if info, err := stores[1].Info(context.Background(), testChat); err != nil || info.Outbox != 0 {
		t.Errorf("after both replicas are done: %+v, %v; want an empty outbox", info, err)
	}
	if n := len(a.ch.Sent()) + len(b.ch.Sent()); n != 1 {
		t.Errorf("the reply was sent %d times, want once", n)
	}
}

// partFails is a platform that takes the first part of every reply and
// then fails.
type partFails struct{ botgw.Channel }

func (partFails) Send(context.Context, botgw.Outbound) error {
	return &botgw.PlatformError{Channel: "test", Status: 502, Sent: 1, Err: errors.New("bad gateway after part 1")}
}

// The parts of a split reply the platform took are recorded in the outbox,
// so the replica that retries the reply resumes after them.
func TestSplitReplyProgressSurvivesTheReplica(t *testing.T) {
	stores := openShared(t, 2, fastStore)
	a := newRig(t, stores[0], fake.New(), Config{TakeoverGrace: 100 * time.Millisecond}, sendThrough(func(ch botgw.Channel) botgw.Channel {
		return partFails{ch}
	}))
	a.say(t, testChat, "1", "hello")
	// Four attempts with backoff (0.5–0.75 s, 1–1.5 s, 2–3 s) take up to
	// 5.25 s before the reply is kept.
	wait.Eventually(t, "the reply to be kept in the outbox", func() bool { return strings.Contains(a.logs.String(), "kept in the outbox") })
	a.stop()

	b := newRig(t, stores[1], fake.New(), Config{TakeoverGrace: 100 * time.Millisecond})
	sent := b.ch.Wait(t, 1, 10*time.Second)
	if sent[0].ID != "re-1" || sent[0].Sent != 1 {
		t.Errorf("the other replica sent %+v, want re-1 resuming after the 1 part taken", sent[0])
	}
}

// While Redis cannot be reached, a delivery record is retried within
// unreachableRetry, not after the whole backoff: go-redis fails such an
// attempt at once (after as many failed dials as its pool has connections,
// until a probe dial succeeds), and the record has to land well inside the
// takeover grace once Redis is back. Other failures back off as before.
func TestRecordRetriesSoonWhileRedisIsUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	rc := redis.NewClient(&redis.Options{Addr: addr, PoolSize: 1, DialerRetries: 1, MaxRetries: -1})
	defer rc.Close()
	ctx := context.Background()
	refused := rc.Ping(ctx).Err()    // a dial that failed
	failedFast := rc.Ping(ctx).Err() // the pool refusing to dial until its probe succeeds
	if refused == nil || failedFast == nil {
		t.Fatalf("Redis at a closed port answered: %v, %v", refused, failedFast)
	}
	const ceiling = 500 * time.Millisecond
	for _, err := range []error{refused, failedFast} {
		var d time.Duration
		for range 10 {
			d = retryDelay(d, ceiling, fmt.Errorf("delivered: %w", err))
		}
		if d > unreachableRetry {
			t.Errorf("after %q the record waits %s, want at most %s", err, d, unreachableRetry)
		}
	}
	var d time.Duration
	for range 10 {
		d = retryDelay(d, ceiling, errors.New("OOM command not allowed when used memory > 'maxmemory'"))
	}
	if d != ceiling {
		t.Errorf("a Redis that answers with an error: the record waits %s after ten attempts, want the ceiling %s", d, ceiling)
	}
}
