package whatsapp

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"go.mau.fi/whatsmeow"
)

// errConnectTimeout is a connect attempt that got no answer in time.
var errConnectTimeout = errors.New("no answer from WhatsApp (is the network down or the proxy unreachable?)")

type connector interface {
	ConnectContext(ctx context.Context) error
}

// dial connects cli, giving up after limit. whatsmeow ties the live
// connection to the context it connected with, so the attempt's context
// cannot simply time out: a timer cancels it only while connecting. stop
// ends the connection's context; call it once done with the connection.
func dial(ctx context.Context, cli connector, limit time.Duration) (stop context.CancelFunc, err error) {
	cctx, cancel := context.WithCancelCause(ctx)
	timer := time.AfterFunc(limit, func() { cancel(errConnectTimeout) })
	err = cli.ConnectContext(cctx)
	if errors.Is(err, whatsmeow.ErrAlreadyConnected) {
		err = nil
	}
	if timer.Stop() && err == nil {
		return func() { cancel(nil) }, nil
	}
	cancel(nil)
	if errors.Is(context.Cause(cctx), errConnectTimeout) {
		return nil, fmt.Errorf("connect to WhatsApp within %v: %w", limit, errConnectTimeout)
	}
	return nil, fmt.Errorf("connect to WhatsApp: %w", err)
}

// backoff is the wait before reconnect attempt n (1-based): lo doubled per
// attempt, capped at hi, with jitter drawn from its upper half so replicas
// and restarts do not reconnect in lockstep.
func backoff(lo, hi time.Duration, n int) time.Duration {
	d := lo
	for i := 1; i < n && d < hi; i++ {
		d *= 2
	}
	d = min(d, hi)
	half := d / 2
	if half <= 0 {
		return d
	}
	return half + rand.N(half+1)
}
