package gateway

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/channels/stream"
	"github.com/botgw/botgw/channels/stream/kafka"
	"github.com/botgw/botgw/channels/stream/webhook"
	"github.com/botgw/botgw/state"
	"github.com/botgw/botgw/webhooks"
)

// StreamConfig is the conversation stream (CONTRACT.md, "Conversation
// stream"): a sink is on when its section is present.
type StreamConfig struct {
	Webhook *webhook.Config   `yaml:"webhook"`
	Kafka   *kafka.SinkConfig `yaml:"kafka"`
	// SeqTTL is how long a chat's record counter outlives its last record.
	SeqTTL time.Duration `yaml:"seq_ttl"`
	// MaxPending is the number of records waiting for one sink at which new
	// records of that sink stop being kept (counted in
	// botgw_stream_dropped_total, not numbered). 0: no bound.
	MaxPending int64 `yaml:"max_pending"`
}

// Defaults of the stream section.
const (
	defaultSeqTTL     = 720 * time.Hour
	defaultMaxPending = 1_000_000
)

// sinks names the configured sinks.
func (c StreamConfig) sinks() []string {
	var out []string
	if c.Webhook != nil {
		out = append(out, "webhook")
	}
	if c.Kafka != nil {
		out = append(out, "kafka")
	}
	return out
}

func (c StreamConfig) validate() []error {
	var errs []error
	bad := func(key, format string, args ...any) {
		errs = append(errs, fmt.Errorf("stream.%s: %s", key, fmt.Sprintf(format, args...)))
	}
	if w := c.Webhook; w != nil {
		if u, err := url.Parse(w.URL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			bad("webhook.url", "want an absolute http(s) URL, got %q", w.URL)
		}
		if len(w.Secret) < 16 {
			bad("webhook.secret", "at least 16 characters (the key the receiver checks signatures with)")
		}
	}
	if k := c.Kafka; k != nil {
		errs = append(errs, validateKafka("stream.kafka", k.Brokers, k.Topic)...)
	}
	if c.SeqTTL < 0 {
		bad("seq_ttl", "must not be negative (0: 720h)")
	}
	if c.MaxPending < 0 {
		bad("max_pending", "must not be negative (0: no bound)")
	}
	return errs
}

func validateKafka(key string, brokers []string, topic string) []error {
	var errs []error
	if len(brokers) == 0 {
		errs = append(errs, fmt.Errorf("%s.brokers: at least one host:port", key))
	}
	for i, b := range brokers {
		if !strings.Contains(b, ":") {
			errs = append(errs, fmt.Errorf("%s.brokers[%d]: want host:port, got %q", key, i, b))
		}
	}
	if topic == "" {
		errs = append(errs, fmt.Errorf("%s.topic: required", key))
	}
	return errs
}

func validateEventsKafka(k *kafka.SourceConfig) []error {
	if k == nil {
		return nil
	}
	errs := validateKafka("events.kafka", k.Brokers, k.Topic)
	if k.Group == "" {
		errs = append(errs, errors.New("events.kafka.group: required (the consumer group, like botgw)"))
	}
	return errs
}

// streamParts are the stream's relays and the Kafka event source.
type streamParts struct {
	relays  []*stream.Relay
	source  *kafka.Source
	kafka   *kafka.Sink    // its client is closed once the relays ended
	running sync.WaitGroup // the relays and the source
}

// buildStream builds a relay per configured sink and the Kafka event
// source, which checks events as POST /v1/events does (events) and hands
// them to deliver.
func buildStream(cfg Config, st *state.Store, events *webhooks.Events, deliver botgw.Deliver, log *slog.Logger) (*streamParts, error) {
	p := &streamParts{}
	maxPending := cfg.Stream.MaxPending
	if maxPending == 0 {
		maxPending = defaultMaxPending
	}
	if w := cfg.Stream.Webhook; w != nil {
		sink := webhook.New(*w, nil)
		p.relays = append(p.relays, stream.New(sink, st, stream.Config{Content: on(w.Content), MaxPending: maxPending}, log))
	}
	if k := cfg.Stream.Kafka; k != nil {
		sink, err := kafka.NewSink(*k)
		if err != nil {
			return nil, err
		}
		p.kafka = sink
		p.relays = append(p.relays, stream.New(sink, st, stream.Config{Content: on(k.Content), MaxPending: maxPending}, log))
	}
	if k := cfg.Events.Kafka; k != nil {
		src, err := kafka.NewSource(*k, events.ParseEvent, deliver, st, log)
		if err != nil {
			return nil, err
		}
		p.source = src
	}
	return p, nil
}

func on(b *bool) bool { return b == nil || *b }

// run runs the relays and the source until ctx ends.
func (p *streamParts) run(ctx context.Context, st *state.Store, seqTTL time.Duration, log *slog.Logger) {
	if seqTTL == 0 {
		seqTTL = defaultSeqTTL
	}
	for _, r := range p.relays {
		p.running.Go(func() { r.Run(ctx) })
	}
	if len(p.relays) > 0 {
		go pruneSeqs(ctx, st, seqTTL, log)
	}
	if p.source != nil {
		p.running.Go(func() { p.source.Run(ctx) })
	}
}

// stop waits for the relays (which give their leases back) and the source
// to end, after run's ctx ended, then closes the sinks' clients.
func (p *streamParts) stop() {
	p.running.Wait()
	if p.kafka != nil {
		p.kafka.Close()
	}
}

// pruneSeqs forgets, hourly, the record counters of chats whose last
// record is older than seqTTL.
func pruneSeqs(ctx context.Context, st *state.Store, seqTTL time.Duration, log *slog.Logger) {
	t := time.NewTicker(time.Hour)
	defer t.Stop()
	for {
		if n, err := st.StreamPruneSeqs(ctx, time.Now().Add(-seqTTL)); err != nil && ctx.Err() == nil {
			log.Warn("prune stream counters", "err", err)
		} else if n > 0 {
			log.Info("stream counters past stream.seq_ttl forgotten", "chats", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// status is GET /v1/admin/stream.
func (p *streamParts) status(ctx context.Context) (any, error) {
	sinks := []stream.Status{}
	for _, r := range p.relays {
		s, err := r.Status(ctx)
		if err != nil {
			return nil, err
		}
		sinks = append(sinks, s)
	}
	return map[string]any{"sinks": sinks}, nil
}

// collectors are the relays' metrics.
func (p *streamParts) collectors() []prometheus.Collector {
	var out []prometheus.Collector
	for _, r := range p.relays {
		out = append(out, r.Collectors()...)
	}
	return out
}
