package whatsapp

import "sync/atomic"

// counts are the adapter's event counters, exported as
// botgw_channel_events_total{channel="whatsapp",event=...}.
type counts struct {
	undecryptable   atomic.Uint64 // messages whatsmeow could not decrypt
	storeRetries    atomic.Uint64 // store attempts repeated after a failure
	storeFailed     atomic.Uint64 // messages left unacknowledged: not stored
	storeSlow       atomic.Uint64 // stores that held whatsmeow's event loop past slowStore
	deadLettered    atomic.Uint64 // messages that could never be stored, kept as dead letters
	forcedReconnect atomic.Uint64 // reconnects forced so WhatsApp redelivers
	reconnects      atomic.Uint64 // connection attempts after a failure or a lost connection
	storms          atomic.Uint64 // reconnect alarms: too many attempts in a short time
	backlog         atomic.Uint64 // messages older than max_backlog_age when they arrived
	parked          atomic.Uint64 // sessions parked after another client took them
	held            atomic.Uint64 // number holds after a restriction (463, 403s, 429, ban)
	dailyCap        atomic.Uint64 // sends that waited for the next day's budget
	panics          atomic.Uint64 // events whose handling panicked (left unacknowledged)
	silentDeaths    atomic.Uint64 // connections the watchdog found dead without an event
	coldCap         atomic.Uint64 // sends to cold contacts that waited for the next day's cold_daily_cap
}

// EventCounts returns the counters by event name, for the metrics.
func (a *Adapter) EventCounts() map[string]uint64 {
	c := &a.counts
	return map[string]uint64{
		"undecryptable":     c.undecryptable.Load(),
		"store_retry":       c.storeRetries.Load(),
		"store_failed":      c.storeFailed.Load(),
		"store_slow":        c.storeSlow.Load(),
		"input_dead_letter": c.deadLettered.Load(),
		"forced_reconnect":  c.forcedReconnect.Load(),
		"reconnect":         c.reconnects.Load(),
		"reconnect_alarm":   c.storms.Load(),
		"backlog":           c.backlog.Load(),
		"stream_replaced":   c.parked.Load(),
		"number_held":       c.held.Load(),
		"daily_cap_reached": c.dailyCap.Load(),
		"handler_panic":     c.panics.Load(),
		"silent_death":      c.silentDeaths.Load(),
		"cold_cap_reached":  c.coldCap.Load(),
	}
}
