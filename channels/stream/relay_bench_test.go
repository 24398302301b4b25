package stream_test

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/channels/stream"
	"github.com/botgw/botgw/state"
	"github.com/botgw/botgw/state/redistest"
)

// BenchmarkStreamCost runs turns the way the engine commits them (a
// message and a reply record, the reply in the outbox, the chat list's
// activity), msgs turns a chat, on real Redis (BOTGW_TEST_REDIS_URL),
// without a sink and with a webhook sink whose relay runs beside them,
// and reports the Redis commands a turn costs (INFO commandstats, commands
// inside scripts counted; the relay's included, until the sink took every
// record). At rate 0 the turns go as fast as they can; at 200 they are
// paced to 200 turns/s, where the relay's reads serve fewer turns each.
// Run it with -benchtime=2000x on a Redis nothing else uses.
func BenchmarkStreamCost(b *testing.B) {
	url := redistest.URL(b)
	for _, rate := range []int{0, 200} {
		for _, msgs := range []int{5, 10} {
			for _, sink := range []bool{false, true} {
				name := fmt.Sprintf("rate=%d/msgs=%d/sink=%v", rate, msgs, sink)
				b.Run(name, func(b *testing.B) { benchStreamCost(b, url, rate, msgs, sink) })
			}
		}
	}
}

type nullSink struct{ n atomic.Int64 }

func (s *nullSink) Name() string { return "webhook" }

func (s *nullSink) Deliver(_ context.Context, recs []botgw.StreamRecord) error {
	s.n.Add(int64(len(recs)))
	return nil
}

func benchStreamCost(b *testing.B, url string, rate, msgs int, withSink bool) {
	opts, err := redis.ParseURL(url)
	if err != nil {
		b.Fatal(err)
	}
	var so state.Options
	if withSink {
		so.Stream = state.StreamOptions{Sinks: []string{"webhook"}}
	}
	st := state.New(redis.NewClient(opts), redistest.Prefix(b, url), so)
	defer st.Close()
	ctx, cancel := context.WithCancel(b.Context())
	defer cancel()
	sink := &nullSink{}
	if withSink {
		go stream.New(sink, st, stream.Config{Content: true}, slog.New(slog.DiscardHandler)).Run(ctx)
	}
	before := redistest.CommandCount(b, st.Client())
	var pace <-chan time.Time
	if rate > 0 {
		t := time.NewTicker(time.Second / time.Duration(rate))
		defer t.Stop()
		pace = t.C
	}
	turns := 0
	for b.Loop() {
		if pace != nil {
			<-pace
		}
		benchTurn(b, st, botgw.ChatKey{Channel: "bench", ID: strconv.Itoa(turns / msgs)}, turns)
		turns++
	}
	for withSink && sink.n.Load() < int64(2*turns) {
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	if after := redistest.CommandCount(b, st.Client()); before >= 0 && after >= 0 {
		b.ReportMetric(float64(after-before)/float64(turns), "redis-cmds/turn")
	}
}

// benchTurn is one turn of chat k: begin, commit, release.
func benchTurn(b *testing.B, st *state.Store, k botgw.ChatKey, i int) {
	ctx := b.Context()
	snap, err := st.Begin(ctx, k, "")
	if err != nil {
		b.Fatal(err)
	}
	now := time.Now()
	rec := func(action, text string) botgw.StreamRecord {
		return botgw.StreamRecord{Version: botgw.StreamVersion, ConversationID: k.String(), AgentID: "user:1",
			Action: action, Timestamp: botgw.Millis(now), Text: text}
	}
	id := "r" + strconv.Itoa(i)
	c := botgw.Commit{Lease: snap.Lease, Version: snap.Version, Blob: make([]byte, 2<<10), TTL: time.Hour,
		Outbox:   []botgw.Outbound{{Chat: k, ID: id, Text: "head north"}},
		Activity: &botgw.ChatActivity{At: now, Preview: "where now?"},
		Records:  []botgw.StreamRecord{rec(botgw.ActionMessage, "where now?"), rec(botgw.ActionReply, "head north")}}
	if err := st.Commit(ctx, k, c); err != nil {
		b.Fatal(err)
	}
	if err := st.Delivered(ctx, k, snap.Lease, id); err != nil {
		b.Fatal(err)
	}
	if err := st.Release(ctx, k, snap.Lease); err != nil {
		b.Fatal(err)
	}
}
