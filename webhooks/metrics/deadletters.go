package metrics

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// WatchDeadLetters exports botgw_dead_letters: the dead letters kept (all
// replicas), by channel and kind, read at every scrape.
func (m *Metrics) WatchDeadLetters(read func(ctx context.Context) (map[[2]string]int, error)) {
	m.reg.MustRegister(deadLetters{read: read,
		desc: prometheus.NewDesc("botgw_dead_letters", "Dead letters kept for an operator (all replicas), by channel and kind (reply, input).", []string{"channel", "kind"}, nil)})
}

type deadLetters struct {
	read func(ctx context.Context) (map[[2]string]int, error)
	desc *prometheus.Desc
}

func (d deadLetters) Describe(ch chan<- *prometheus.Desc) { ch <- d.desc }

func (d deadLetters) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	counts, err := d.read(ctx)
	if err != nil { // Redis down: no sample (botgw_redis_errors_total counts it)
		return
	}
	for k, n := range counts {
		ch <- prometheus.MustNewConstMetric(d.desc, prometheus.GaugeValue, float64(n), k[0], k[1])
	}
}
