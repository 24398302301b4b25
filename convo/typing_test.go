package convo

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/channels/channeltest"
	"github.com/botgw/botgw/providers/fake"
)

// typingRecorder is a recording channel that also shows typing, noting
// when each indicator started and stopped.
type typingRecorder struct {
	*channeltest.Recorder
	mu      sync.Mutex
	started []time.Time
	stopped []time.Time
}

func (r *typingRecorder) StartTyping(_ context.Context, _ botgw.Inbound) func() {
	r.mu.Lock()
	r.started = append(r.started, time.Now())
	r.mu.Unlock()
	return func() {
		r.mu.Lock()
		r.stopped = append(r.stopped, time.Now())
		r.mu.Unlock()
	}
}

func (r *typingRecorder) counts() (started, stopped int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.started), len(r.stopped)
}

func TestTypingShowsOnlyWhileASlowAnswerIsBeingWritten(t *testing.T) {
	prov := fake.New()
	ch := &typingRecorder{Recorder: channeltest.NewRecorder("test")}
	eng, err := New(Config{PollInterval: 100 * time.Millisecond, LeaseRenew: 200 * time.Millisecond},
		Deps{Store: openStore(t, false, fastStore), Provider: prov, Channels: map[string]botgw.Channel{"test": ch}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go eng.Run(ctx)
	defer eng.Close(context.Background())
	say := func(id string) {
		in := botgw.Inbound{Chat: testChat, Kind: botgw.KindText, ID: id, UserID: "u1", Text: "where next?"}
		if err := eng.Handle(context.Background(), in); err != nil {
			t.Fatalf("handle %s: %v", id, err)
		}
	}

	say("fast")
	ch.Wait(t, 1, 5*time.Second)
	if started, _ := ch.counts(); started != 0 {
		t.Errorf("an instant answer showed the typing indicator %d times, want none", started)
	}

	prov.SetDelay(typingDelay + 700*time.Millisecond)
	say("slow")
	sent := ch.Wait(t, 2, 5*time.Second)
	started, stopped := ch.counts()
	if started != 1 || stopped != 1 {
		t.Fatalf("a slow answer started typing %d times and stopped it %d times, want 1 and 1", started, stopped)
	}
	if sent[1].Text == "" {
		t.Error("the slow answer was empty")
	}
}
