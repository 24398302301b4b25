package kafka_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/channels/stream"
	"github.com/botgw/botgw/channels/stream/kafka"
	"github.com/botgw/botgw/state"
)

func newStore(t *testing.T, sinks ...string) *state.Store {
	m := miniredis.RunT(t)
	s := state.New(redis.NewClient(&redis.Options{Addr: m.Addr()}), "", state.Options{Stream: state.StreamOptions{Sinks: sinks}})
	t.Cleanup(func() { s.Close() })
	return s
}

// commit runs one turn on chat k that commits one message record.
func commit(t *testing.T, s *state.Store, k botgw.ChatKey, text string) {
	t.Helper()
	ctx := context.Background()
	snap, err := s.Begin(ctx, k, "")
	if err != nil {
		t.Fatal(err)
	}
	rec := botgw.StreamRecord{Version: botgw.StreamVersion, ConversationID: k.String(), AgentID: "user:1",
		Action: botgw.ActionMessage, Timestamp: botgw.Millis(time.Now()), Text: text}
	if err := s.Commit(ctx, k, botgw.Commit{Lease: snap.Lease, Version: snap.Version, Blob: []byte(text), TTL: time.Hour, Records: []botgw.StreamRecord{rec}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Release(ctx, k, snap.Lease); err != nil {
		t.Fatal(err)
	}
}

// TestSinkKeyedInOrderAcrossLeaderChange relays 5 chats × 40 records to a
// three-broker cluster whose partition leaders move and which refuses some
// produce requests midway: every chat's records arrive on one partition,
// keyed by the chat, seq 1..40 in order.
func TestSinkKeyedInOrderAcrossLeaderChange(t *testing.T) {
	const chats, per = 5, 40
	c := kfake.MustCluster(kfake.NumBrokers(3), kfake.SeedTopics(4, "conv"))
	defer c.Close()
	store := newStore(t, "kafka")
	sink, err := kafka.NewSink(kafka.SinkConfig{Brokers: c.ListenAddrs(), Topic: "conv"})
	if err != nil {
		t.Fatal(err)
	}
	defer sink.Close()
	relay := stream.New(sink, store, stream.Config{Content: true, Poll: 5 * time.Millisecond, MinBackoff: 10 * time.Millisecond}, slog.New(slog.DiscardHandler))
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { relay.Run(ctx) })
	defer func() { cancel(); wg.Wait() }()

	for i := range per {
		if i == per/2 {
			c.ShufflePartitionLeaders()
			c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.Produce}, Err: kerr.NotLeaderForPartition, Count: 3})
		}
		for ch := range chats {
			commit(t, store, botgw.ChatKey{Channel: "test", ID: fmt.Sprint(ch)}, fmt.Sprintf("m%d", i+1))
		}
	}
	got := consume(t, c.ListenAddrs(), "conv", chats*per)
	for ch := range chats {
		k := fmt.Sprintf("test:%d", ch)
		recs := got[k]
		if len(recs) != per {
			t.Fatalf("chat %s: %d distinct records, want %d", k, len(recs), per)
		}
		for i, r := range recs {
			if r.seq != int64(i+1) || r.partition != recs[0].partition || r.text != fmt.Sprintf("m%d", i+1) {
				t.Fatalf("chat %s record %d = %+v; want seq %d on partition %d", k, i, r, i+1, recs[0].partition)
			}
		}
	}
}

type seen struct {
	seq       int64
	partition int32
	text      string
}

// consume reads the topic from the start until it holds want distinct
// records, and returns each chat's first sightings in topic order.
func consume(t *testing.T, brokers []string, topic string, want int) map[string][]seen {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	out, ids := map[string][]seen{}, map[string]bool{}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for len(ids) < want {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("only %d of %d records arrived", len(ids), want)
		}
		fs.EachRecord(func(r *kgo.Record) {
			var rec botgw.StreamRecord
			if err := json.Unmarshal(r.Value, &rec); err != nil {
				t.Errorf("record value: %v", err)
				return
			}
			if string(r.Key) != rec.ConversationID || rec.ID != botgw.StreamID(rec.ConversationID, rec.Seq) {
				t.Errorf("key %q, id %q for %s #%d", r.Key, rec.ID, rec.ConversationID, rec.Seq)
			}
			if !ids[rec.ID] {
				ids[rec.ID] = true
				out[rec.ConversationID] = append(out[rec.ConversationID], seen{rec.Seq, r.Partition, rec.Text})
			}
		})
	}
	return out
}
