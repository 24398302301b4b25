//go:build !nowhatsapp

package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/botgw/botgw/channels/whatsapp"
	"github.com/botgw/botgw/cmd/botgw/gateway"
	"github.com/botgw/botgw/state"
)

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
	log := gateway.NewLogger(cfg.Log, stderr)
	st, err := state.Open(ctx, cfg.Redis, cfg.StoreOptions(), log)
	if err != nil {
		return fmt.Errorf("open store: %w", err)
	}
	defer st.Close()
	return whatsapp.Link(ctx, *cfg.Channels.WhatsApp, st.Leases(), *phone, stdout, log)
}
