package stream

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/botgw/botgw/state"
)

// stats are a relay's metrics, labelled with its sink.
type stats struct {
	delivered prometheus.Counter     // records the sink acknowledged
	failures  prometheus.Counter     // failed deliveries and undecodable records
	pending   prometheus.Gauge       // records waiting, at the last measure
	lag       prometheus.Gauge       // age of the oldest waiting record, seconds
	full      prometheus.Gauge       // 1 while max_pending is reached
	dropped   prometheus.CounterFunc // records not kept while full

	mu    sync.Mutex
	count int64
	last  state.StreamMode
}

func newStats(sink string, dropped func() int64) *stats {
	l := prometheus.Labels{"sink": sink}
	return &stats{
		delivered: prometheus.NewCounter(prometheus.CounterOpts{Name: "botgw_stream_delivered_total", Help: "Conversation-stream records the sink acknowledged.", ConstLabels: l}),
		failures:  prometheus.NewCounter(prometheus.CounterOpts{Name: "botgw_stream_failures_total", Help: "Failed stream deliveries (retried) and undecodable records (dropped).", ConstLabels: l}),
		pending:   prometheus.NewGauge(prometheus.GaugeOpts{Name: "botgw_stream_pending", Help: "Conversation-stream records waiting for the sink.", ConstLabels: l}),
		lag:       prometheus.NewGauge(prometheus.GaugeOpts{Name: "botgw_stream_lag_seconds", Help: "Age of the oldest record waiting for the sink.", ConstLabels: l}),
		full:      prometheus.NewGauge(prometheus.GaugeOpts{Name: "botgw_stream_full", Help: "1 while stream.max_pending is reached and new records are not kept.", ConstLabels: l}),
		dropped: prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "botgw_stream_dropped_total", Help: "Conversation-stream records not kept because stream.max_pending was reached.", ConstLabels: l},
			func() float64 { return float64(dropped()) }),
	}
}

// Collectors are the relay's metrics, for the gateway's registry.
func (r *Relay) Collectors() []prometheus.Collector {
	s := r.stats
	return []prometheus.Collector{s.delivered, s.failures, s.pending, s.lag, s.full, s.dropped}
}

func (s *stats) set(b state.StreamBacklog) {
	s.pending.Set(float64(b.Pending))
	lag := 0.0
	if !b.Oldest.IsZero() {
		lag = max(time.Since(b.Oldest).Seconds(), 0)
	}
	s.lag.Set(lag)
}

// mode records the mode just decided and returns the one before.
func (s *stats) mode(m state.StreamMode) state.StreamMode {
	s.mu.Lock()
	defer s.mu.Unlock()
	prev := s.last
	s.last = m
	if m == state.StreamFull {
		s.full.Set(1)
	} else {
		s.full.Set(0)
	}
	return prev
}

func (s *stats) deliveredCount() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.count
}

func (s *stats) add(n int) {
	s.delivered.Add(float64(n))
	s.mu.Lock()
	s.count += int64(n)
	s.mu.Unlock()
}
