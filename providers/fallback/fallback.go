// Package fallback chains two providers: when the primary fails, the
// secondary answers the same request.
package fallback

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"

	"github.com/botgw/botgw"
)

var _ botgw.Provider = (*Provider)(nil)

// Provider tries a primary provider, then a secondary. It is safe for
// concurrent use when both members are.
type Provider struct {
	primary, secondary botgw.Provider
	log                *slog.Logger
}

// New chains primary and secondary. log may be nil.
func New(primary, secondary botgw.Provider, log *slog.Logger) *Provider {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Provider{primary: primary, secondary: secondary, log: log}
}

// ID is the primary's ID: a chat's state stays locked to it whichever
// member answered.
func (p *Provider) ID() string { return p.primary.ID() }

// Complete asks the primary and, on any error while ctx is still live, the
// secondary. Reply.Provider names the member that answered. When both fail
// the error is the secondary's (it decides whether a retry may help),
// annotated with the primary's.
func (p *Provider) Complete(ctx context.Context, req botgw.Request) (botgw.Reply, error) {
	reply, err := p.primary.Complete(ctx, req)
	if err == nil {
		reply.Provider = cmp.Or(reply.Provider, p.primary.ID())
		return reply, nil
	}
	if ctx.Err() != nil {
		return botgw.Reply{}, err // cancelled or out of time: nothing to fail over to
	}
	p.log.Warn("provider failed, trying fallback",
		"provider", p.primary.ID(), "fallback", p.secondary.ID(), "err", err)
	reply, err2 := p.secondary.Complete(ctx, req)
	if err2 != nil {
		return botgw.Reply{}, fmt.Errorf("%w (after %s failed: %v)", err2, p.primary.ID(), err)
	}
	reply.Provider = cmp.Or(reply.Provider, p.secondary.ID())
	return reply, nil
}
