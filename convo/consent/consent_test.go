package consent

import (
	"testing"
	"time"
)

// Quiet hours from 22:00 to 08:00 London time hold what is due at night
// until 08:00 the next (or the same) morning, by the wall clock across a
// daylight-saving change, and let the day through.
func TestQuietHoursWrapMidnight(t *testing.T) {
	q, err := ParseQuietHours("22:00", "08:00", "Europe/London")
	if err != nil {
		t.Fatal(err)
	}
	london := q.Loc
	cases := []struct {
		now  time.Time
		in   bool
		ends time.Time
	}{
		{time.Date(2026, 11, 28, 23, 30, 0, 0, london), true, time.Date(2026, 11, 29, 8, 0, 0, 0, london)},
		{time.Date(2026, 11, 29, 3, 0, 0, 0, london), true, time.Date(2026, 11, 29, 8, 0, 0, 0, london)},
		{time.Date(2026, 11, 29, 8, 0, 0, 0, london), false, time.Time{}},
		{time.Date(2026, 11, 29, 21, 59, 0, 0, london), false, time.Time{}},
		{time.Date(2026, 3, 28, 22, 0, 0, 0, london), true, time.Date(2026, 3, 29, 8, 0, 0, 0, london)}, // clocks go forward that night
		{time.Date(2026, 11, 29, 2, 0, 0, 0, time.UTC), true, time.Date(2026, 11, 29, 8, 0, 0, 0, london)},
	}
	for _, c := range cases {
		ends, in := Rules{Quiet: q}.Waits(c.now)
		if in != c.in || !ends.Equal(c.ends) {
			t.Errorf("at %v: waits %v until %v, want %v until %v", c.now, in, ends, c.in, c.ends)
		}
	}
	day, _ := ParseQuietHours("12:00", "13:30", "UTC")
	if _, in := day.Until(time.Date(2026, 1, 1, 13, 0, 0, 0, time.UTC)); !in {
		t.Errorf("13:00 is inside 12:00-13:30")
	}
	if _, in := (Rules{}).Waits(time.Now()); in {
		t.Errorf("no quiet hours held a message")
	}
}

// A stop word opts out only as the whole message, in any case.
func TestStopWordIsTheWholeMessage(t *testing.T) {
	r := Rules{}
	for text, want := range map[string]bool{"STOP": true, " stop ": true, "Unsubscribe": true,
		"please stop": false, "stop it": false, "": false} {
		if got := r.IsStopWord(text); got != want {
			t.Errorf("IsStopWord(%q) = %v, want %v", text, got, want)
		}
	}
	if !(Rules{StopWords: []string{"ARRET"}}).IsStopWord("arret") || (Rules{StopWords: []string{"ARRET"}}).IsStopWord("stop") {
		t.Errorf("configured stop words replace the defaults")
	}
}

// An opted-out player gets nothing unless an operator overrides it.
func TestOptOutRule(t *testing.T) {
	r := Rules{}
	if r.Allows(true, false) || !r.Allows(true, true) || !r.Allows(false, false) {
		t.Errorf("Allows: opted out %v, overridden %v, opted in %v", r.Allows(true, false), r.Allows(true, true), r.Allows(false, false))
	}
}
