package whatsapp

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	waBinary "go.mau.fi/whatsmeow/binary"
	"go.mau.fi/whatsmeow/proto/waE2E"
	"go.mau.fi/whatsmeow/types"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/internal/fakeclock"
	"github.com/botgw/botgw/internal/wait"
)

// sentLog records what the real client was asked to send (the socket is
// the test's, as realClient's connect is).
type sentLog struct {
	mu   sync.Mutex
	msgs []sentMessage
}

func (l *sentLog) add(to types.JID, m *waE2E.Message) {
	l.mu.Lock()
	l.msgs = append(l.msgs, sentMessage{to: to, text: m.GetConversation()})
	l.mu.Unlock()
}

func (l *sentLog) all() []sentMessage {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]sentMessage(nil), l.msgs...)
}

// clockWait is the adapter's wait on a fake clock.
func clockWait(c *fakeclock.Clock) func(ctx context.Context, d time.Duration) bool {
	return func(ctx context.Context, d time.Duration) bool {
		if d <= 0 {
			return ctx.Err() == nil
		}
		due := make(chan struct{})
		stop := c.AfterFunc(d, func() { close(due) })
		select {
		case <-due:
			return true
		case <-ctx.Done():
			stop()
			return false
		}
	}
}

// A ban arrives in the middle of a broadcast (whatsmeow's own handling of
// a 402 connect failure) and ends an hour later on the fake clock: every
// reply waiting meanwhile is sent once, in order per chat, and none of
// the sends failed (so the engine dead-letters nothing).
func TestRealClientBanDuringBroadcastWaitsThenSendsInOrder(t *testing.T) {
	a, rc, logs := realConnected(t)
	fc := fakeclock.New(time.Now())
	a.clock, a.wait = fc.Now, clockWait(fc)
	const chats, perChat = 12, 3
	var wg sync.WaitGroup
	errs := make(chan error, chats*perChat)
	send := func(round int) {
		for c := range chats {
			wg.Go(func() {
				k := botgw.ChatKey{Channel: Name, ID: fmt.Sprintf("4477009%05d@s.whatsapp.net", c)}
				errs <- a.Send(context.Background(), botgw.Outbound{Chat: k, ID: fmt.Sprintf("b-%d-%d", c, round), Text: fmt.Sprintf("item %d", round)})
			})
		}
	}
	send(0)
	wg.Wait()
	failure := waBinary.Node{Tag: "failure", Attrs: waBinary.Attrs{"reason": "402", "code": "101", "expire": "3600"}}
	rc.internals().HandleConnectFailure(context.Background(), &failure)
	waitState(t, a, StateBanned)
	var rest sync.WaitGroup
	rest.Go(func() {
		for round := 1; round < perChat; round++ { // each chat's worker sends its replies one after another
			send(round)
			wg.Wait()
		}
	})
	wait.Eventually(t, "replies waiting for the ban's end", func() bool { return a.Waiting()[waitOffline] == chats })
	if n := len(rc.sent.all()); n != chats {
		t.Fatalf("%d sent during the ban, want only the %d before it", n, chats)
	}
	if s := a.Status().(State); s.Waiting[waitOffline] != chats || s.Hold == nil || s.Hold.Code != 101 {
		t.Fatalf("status %+v, want %d waiting behind ban 101", s, chats)
	}
	fc.Advance(time.Hour)
	rc.waitCall(t, "connect")
	rc.internals().HandleConnectSuccess(context.Background(), &waBinary.Node{Tag: "success"})
	rest.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("a send failed: %v\n%s", err, logs)
		}
	}
	perChatSent := map[types.JID][]string{}
	for _, m := range rc.sent.all() {
		perChatSent[m.to] = append(perChatSent[m.to], m.text)
	}
	for to, texts := range perChatSent {
		if fmt.Sprint(texts) != "[item 0 item 1 item 2]" {
			t.Errorf("%s got %q, want each item once, in order", to, texts)
		}
	}
	if len(perChatSent) != chats || a.Waiting() != nil {
		t.Errorf("%d chats sent to, %v still waiting", len(perChatSent), a.Waiting())
	}
}
