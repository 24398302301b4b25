package gateway

import (
	"strings"
	"testing"
)

// config check names the quiet-hours key at fault: a malformed time, from
// equal to to, an unknown timezone; a blank stop word too.
func TestProactiveConfigNamesTheKey(t *testing.T) {
	cases := []struct {
		q    QuietHoursConfig
		want string
	}{
		{QuietHoursConfig{From: "25:00", To: "08:00", Timezone: "Europe/London"}, "proactive.quiet_hours.from"},
		{QuietHoursConfig{From: "22:00", To: "8am", Timezone: "Europe/London"}, "proactive.quiet_hours.to"},
		{QuietHoursConfig{From: "22:00", To: "22:00", Timezone: "Europe/London"}, "proactive.quiet_hours.to"},
		{QuietHoursConfig{From: "22:00", To: "08:00", Timezone: "Europe/Narnia"}, "proactive.quiet_hours.timezone"},
		{QuietHoursConfig{From: "22:00", To: "08:00"}, "proactive.quiet_hours.timezone"},
	}
	for _, c := range cases {
		cfg := DefaultConfig()
		cfg.Proactive.QuietHours = &c.q
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: config check %v, want it to name %s", c.q, err, c.want)
		}
	}
	cfg := DefaultConfig()
	cfg.Proactive = ProactiveConfig{StopWords: []string{"STOP", " "}, QuietHours: &QuietHoursConfig{From: "22:00", To: "08:00", Timezone: "Europe/London"}}
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "proactive.stop_words[1]") {
		t.Errorf("a blank stop word: %v", err)
	}
	cfg.Proactive.StopWords = nil
	if err := cfg.Validate(); err != nil && strings.Contains(err.Error(), "proactive") {
		t.Errorf("valid quiet hours refused: %v", err)
	}
}
