//go:build !nowhatsapp

package gateway

import (
	"context"
	"log/slog"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/channels/whatsapp"
	"github.com/botgw/botgw/state"
	"github.com/botgw/botgw/state/ratelimit"
)

type whatsappConfig = whatsapp.Config

func validateWhatsApp(c *whatsappConfig) error { return c.Validate() }

// buildWhatsApp builds the channel on the shared store: the session lease,
// the pinned chat keys of users, the number's hold and budgets, the write
// probe and dead letters for input that can never be stored, and the
// operators' numbers.
func buildWhatsApp(ctx context.Context, c *whatsappConfig, operators []string, st *state.Store, p *ratelimit.Limiter, log *slog.Logger) (botgw.Channel, error) {
	return whatsapp.New(ctx, *c, st.Leases(), log, whatsapp.WithAliases(st.Aliases()), whatsapp.WithOperators(operators),
		whatsapp.WithPacer(p), whatsapp.WithRedis(st.Client(), st.KeyPrefix()), whatsapp.WithStoreProbe(st.Writable),
		whatsapp.WithDeadLetters(st))
}
