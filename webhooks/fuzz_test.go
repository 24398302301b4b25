package webhooks

import (
	"log/slog"
	"net/http"
	"strings"
	"testing"
)

// FuzzEventsBody feeds /v1/events bodies to the parser. A body is refused
// with 400 or 404 and an error naming a field, or it becomes events whose
// chat keys are valid and whose channels are configured. Nothing panics.
func FuzzEventsBody(f *testing.F) {
	for _, s := range []string{
		`{"chat":"whatsapp:447700900123@s.whatsapp.net","text":"visited","id":"evt-1","key":"location","respond":true}`,
		`{"events":[{"chat":"web:a","text":"one"},{"chat":"web:b","text":"two"}]}`,
		`{"events":[{"chat":"web:a","text":"x"}],"respond":true}`,
		`{"chat":"web:a\u0000b","text":"x"}`,
		`{"events":null}`, `{"events":[]}`, `[]`, `null`,
	} {
		f.Add([]byte(s))
	}
	ev := NewEvents(secret, nil, nil, []string{"whatsapp", "web"}, slog.New(slog.DiscardHandler))
	f.Fuzz(func(t *testing.T, body []byte) {
		in, status, err := ev.parse(body)
		if err != nil {
			if (status != http.StatusBadRequest && status != http.StatusNotFound) || !strings.Contains(err.Error(), ":") {
				t.Fatalf("refused with %d %q", status, err)
			}
			return
		}
		if len(in) == 0 || len(in) > maxEventBatch {
			t.Fatalf("accepted %d events", len(in))
		}
		for _, m := range in {
			if err := m.Chat.Validate(); err != nil || m.Event == nil || strings.TrimSpace(m.Event.Text) == "" {
				t.Fatalf("accepted %+v (%v)", m, err)
			}
		}
	})
}
