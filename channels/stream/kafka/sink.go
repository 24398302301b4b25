// Package kafka connects the gateway to Kafka with franz-go: the
// conversation stream's sink (one record's JSON per message, keyed by
// conversation_id so a chat stays on one partition, in order) and the
// app-event source (a consumer group feeding POST /v1/events' path).
package kafka

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/botgw/botgw"
)

// SinkConfig is stream.kafka.
type SinkConfig struct {
	Brokers []string `yaml:"brokers"`
	Topic   string   `yaml:"topic"`
	Content *bool    `yaml:"content"` // default true
}

// Sink produces records to one topic.
type Sink struct {
	cl *kgo.Client
}

// NewSink builds an idempotent producer (acks=all, franz-go's default) whose
// records time out after 30 s, so a broker that stays down fails the batch
// and the relay retries it with backoff. It does no I/O. extra options go
// last (tests).
func NewSink(cfg SinkConfig, extra ...kgo.Opt) (*Sink, error) {
	opts := append([]kgo.Opt{
		kgo.SeedBrokers(cfg.Brokers...),
		kgo.DefaultProduceTopic(cfg.Topic),
		kgo.RequiredAcks(kgo.AllISRAcks()),
		kgo.RecordDeliveryTimeout(30 * time.Second),
		kgo.ProducerLinger(time.Millisecond),
	}, extra...)
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, fmt.Errorf("kafka sink: %w", err)
	}
	return &Sink{cl: cl}, nil
}

// Name is "kafka".
func (s *Sink) Name() string { return "kafka" }

// Deliver produces recs and returns once every one is acknowledged by all
// in-sync replicas.
func (s *Sink) Deliver(ctx context.Context, recs []botgw.StreamRecord) error {
	out := make([]*kgo.Record, 0, len(recs))
	for _, r := range recs {
		v, err := json.Marshal(r)
		if err != nil {
			return fmt.Errorf("encode stream record %s: %w", r.ID, err)
		}
		out = append(out, &kgo.Record{Key: []byte(r.ConversationID), Value: v})
	}
	if err := s.cl.ProduceSync(ctx, out...).FirstErr(); err != nil {
		return fmt.Errorf("produce %d stream records: %w", len(out), err)
	}
	return nil
}

// Close flushes nothing further and closes the client.
func (s *Sink) Close() { s.cl.Close() }
