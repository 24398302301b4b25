package metrics

// BodiesRefused registers botgw_http_bodies_refused_total{route,reason}
// and returns what counts one request body refused for the budget of
// bodies in flight or cut off at its deadline (webhooks Deps.BodyRefused).
// Call it once.
func (m *Metrics) BodiesRefused() func(route, reason string) {
	c := m.counterVec("botgw_http_bodies_refused_total", "Request bodies refused or cut off, by route pattern and reason: client (the client's allowance of bodies in flight was spent: 429), busy (the gateway's budget of bodies in flight stayed full: 503), timeout (the whole body did not arrive within 10 s: 408).", "route", "reason")
	return func(route, reason string) { c.WithLabelValues(route, reason).Inc() }
}
