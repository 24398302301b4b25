//go:build !nowhatsapp

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/channels/pace"
	"github.com/botgw/botgw/channels/whatsapp"
	"github.com/botgw/botgw/state"
)

type whatsappConfig = whatsapp.Config

func validateWhatsApp(c *whatsappConfig) error { return c.Validate() }

// buildWhatsApp builds the channel on the shared store: the session lease,
// the pinned chat keys of users, the number's hold and budgets, the write
// probe and dead letters for input that can never be stored, and the
// operators' numbers.
func buildWhatsApp(ctx context.Context, c *whatsappConfig, operators []string, st *state.Store, p *pace.Pacer, log *slog.Logger) (botgw.Channel, error) {
	return whatsapp.New(ctx, *c, st.Leases(), log, whatsapp.WithAliases(st.Aliases()), whatsapp.WithOperators(operators),
		whatsapp.WithPacer(p), whatsapp.WithRedis(st.Client(), st.KeyPrefix()), whatsapp.WithStoreProbe(st.Writable),
		whatsapp.WithDeadLetters(st))
}

func cmdWhatsApp(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f := newFlags("whatsapp link", stderr)
	phone := f.fs.String("phone", "", "link with a pairing code for this phone number instead of a QR code")
	pos, err := f.parse(args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || pos[0] != "link" {
		return errors.New("usage: botgw whatsapp link -config FILE [-phone NUMBER]")
	}
	cfg, err := f.load()
	if err != nil {
		return err
	}
	if cfg.Channels.WhatsApp == nil {
		return fmt.Errorf("%s: channels.whatsapp is not configured", f.config)
	}
	log := newLogger(cfg.Log, stderr)
	st, err := state.Open(ctx, cfg.Redis, cfg.storeOptions(), log)
	if err != nil {
		return fmt.Errorf("open store: %w", err)
	}
	defer st.Close()
	return whatsapp.Link(ctx, *cfg.Channels.WhatsApp, st.Leases(), *phone, stdout, log)
}
