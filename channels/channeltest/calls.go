package channeltest

import "sync"

// APICall is one Web API request a fake platform received.
type APICall struct {
	Method string
	Params map[string]string // form fields; nested objects as JSON text
	Token  string            // the token it carried (Slack: Bearer or form), if any
}

// callLog records a fake's requests; safe for concurrent use.
type callLog struct {
	logMu sync.Mutex
	calls []APICall
}

func (l *callLog) record(c APICall) {
	l.logMu.Lock()
	defer l.logMu.Unlock()
	l.calls = append(l.calls, c)
}

// Calls returns every request so far, in order.
func (l *callLog) Calls() []APICall {
	l.logMu.Lock()
	defer l.logMu.Unlock()
	return append([]APICall(nil), l.calls...)
}

// CallsTo returns the requests made to method, in order.
func (l *callLog) CallsTo(method string) []APICall {
	var out []APICall
	for _, c := range l.Calls() {
		if c.Method == method {
			out = append(out, c)
		}
	}
	return out
}
