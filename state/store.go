package state

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/botgw/botgw"
	"github.com/redis/go-redis/v9"
)

var _ botgw.Store = (*Store)(nil)

// Store is botgw.Store on Redis. It is safe for concurrent use.
type Store struct {
	c       redis.UniversalClient
	prefix  string
	opts    Options
	cluster bool
	log     *slog.Logger
	now     func() time.Time // the clock of work marks and dedupe; tests replace it
	emb     *embedded        // nil unless Open started the embedded server
	// stream is the conversation stream's sinks and their modes.
	stream streamState
}

// Open connects to the Redis cfg names, or starts the embedded in-process
// Redis when cfg has neither URL nor Addrs, checks it answers and loads the
// scripts. log receives the store's warnings and errors.
func Open(ctx context.Context, cfg Config, opts Options, log *slog.Logger) (*Store, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	s, err := connect(cfg, opts, log)
	if err != nil {
		return nil, err
	}
	if err := s.Ping(ctx); err != nil {
		s.Close()
		return nil, err
	}
	if err := loadScripts(ctx, s.c); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

func connect(cfg Config, opts Options, log *slog.Logger) (*Store, error) {
	if !cfg.embedded() {
		c, err := cfg.client()
		if err != nil {
			return nil, err
		}
		s := New(c, cfg.prefix(), opts)
		s.log = log
		return s, nil
	}
	emb, err := startEmbedded()
	if err != nil {
		return nil, err
	}
	log.Warn("redis.url is empty: using the embedded in-process Redis; chats, pending input and replies live only as long as this process")
	c := redis.NewClient(&redis.Options{Addr: emb.m.Addr(), DisableIdentity: true})
	s := New(c, cfg.prefix(), opts)
	s.log, s.emb = log, emb
	return s, nil
}

// New wraps an existing client. prefix "" means DefaultKeyPrefix. Scripts
// are loaded on first use. The store logs to slog.Default; Open injects a
// logger.
func New(client redis.UniversalClient, prefix string, opts Options) *Store {
	if prefix == "" {
		prefix = DefaultKeyPrefix
	}
	_, cluster := client.(*redis.ClusterClient)
	opts = opts.withDefaults()
	return &Store{
		stream: streamState{sinks: opts.Stream.Sinks, modes: make([]atomic.Int32, len(opts.Stream.Sinks)),
			dropped: make([]atomic.Int64, len(opts.Stream.Sinks))},
		c:       client,
		prefix:  prefix,
		opts:    opts,
		cluster: cluster,
		log:     slog.Default(),
		now:     time.Now,
	}
}

// Close closes the client and, in embedded mode, the server with all data.
func (s *Store) Close() error {
	err := s.c.Close()
	if s.emb != nil {
		s.emb.close()
	}
	if err != nil && !errors.Is(err, redis.ErrClosed) {
		return fmt.Errorf("close redis: %w", err)
	}
	return nil
}

// LeaseTTL is how long a chat's lease lasts without renewal; a worker
// should renew well within it.
func (s *Store) LeaseTTL() time.Duration { return s.opts.LeaseTTL }

// KeyPrefix is the prefix of every key of the store (redis.key_prefix).
func (s *Store) KeyPrefix() string { return s.prefix }

// Client is the underlying client, for metrics and benchmarks.
func (s *Store) Client() redis.UniversalClient { return s.c }

// Ping checks that Redis answers.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.c.Ping(ctx).Err(); err != nil {
		return fmt.Errorf("ping redis: %w", err)
	}
	return nil
}

func (s *Store) nowMs() int64 { return s.now().UnixMilli() }

func ms(d time.Duration) int64 { return d.Milliseconds() }
