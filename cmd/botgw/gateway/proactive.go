package gateway

import (
	"errors"
	"fmt"
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/botgw/botgw/convo"
	"github.com/botgw/botgw/convo/consent"
	"github.com/botgw/botgw/webhooks/metrics"
)

// ProactiveConfig is the consent rules of the messages a player did not
// just ask for (docs/operating.md, "Players who don't want to be
// messaged").
type ProactiveConfig struct {
	// StopWords opt a player out when sent as the whole message (any
	// case); default STOP and UNSUBSCRIBE. /stop always does.
	StopWords  []string          `yaml:"stop_words"`
	QuietHours *QuietHoursConfig `yaml:"quiet_hours"`
}

// QuietHoursConfig: no proactive message goes out from From to To
// ("HH:MM", wrapping midnight when From is later) in Timezone (IANA).
type QuietHoursConfig struct {
	From     string `yaml:"from"`
	To       string `yaml:"to"`
	Timezone string `yaml:"timezone"`
}

// rules is the engine's consent.Rules; the config is validated first.
func (p ProactiveConfig) rules() consent.Rules {
	r := consent.Rules{StopWords: p.StopWords}
	if q := p.QuietHours; q != nil {
		r.Quiet, _ = consent.ParseQuietHours(q.From, q.To, q.Timezone)
	}
	return r
}

// validate names the key at fault under "proactive".
func (p ProactiveConfig) validate() []error {
	var errs []error
	for i, w := range p.StopWords {
		if strings.TrimSpace(w) == "" || strings.HasPrefix(strings.TrimSpace(w), "/") {
			errs = append(errs, fmt.Errorf("proactive.stop_words[%d]: want a word such as STOP, got %q", i, w))
		}
	}
	if q := p.QuietHours; q != nil {
		_, err := consent.ParseQuietHours(q.From, q.To, q.Timezone)
		if fe, ok := errors.AsType[*consent.FieldError](err); ok {
			errs = append(errs, fmt.Errorf("proactive.quiet_hours.%s: %w", fe.Field, fe.Err))
		}
	}
	return errs
}

// consentMetrics adds the consent counters to the engine's hooks:
// botgw_optouts_total{action="stop|start"} and
// botgw_proactive_kept_total{outcome="skipped_opted_out"}.
func consentMetrics(m *metrics.Metrics, h convo.Hooks) convo.Hooks {
	optouts := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "botgw_optouts_total",
		Help: "Players who opted out of proactive messages (stop) or back in (start)."}, []string{"action"})
	kept := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "botgw_proactive_kept_total",
		Help: "Proactive messages (broadcasts, replies to events with respond, operator messages) the consent rules kept from a player, by outcome: skipped_opted_out."}, []string{"outcome"})
	m.Registry().MustRegister(optouts, kept)
	h.OptOut = func(action string) { optouts.WithLabelValues(action).Inc() }
	h.Proactive = func(outcome string) { kept.WithLabelValues(outcome).Inc() }
	return h
}
