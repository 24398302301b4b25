package main

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/botgw/botgw/convo/broadcast"
	"github.com/botgw/botgw/webhooks/metrics"
)

// broadcastMetrics counts broadcast items: queued into their chats, and
// settled (done, failed, cancelled).
func broadcastMetrics(m *metrics.Metrics) broadcast.Hooks {
	items := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "botgw_broadcast_items_total",
		Help: "Broadcast items by outcome: queued (stored in the chat's pending input), done (sent, or stored for an event without a reply), failed (refused for good), cancelled."},
		[]string{"outcome"})
	m.Registry().MustRegister(items)
	return broadcast.Hooks{
		Queued:  func(n int) { items.WithLabelValues("queued").Add(float64(n)) },
		Settled: func(outcome string) { items.WithLabelValues(outcome).Inc() },
	}
}
