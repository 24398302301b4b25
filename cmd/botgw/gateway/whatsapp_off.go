//go:build nowhatsapp

package gateway

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/state"
	"github.com/botgw/botgw/state/ratelimit"
)

// This binary was built with -tags nowhatsapp: no whatsmeow, so no
// GPL-3.0 libsignal (see README, "Licensing").
var ErrNoWhatsApp = errors.New("this botgw was built without WhatsApp (-tags nowhatsapp)")

type whatsappConfig struct {
	Store         string        `yaml:"store"`
	GroupTrigger  string        `yaml:"group_trigger"`
	LeaseTTL      time.Duration `yaml:"lease_ttl"`
	Proxy         string        `yaml:"proxy"`
	MaxBacklog    time.Duration `yaml:"max_backlog_age"`
	Backlog       string        `yaml:"backlog"`
	RatePerMinute float64       `yaml:"rate_per_minute"`
	DailyCap      int           `yaml:"daily_cap"`
	ColdRate      float64       `yaml:"cold_rate_per_minute"`
	ColdDailyCap  int           `yaml:"cold_daily_cap"`
	DeviceName    string        `yaml:"device_name"`
	TypingDelay   string        `yaml:"typing_delay"`
}

func validateWhatsApp(*whatsappConfig) error {
	return errors.New("channels.whatsapp: " + ErrNoWhatsApp.Error())
}

func buildWhatsApp(context.Context, *whatsappConfig, []string, *state.Store, *ratelimit.Limiter, *slog.Logger) (botgw.Channel, error) {
	return nil, ErrNoWhatsApp
}
