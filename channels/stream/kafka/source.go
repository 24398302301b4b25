package kafka

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/botgw/botgw"
)

// SourceConfig is events.kafka.
type SourceConfig struct {
	Brokers []string `yaml:"brokers"`
	Topic   string   `yaml:"topic"`
	Group   string   `yaml:"group"`
}

// Parse turns one message's value into the event's pending input, or an
// error naming the bad field; fallbackID is the id of an event without one.
type Parse func(value []byte, fallbackID string) (botgw.Inbound, error)

// DeadLetters keeps what can never be stored.
type DeadLetters interface {
	AddDeadLetter(ctx context.Context, d botgw.DeadLetter) (string, error)
}

// Source consumes app events from a topic into chats, at least once: a
// message's offset is committed only after the event is stored (or, if it
// can never be, kept as a dead letter); the event's id makes a second
// delivery a no-op.
type Source struct {
	cl      *kgo.Client
	topic   string
	parse   Parse
	deliver botgw.Deliver
	dead    DeadLetters
	log     *slog.Logger
}

// NewSource joins cfg.Group on cfg.Topic; a new group starts at the
// earliest offset. It does no I/O until Run.
func NewSource(cfg SourceConfig, parse Parse, deliver botgw.Deliver, dead DeadLetters, log *slog.Logger, extra ...kgo.Opt) (*Source, error) {
	opts := append([]kgo.Opt{
		kgo.SeedBrokers(cfg.Brokers...),
		kgo.ConsumeTopics(cfg.Topic),
		kgo.ConsumerGroup(cfg.Group),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.DisableAutoCommit(),
		kgo.BlockRebalanceOnPoll(),
	}, extra...)
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, fmt.Errorf("kafka event source: %w", err)
	}
	return &Source{cl: cl, topic: cfg.Topic, parse: parse, deliver: deliver, dead: dead, log: log.With("source", "kafka")}, nil
}

// Run consumes until ctx ends, then leaves the group and closes the client.
func (s *Source) Run(ctx context.Context) error {
	defer func() {
		s.cl.AllowRebalance() // leaving the group waits for it (BlockRebalanceOnPoll)
		s.cl.Close()
	}()
	for {
		fs := s.cl.PollRecords(ctx, 500)
		if ctx.Err() != nil {
			return nil
		}
		fs.EachError(func(topic string, p int32, err error) {
			s.log.Warn("fetch app events", "topic", topic, "partition", p, "err", err)
		})
		recs := fs.Records()
		for i, r := range recs {
			if err := s.handle(ctx, r); err != nil { // ctx ended
				s.commit(ctx, recs[:i])
				return nil
			}
		}
		s.commit(ctx, recs)
		s.cl.AllowRebalance()
	}
}

// commit commits the offsets of records already stored, even while the
// source stops; the rest are consumed again by whoever comes next.
func (s *Source) commit(ctx context.Context, recs []*kgo.Record) {
	if len(recs) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := s.cl.CommitRecords(ctx, recs...); err != nil {
		s.log.Warn("commit app-event offsets; the events may be read again (their ids keep them once)", "err", err)
	}
}

// handle stores one message, retrying with backoff while the store fails;
// a message that can never be stored becomes a dead letter. It returns an
// error only when ctx ended first.
func (s *Source) handle(ctx context.Context, r *kgo.Record) error {
	fallback := fmt.Sprintf("kafka-%s-%d-%d", r.Topic, r.Partition, r.Offset)
	in, err := s.parse(r.Value, fallback)
	if err != nil {
		return s.retry(ctx, func() error { return s.poison(ctx, r, err) })
	}
	return s.retry(ctx, func() error {
		err := s.deliver(ctx, in)
		switch {
		case errors.Is(err, botgw.ErrDuplicate):
			return nil // stored before: the id keeps it once
		case errors.Is(err, botgw.ErrInvalidInput):
			return s.poison(ctx, r, err)
		}
		return err
	})
}

// poison keeps a message that can never be stored as a dead letter.
func (s *Source) poison(ctx context.Context, r *kgo.Record, cause error) error {
	var probe struct {
		Chat string `json:"chat"`
	}
	_ = json.Unmarshal(r.Value, &probe)
	text := string(r.Value)
	if len(text) > 2000 {
		text = text[:2000]
	}
	_, err := s.dead.AddDeadLetter(ctx, botgw.DeadLetter{Chat: probe.Chat, Kind: botgw.DeadInput,
		Reason: fmt.Sprintf("kafka %s/%d@%d: %v", r.Topic, r.Partition, r.Offset, cause), Attempts: 1, Text: text})
	if err == nil {
		s.log.Warn("app event can never be stored; kept as a dead letter", "partition", r.Partition, "offset", r.Offset, "err", cause)
	}
	return err
}

// retry runs fn until it succeeds or ctx ends, backing off from 100 ms to
// 10 s with jitter.
func (s *Source) retry(ctx context.Context, fn func() error) error {
	delay := 100 * time.Millisecond
	for {
		err := fn()
		if err == nil {
			return nil
		}
		s.log.Warn("store app event; retrying", "retry_in", delay, "err", err)
		t := time.NewTimer(delay/2 + rand.N(delay/2+1))
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		delay = min(2*delay, 10*time.Second)
	}
}
