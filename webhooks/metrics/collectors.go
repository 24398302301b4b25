package metrics

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

func (m *Metrics) counter(name, help string) prometheus.Counter {
	c := prometheus.NewCounter(prometheus.CounterOpts{Name: name, Help: help})
	m.reg.MustRegister(c)
	return c
}

func (m *Metrics) counterVec(name, help string, labels ...string) *prometheus.CounterVec {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
	m.reg.MustRegister(c)
	return c
}

func (m *Metrics) gaugeVec(name, help string, labels ...string) *prometheus.GaugeVec {
	g := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: help}, labels)
	m.reg.MustRegister(g)
	return g
}

func (m *Metrics) histogram(name, help string, buckets []float64) prometheus.Histogram {
	h := prometheus.NewHistogram(prometheus.HistogramOpts{Name: name, Help: help, Buckets: buckets})
	m.reg.MustRegister(h)
	return h
}

func (m *Metrics) histogramVec(name, help string, buckets []float64, labels ...string) *prometheus.HistogramVec {
	h := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: name, Help: help, Buckets: buckets}, labels)
	m.reg.MustRegister(h)
	return h
}

// backlog reports the shared work queue at every scrape.
type backlog struct {
	read         func(ctx context.Context) (due int, overdue time.Duration, err error)
	due, overdue *prometheus.Desc
}

func (b backlog) Describe(ch chan<- *prometheus.Desc) { ch <- b.due; ch <- b.overdue }

func (b backlog) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	due, overdue, err := b.read(ctx)
	if err != nil { // Redis down: no sample (botgw_redis_errors_total counts it)
		return
	}
	ch <- prometheus.MustNewConstMetric(b.due, prometheus.GaugeValue, float64(due))
	ch <- prometheus.MustNewConstMetric(b.overdue, prometheus.GaugeValue, overdue.Seconds())
}
