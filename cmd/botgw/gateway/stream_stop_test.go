package gateway

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/channels/stream/kafka"
	"github.com/botgw/botgw/state"
)

// TestStreamStopClosesTheKafkaSink runs the stream's parts with a Kafka
// sink and stops them as the gateway does at shutdown: once the relay
// ended, the sink's client is closed (it produces nothing more).
func TestStreamStopClosesTheKafkaSink(t *testing.T) {
	c := kfake.MustCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "conv"))
	defer c.Close()
	m := miniredis.RunT(t)
	st := state.New(redis.NewClient(&redis.Options{Addr: m.Addr()}), "", state.Options{Stream: state.StreamOptions{Sinks: []string{"kafka"}}})
	defer st.Close()
	cfg := DefaultConfig()
	cfg.Stream.Kafka = &kafka.SinkConfig{Brokers: c.ListenAddrs(), Topic: "conv"}
	log := slog.New(slog.DiscardHandler)
	p, err := buildStream(cfg, st, nil, nil, log)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	p.run(ctx, st, 0, log)
	cancel()
	p.stop()
	dctx, stop := context.WithTimeout(t.Context(), 20*time.Second)
	defer stop()
	err = p.kafka.Deliver(dctx, []botgw.StreamRecord{{ConversationID: "telegram:1", Seq: 1}})
	if !errors.Is(err, kgo.ErrClientClosed) {
		t.Fatalf("Deliver after stop = %v, want %v: the sink's client is still open", err, kgo.ErrClientClosed)
	}
}
