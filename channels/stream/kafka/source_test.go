package kafka_test

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/channels/stream/kafka"
	"github.com/botgw/botgw/internal/wait"
	"github.com/botgw/botgw/state"
	"github.com/botgw/botgw/webhooks"
)

// source runs an app-event source into store until the returned stop is
// called; calls counts the events it handed to the store.
func source(t *testing.T, c *kfake.Cluster, store *state.Store, calls *atomic.Int64) (stop func()) {
	t.Helper()
	parse := webhooks.NewEvents("s", nil, nil, []string{"web"}, slog.New(slog.DiscardHandler)).ParseEvent
	deliver := func(ctx context.Context, in botgw.Inbound) error {
		calls.Add(1)
		return store.Append(ctx, in)
	}
	src, err := kafka.NewSource(kafka.SourceConfig{Brokers: c.ListenAddrs(), Topic: "events", Group: "botgw"},
		parse, deliver, store, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { src.Run(ctx) })
	return func() { cancel(); wg.Wait() }
}

func produce(t *testing.T, c *kfake.Cluster, values ...string) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.DefaultProduceTopic("events"))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	for _, v := range values {
		if err := cl.ProduceSync(context.Background(), &kgo.Record{Key: []byte("k"), Value: []byte(v)}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
}

func pendingOf(t *testing.T, s *state.Store, chat string) int {
	k, _ := botgw.ParseChatKey(chat)
	info, err := s.Info(context.Background(), k)
	if errors.Is(err, botgw.ErrNotFound) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return info.Pending
}

func deadCount(t *testing.T, s *state.Store) int {
	d, _, err := s.ListDeadLetters(context.Background(), "", 100)
	if err != nil {
		t.Fatal(err)
	}
	return len(d)
}

// TestSourceOnceEachResumesDeadLetters feeds app events through a consumer
// group: each event is stored once (a repeated id too), a poison message
// becomes a dead letter without stopping consumption, and a restarted
// source resumes after the committed offset.
func TestSourceOnceEachResumesDeadLetters(t *testing.T) {
	c := kfake.MustCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "events"))
	defer c.Close()
	store := newStore(t)
	produce(t, c,
		`{"chat":"web:a","text":"visited the theatre","id":"e1"}`,
		`not json at all`,
		`{"chat":"web:a","text":"visited the theatre","id":"e1"}`,
		`{"chat":"web:a","text":"earned 50 points","id":"e2"}`,
		`{"chat":"nochannel:a","text":"x","id":"e3"}`,
		`{"chat":"web:a","text":"no id given"}`,
	)
	var calls atomic.Int64
	stop := source(t, c, store, &calls)
	wait.Eventually(t, "the first events stored", func() bool { return pendingOf(t, store, "web:a") == 3 && deadCount(t, store) == 2 })
	stop()
	if n := calls.Load(); n != 4 {
		t.Fatalf("events handed to the store = %d, want 4 (poison messages are not)", n)
	}

	produce(t, c, `{"chat":"web:a","text":"reached the bridge","id":"e4"}`)
	calls.Store(0)
	stop = source(t, c, store, &calls)
	defer stop()
	wait.Eventually(t, "the event after the restart", func() bool { return pendingOf(t, store, "web:a") == 4 })
	stop()
	if n := calls.Load(); n != 1 {
		t.Fatalf("after the restart the source handed %d events to the store, want 1: it resumes at the committed offset", n)
	}
	if n := deadCount(t, store); n != 2 {
		t.Fatalf("dead letters = %d, want 2", n)
	}
}
