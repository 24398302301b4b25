package webhooks

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func choicesJSON(labels ...string) string {
	b, _ := json.Marshal(labels)
	return string(b)
}

var eleven = choicesJSON("1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11")

func TestEventChoicesValidation(t *testing.T) {
	long := choicesJSON("ok", strings.Repeat("é", 65))
	for _, tc := range []struct {
		name, body string
		status     int
		errHas     string
	}{
		{"with respond", `{"chat":"web:a","text":"bridge closed","respond":true,"choices":["Take the ferry","Walk"],"ask_location":true}`, 202, ""},
		{"without respond", `{"chat":"web:a","text":"x","choices":["Walk"]}`, 400, "choices: only with respond: true"},
		{"ask_location without respond", `{"chat":"web:a","text":"x","ask_location":true}`, 400, "ask_location: only with respond: true"},
		{"eleven", `{"chat":"web:a","text":"x","respond":true,"choices":` + eleven + `}`, 400, "choices: at most 10"},
		{"65 characters", `{"chat":"web:a","text":"x","respond":true,"choices":` + long + `}`, 400, "choices[1]: label longer than 64"},
		{"empty label", `{"chat":"web:a","text":"x","respond":true,"choices":["Walk",""]}`, 400, "choices[1]: empty label"},
		{"batch names the index", `{"events":[{"chat":"web:a","text":"x"},{"chat":"web:b","text":"y","respond":true,"choices":[""]}]}`, 400, "events[1].choices[0]: empty label"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec, h := eventsServer(t)
			w := post(h, tc.body, bearer)
			if w.Code != tc.status || !strings.Contains(w.Body.String(), tc.errHas) {
				t.Fatalf("got %d %s, want %d containing %q", w.Code, w.Body, tc.status, tc.errHas)
			}
			if tc.status != 202 {
				if rec.count() != 0 {
					t.Errorf("refused request stored %d events", rec.count())
				}
				return
			}
			ev := rec.got[0].Event
			if !slices.Equal(ev.Choices, []string{"Take the ferry", "Walk"}) || !ev.AskLocation {
				t.Errorf("stored event %+v, want its choices and ask_location", ev)
			}
		})
	}
}
