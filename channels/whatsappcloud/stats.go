package whatsappcloud

import (
	"strconv"
	"sync"
)

// counts are the channel's own events, exported as
// botgw_channel_events_total{channel="whatsapp_cloud", event}.
type counts struct {
	mu     sync.Mutex
	events map[string]uint64
}

// knownEvents are always exported, at zero until they happen: the Graph
// API's error codes the channel handles, the statuses it reads, the
// window's outcomes.
var knownEvents = []string{
	"error_130429", "error_131026", "error_131047", "error_131048", "error_131051", "error_131056", "error_190", "error_other",
	"status_sent", "status_delivered", "status_read", "status_failed", "status_unknown_message",
	"window_template", "window_dead_letter", "media_not_found",
}

func (c *counts) add(event string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.events == nil {
		c.events = map[string]uint64{}
	}
	c.events[event]++
}

// errorEvent names the counter of a Graph API error code.
func errorEvent(code int) string {
	switch code {
	case 130429, 131026, 131047, 131048, 131051, 131056, 190:
		return "error_" + strconv.Itoa(code)
	}
	return "error_other"
}

// EventCounts returns the channel's event counters (a fixed set of names).
func (a *Adapter) EventCounts() map[string]uint64 {
	a.counts.mu.Lock()
	defer a.counts.mu.Unlock()
	m := make(map[string]uint64, len(knownEvents))
	for _, e := range knownEvents {
		m[e] = a.counts.events[e]
	}
	return m
}
