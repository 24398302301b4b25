//go:build nowhatsapp

package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/channels/pace"
	"github.com/botgw/botgw/state"
)

// This binary was built with -tags nowhatsapp: no whatsmeow, so no
// GPL-3.0 libsignal (see README, "Licensing").
var errNoWhatsApp = errors.New("this botgw was built without WhatsApp (-tags nowhatsapp)")

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
	TypingDelay   string        `yaml:"typing_delay"`
}

func validateWhatsApp(*whatsappConfig) error {
	return errors.New("channels.whatsapp: " + errNoWhatsApp.Error())
}

func buildWhatsApp(context.Context, *whatsappConfig, []string, *state.Store, *pace.Pacer, *slog.Logger) (botgw.Channel, error) {
	return nil, errNoWhatsApp
}

func cmdWhatsApp(context.Context, []string, io.Writer, io.Writer) error { return errNoWhatsApp }
