package channeltest

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"time"

	"github.com/botgw/botgw/channels"
)

// serveUpdates answers a long poll like Telegram: every pending update with
// update_id >= offset, or, when there is none, waits for one or for the
// client to give up.
func (f *BotAPI) serveUpdates(w http.ResponseWriter, r *http.Request, p map[string]string) {
	var offset int64
	_ = json.Unmarshal([]byte(p["offset"]), &offset)
	for {
		f.mu.Lock()
		var batch []json.RawMessage
		for _, u := range f.updates {
			var head struct {
				ID int64 `json:"update_id"`
			}
			_ = json.Unmarshal(u, &head)
			if head.ID >= offset {
				batch = append(batch, u)
			}
		}
		changed := f.changed
		f.mu.Unlock()
		if len(batch) > 0 {
			body, _ := json.Marshal(map[string]any{"ok": true, "result": batch})
			writeReply(w, Reply{200, string(body)})
			return
		}
		select {
		case <-changed:
		case <-r.Context().Done():
			return
		}
	}
}

// Script queues answers to the next calls of method, used before the
// defaults.
func (f *BotAPI) Script(method string, replies ...Reply) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.scripted[method] = append(f.scripted[method], replies...)
}

// Slow makes every call of method take d before it is answered, as a
// Telegram under load does.
func (f *BotAPI) Slow(method string, d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.slow == nil {
		f.slow = map[string]time.Duration{}
	}
	f.slow[method] = d
}

// takeTime waits out Slow's time for method; false when the caller went
// away first.
func (f *BotAPI) takeTime(ctx context.Context, method string) bool {
	f.mu.Lock()
	d := f.slow[method]
	f.mu.Unlock()
	return d <= 0 || channels.Sleep(ctx, d) == nil
}

// Refuse makes every sendMessage after the next n answer r, until
// Refuse(nil, 0).
func (f *BotAPI) Refuse(r *Reply, n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.refusal, f.refuseIn = r, n
}

// PushUpdates queues updates for getUpdates.
func (f *BotAPI) PushUpdates(updates ...[]byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, u := range updates {
		f.updates = append(f.updates, u)
	}
	f.notifyLocked()
}

// Sent returns the text of every message sendMessage took, in order.
func (f *BotAPI) Sent() []string {
	var out []string
	for _, c := range f.Delivered() {
		out = append(out, c.Params["text"])
	}
	return out
}

// Delivered returns the sendMessage calls the fake took (not refused), in
// order.
func (f *BotAPI) Delivered() []APICall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]APICall(nil), f.accepted...)
}

// WaitFor blocks until cond holds over the calls so far. The deadline only
// guards against a hung test; it is not a speed assertion, and it is long
// enough for a turn handed between two replicas under the race detector on
// a loaded machine.
func (f *BotAPI) WaitFor(cond func() bool) {
	f.t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		f.mu.Lock()
		changed := f.changed
		f.mu.Unlock()
		if cond() {
			return
		}
		select {
		case <-changed:
		case <-deadline:
			f.t.Fatal("timed out waiting for the fake Bot API")
		}
	}
}

func writeReply(w http.ResponseWriter, r Reply) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(r.Status)
	_, _ = io.WriteString(w, r.Body)
}
