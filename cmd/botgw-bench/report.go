package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"text/tabwriter"
	"time"
)

type result struct {
	Machine      string  `json:"machine"`
	Options      string  `json:"options"`
	Redis        string  `json:"redis"`
	Gateway      phase   `json:"gateway"`
	Ceiling      phase   `json:"ceiling"`
	Ratio        float64 `json:"ratio"` // gateway turns/s ÷ ceiling requests/s
	StateBytes   sizes   `json:"state_bytes"`
	PeakRSSBytes int64   `json:"peak_rss_bytes"`
}

// phase is one driven run: turns (or requests) per second and latencies.
type phase struct {
	Requests    int     `json:"requests"`
	PerSecond   float64 `json:"per_second"`
	AckP50      ms      `json:"ack_p50_ms"`
	AckP99      ms      `json:"ack_p99_ms"`
	EndToEndP50 ms      `json:"e2e_p50_ms,omitzero"` // minus the provider's latency
	EndToEndP99 ms      `json:"e2e_p99_ms,omitzero"`
	// TextP99 is the reply latency p99 of text messages only (webhook POST
	// to sendMessage, the provider's latency included): with -media, what
	// photos and voice notes cost the chats' text turns.
	TextP99           ms      `json:"text_reply_p99_ms,omitzero"`
	RoundTripsPerTurn float64 `json:"redis_round_trips_per_turn"`
	CommandsPerTurn   float64 `json:"redis_commands_per_turn,omitzero"` // INFO commandstats, scripts' calls included
	// ReplyP99 is the reply latency's 99th percentile over every turn,
	// from the webhook POST to sendMessage, the provider's latency included.
	ReplyP99 ms `json:"reply_p99_ms,omitzero"`
	// CPUPerTurn is this process's CPU time (user + system) per turn while
	// the chats were driven: the gateway, the driver and the fake Bot API,
	// which share the process. RedisCPUPerTurn is Redis's (INFO cpu; not
	// measured on the embedded Redis).
	CPUPerTurn      ms `json:"cpu_ms_per_turn,omitzero"`
	RedisCPUPerTurn ms `json:"redis_cpu_ms_per_turn,omitzero"`
	// SettledRSSBytes is the process's RSS once every chat was answered
	// (after a GC), with the gateway still running: what idle chats cost.
	SettledRSSBytes int64 `json:"settled_rss_bytes,omitzero"`
	// ReplyByTurn is the reply latency (webhook POST to sendMessage, the
	// provider's latency included) by the chat's turn number: a first
	// reply should not wait longer than later ones.
	ReplyByTurn []turnLatency `json:"reply_by_turn,omitempty"`
}

// turnLatency is the reply latency of one turn number ("1", "2", …, and
// "2+" for every turn after the first).
type turnLatency struct {
	Turn string `json:"turn"`
	P50  ms     `json:"p50_ms"`
	P99  ms     `json:"p99_ms"`
}

// byTurn summarizes the reply latency of turns 1 to 5 and of all later
// turns (2+) together.
func byTurn(turns [][]time.Duration) []turnLatency {
	var out []turnLatency
	var later []time.Duration
	for i, d := range turns {
		if i > 0 {
			later = append(later, d...)
		}
		if i < 5 {
			out = append(out, turnLatency{fmt.Sprint(i + 1), toMS(quantile(d, .5)), toMS(quantile(d, .99))})
		}
	}
	if len(later) > 0 {
		out = append(out, turnLatency{"2+", toMS(quantile(later, .5)), toMS(quantile(later, .99))})
	}
	return out
}

type sizes struct {
	Mean float64 `json:"mean"`
	Max  int     `json:"max"`
}

// ms is a duration shown in milliseconds.
type ms float64

func toMS(d time.Duration) ms { return ms(float64(d) / float64(time.Millisecond)) }

func (o options) summary() string {
	mix := "text only"
	if o.media {
		mix = fmt.Sprintf("one message in five a photo or a voice note, transcription %s", o.transcriptionLatency)
	}
	return fmt.Sprintf("%d chats × %d messages, provider latency %s, model %s, %s", o.chats, o.messages, o.providerLatency, o.model, mix)
}

func summarize(s *samples, wall, provider time.Duration) phase {
	p := phase{Requests: len(s.ack), PerSecond: float64(len(s.ack)) / wall.Seconds(),
		AckP50: toMS(quantile(s.ack, .5)), AckP99: toMS(quantile(s.ack, .99))}
	if len(s.e2e) > 0 {
		p.EndToEndP50 = toMS(quantile(s.e2e, .5) - provider)
		p.EndToEndP99 = toMS(quantile(s.e2e, .99) - provider)
		p.ReplyP99 = toMS(quantile(s.e2e, .99))
		p.ReplyByTurn = byTurn(s.byTurn)
		p.TextP99 = toMS(quantile(s.text, .99))
	}
	return p
}

func quantile(d []time.Duration, q float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, int(q*float64(len(s))))]
}

func writeJSON(w io.Writer, r result) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

func writeTable(w io.Writer, r result) {
	fmt.Fprintf(w, "machine: %s\nredis:   %s\nrun:     %s\n\n", r.Machine, r.Redis, r.Options)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "\tper s\tack p50 ms\tack p99 ms\te2e−provider p50 ms\te2e−provider p99 ms\tRedis trips/turn\tRedis cmds/turn\t")
	row := func(name string, p phase) {
		fmt.Fprintf(tw, "%s\t%.0f\t%.2f\t%.2f\t%s\t%s\t%.1f\t%s\t\n", name, p.PerSecond, p.AckP50, p.AckP99,
			orDash(float64(p.EndToEndP50), "%.2f"), orDash(float64(p.EndToEndP99), "%.2f"),
			p.RoundTripsPerTurn, orDash(p.CommandsPerTurn, "%.1f"))
	}
	row("gateway (turns)", r.Gateway)
	row("ceiling (GET+SET)", r.Ceiling)
	tw.Flush()
	if len(r.Gateway.ReplyByTurn) > 0 {
		fmt.Fprint(w, "\nreply latency by turn number (provider included):")
		for _, l := range r.Gateway.ReplyByTurn {
			fmt.Fprintf(w, "  turn %s: p50 %.0f ms, p99 %.0f ms;", l.Turn, l.P50, l.P99)
		}
		fmt.Fprintln(w)
	}
	g := r.Gateway
	fmt.Fprintf(w, "\nturns/s %.0f   reply p99 %.0f ms   CPU %.2f ms/turn (gateway, driver and fake Bot API)   Redis %s cmds/turn, %s CPU ms/turn\n",
		g.PerSecond, g.ReplyP99, g.CPUPerTurn, orDash(g.CommandsPerTurn, "%.1f"), orDash(float64(g.RedisCPUPerTurn), "%.3f"))
	fmt.Fprintf(w, "text turns' reply p99 (provider included): %.0f ms\n", r.Gateway.TextP99)
	fmt.Fprintf(w, "\ngateway/ceiling: %.2f   state per chat: %.0f B mean, %d B max   peak RSS: %.0f MiB   RSS with every chat idle: %.0f MiB\n",
		r.Ratio, r.StateBytes.Mean, r.StateBytes.Max, float64(r.PeakRSSBytes)/(1<<20), float64(r.Gateway.SettledRSSBytes)/(1<<20))
}

// orDash formats v, or "-" when it was not measured.
func orDash(v float64, format string) string {
	if v == 0 {
		return "-"
	}
	return fmt.Sprintf(format, v)
}

func hostname() (string, error) { return os.Hostname() }
