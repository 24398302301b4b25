// Package metrics exports the gateway's Prometheus metrics on a registry of
// its own: inbound messages, HTTP answers, turns and their stages, provider
// errors, tokens, compactions, state sizes, dropped state, backlog, leases,
// channel health and Redis errors. Labels are low-cardinality only: channel,
// route pattern, status, outcome, stage, reason. No chat key, no text.
package metrics

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/convo"
)

// Metrics holds the collectors. Create it with New; its methods are safe
// for concurrent use.
type Metrics struct {
	reg *prometheus.Registry

	inbound     *prometheus.CounterVec
	http        *prometheus.CounterVec
	httpSeconds *prometheus.HistogramVec
	turns       *prometheus.CounterVec
	stage       *prometheus.HistogramVec
	deliveries  *prometheus.CounterVec
	provErrors  *prometheus.CounterVec
	provCalls   *prometheus.CounterVec
	provRetries *prometheus.CounterVec
	tokens      *prometheus.CounterVec
	toolCalls   prometheus.Counter
	compactions prometheus.Counter
	stateBytes  prometheus.Histogram
	dropped     *prometheus.CounterVec
	backlog     *prometheus.HistogramVec
	leases      *prometheus.GaugeVec
	redisErrors *prometheus.CounterVec
	deadTotal   *prometheus.CounterVec
}

// latencyBuckets span a cached reply (1 ms) to a slow model (2 min).
var latencyBuckets = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120}

// New registers every collector, plus the Go runtime and process ones.
func New() *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry()}
	m.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.inbound = m.counterVec("botgw_inbound_total", "Inbound messages by channel and outcome: accepted, duplicate, error (not stored: the platform retries), ignored (read, not for the assistant), rejected (webhook refused: bad signature or body).", "channel", "outcome")
	m.http = m.counterVec("botgw_http_requests_total", "HTTP requests by route pattern and status (401: rejected, 400: bad body).", "route", "status")
	m.httpSeconds = m.histogramVec("botgw_http_request_duration_seconds", "Time to answer an HTTP request (a webhook's ack), by route pattern.", latencyBuckets, "route")
	m.turns = m.counterVec("botgw_turns_total", "Finished turns by channel and outcome (ok, command, event, provider_error, conflict, commit_error).", "channel", "outcome")
	m.stage = m.histogramVec("botgw_turn_stage_seconds", "Time spent in each stage of a turn: queue_wait, provider, commit, delivery, total.", latencyBuckets, "stage")
	m.deliveries = m.counterVec("botgw_deliveries_total", "Reply delivery attempts by channel and result (ok, error).", "channel", "result")
	m.provErrors = m.counterVec("botgw_provider_errors_total", "Turns whose provider call failed, by HTTP status (0: transport error or timeout).", "status")
	m.provCalls = m.counterVec("botgw_provider_requests_total", "HTTP attempts to a model API, retries and calls a fallback covered included, by provider and status (0: transport error or timeout).", "provider", "status")
	m.provRetries = m.counterVec("botgw_provider_retries_total", "Attempts that were the SDK's retries of a failed one (429, 5xx, timeouts), by provider.", "provider")
	m.tokens = m.counterVec("botgw_tokens_total", "Provider-reported tokens, by direction (in, out).", "direction")
	m.toolCalls = m.counter("botgw_tool_calls_total", "Tool calls run for the model.")
	m.compactions = m.counter("botgw_compactions_total", "Turns whose history was compacted.")
	m.stateBytes = m.histogram("botgw_state_bytes", "Size of a chat's encoded state after a turn.", prometheus.ExponentialBuckets(256, 2, 12))
	m.dropped = m.counterVec("botgw_state_dropped_total", "Stored conversations dropped and started afresh, by reason.", "reason")
	m.backlog = m.histogramVec("botgw_backlog_entries", "Entries a worker found when it took a chat: pending input and undelivered outbox replies.", []float64{0, 1, 2, 3, 5, 10, 20, 50}, "kind")
	m.leases = m.gaugeVec("botgw_leases_held", "Chat leases this replica holds: turns in flight.", "channel")
	m.redisErrors = m.counterVec("botgw_redis_errors_total", "Redis commands that failed (not counting a missing key), by command.", "command")
	m.deadTotal = m.counterVec("botgw_dead_letters_total", "Replies and input moved to the dead letters by this replica, by channel and kind (reply, input).", "channel", "kind")
	return m
}

// Handler serves the registry in the Prometheus exposition format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// Registry is the registry itself, for extra collectors.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Hooks are the engine's observation points, feeding these metrics.
func (m *Metrics) Hooks() convo.Hooks {
	return convo.Hooks{
		Inbound: func(channel, outcome string) { m.inbound.WithLabelValues(channel, outcome).Inc() },
		Turn:    m.turn,
		Dropped: func(reason string) { m.dropped.WithLabelValues(reason).Inc() },
		Delivery: func(channel string, d time.Duration, err error) {
			m.stage.WithLabelValues("delivery").Observe(d.Seconds())
			m.deliveries.WithLabelValues(channel, result(err)).Inc()
		},
		Lease:      func(channel string, delta int) { m.leases.WithLabelValues(channel).Add(float64(delta)) },
		DeadLetter: func(channel, kind string) { m.deadTotal.WithLabelValues(channel, kind).Inc() },
		Backlog: func(_ string, pending, outbox int) {
			m.backlog.WithLabelValues("pending").Observe(float64(pending))
			m.backlog.WithLabelValues("outbox").Observe(float64(outbox))
		},
	}
}

func (m *Metrics) turn(s convo.TurnStats) {
	m.turns.WithLabelValues(s.Channel, s.Outcome).Inc()
	m.stage.WithLabelValues("queue_wait").Observe(s.QueueWait.Seconds())
	m.stage.WithLabelValues("commit").Observe(s.Commit.Seconds())
	m.stage.WithLabelValues("total").Observe(s.Duration.Seconds())
	if s.Provider > 0 {
		m.stage.WithLabelValues("provider").Observe(s.Provider.Seconds())
	}
	if s.Outcome == "provider_error" {
		m.provErrors.WithLabelValues(strconv.Itoa(s.ProviderStatus)).Inc()
	}
	m.tokens.WithLabelValues("in").Add(float64(s.Usage.InputTokens))
	m.tokens.WithLabelValues("out").Add(float64(s.Usage.OutputTokens))
	m.toolCalls.Add(float64(s.ToolCalls))
	if s.Compacted {
		m.compactions.Inc()
	}
	if s.StateSize > 0 {
		m.stateBytes.Observe(float64(s.StateSize))
	}
}

// Ignored returns the counter of input channel read and did not pass on.
func (m *Metrics) Ignored(channel string) func() {
	c := m.inbound.WithLabelValues(channel, "ignored")
	return c.Inc
}

// ProviderAttempts returns the observer of one provider's HTTP attempts;
// provider is its id ("openai/gpt-4o-mini"), a handful of values at most.
func (m *Metrics) ProviderAttempts(provider string) func(status int, retry bool) {
	retries := m.provRetries.WithLabelValues(provider)
	return func(status int, retry bool) {
		m.provCalls.WithLabelValues(provider, strconv.Itoa(status)).Inc()
		if retry {
			retries.Inc()
		}
	}
}

// WatchBacklog exports, read at every scrape, the chats whose work is due
// with no worker on it (botgw_work_due_chats, all replicas together) and
// how long the most overdue has waited (botgw_work_overdue_seconds): the
// age of pending input nobody is answering.
func (m *Metrics) WatchBacklog(read func(ctx context.Context) (due int, overdue time.Duration, err error)) {
	m.reg.MustRegister(backlog{read: read,
		due:     prometheus.NewDesc("botgw_work_due_chats", "Chats with input or replies due and no worker on them, across all replicas.", nil, nil),
		overdue: prometheus.NewDesc("botgw_work_overdue_seconds", "How long the most overdue chat has waited past its due time (0 when none).", nil, nil),
	})
}

// ObserveHTTP counts one answered request. route is the route pattern
// ("/webhooks/telegram", "/v1/admin/chats/:chat"), never the raw path.
func (m *Metrics) ObserveHTTP(route string, status int, d time.Duration) {
	if route == "" {
		route = "unmatched"
	}
	m.http.WithLabelValues(route, strconv.Itoa(status)).Inc()
	if ch, ok := strings.CutPrefix(route, "/webhooks/"); ok && (status == http.StatusUnauthorized || status == http.StatusBadRequest) {
		m.inbound.WithLabelValues(ch, "rejected").Inc() // bad signature or body
	}
	m.httpSeconds.WithLabelValues(route).Observe(d.Seconds())
}

// WatchChannel exports botgw_channel_up{channel} from the channel's Health,
// read at every scrape: 1 when it can send and receive, else 0.
func (m *Metrics) WatchChannel(name string, h botgw.Health) {
	m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "botgw_channel_up", Help: "Whether a channel can send and receive now (its health check).",
		ConstLabels: prometheus.Labels{"channel": name},
	}, func() float64 {
		if h.Health() != nil {
			return 0
		}
		return 1
	}))
}

func result(err error) string {
	if err != nil {
		return "error"
	}
	return "ok"
}

// WatchEvents exports a channel's own event counters, read at every
// scrape, as botgw_channel_events_total{channel, event} (for WhatsApp:
// undecryptable messages, store retries and failures, slow stores, forced
// reconnects, backlog messages, stream replacements). read returns a fixed
// set of event names.
func (m *Metrics) WatchEvents(channel string, read func() map[string]uint64) {
	m.reg.MustRegister(channelEvents{channel: channel, read: read,
		desc: prometheus.NewDesc("botgw_channel_events_total", "Channel events by kind, as the adapter counts them.", []string{"channel", "event"}, nil)})
}

type channelEvents struct {
	channel string
	read    func() map[string]uint64
	desc    *prometheus.Desc
}

// Describe sends nothing: the collector is unchecked, so each channel
// that counts events (WhatsApp's linked device and its Cloud API) registers
// one of its own under the same metric name, told apart by the channel label.
func (c channelEvents) Describe(chan<- *prometheus.Desc) {}

func (c channelEvents) Collect(ch chan<- prometheus.Metric) {
	for event, n := range c.read() {
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.CounterValue, float64(n), c.channel, event)
	}
}
