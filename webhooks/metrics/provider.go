package metrics

import "github.com/prometheus/client_golang/prometheus"

// WatchProvider exports, read at every scrape, the model calls of one
// provider on this replica: botgw_provider_calls_in_flight{provider} (at
// the model now) and botgw_provider_calls_waiting{provider} (queued for
// provider.max_concurrency or the per-minute limits).
func (m *Metrics) WatchProvider(id string, inFlight, waiting func() int) {
	labels := prometheus.Labels{"provider": id}
	m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "botgw_provider_calls_in_flight", Help: "Model calls at the provider now, on this replica.",
		ConstLabels: labels,
	}, func() float64 { return float64(inFlight()) }))
	m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "botgw_provider_calls_waiting", Help: "Model calls waiting for a slot (max_concurrency) or the per-minute limits, on this replica.",
		ConstLabels: labels,
	}, func() float64 { return float64(waiting()) }))
}
