package guard

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/botgw/botgw"
)

// IngressWait is the longest an HTTP request waits on Redis for one step
// (storing its input, checking a client's limit or a signature's replay)
// before it is answered 503, so a platform retries instead of timing out
// while Redis stalls. It stays under Slack's 3-second acknowledgement
// deadline, and a request makes at most two such steps.
const IngressWait = 2 * time.Second

// ErrStalled is a store that did not answer within IngressWait. What was
// being stored may still land once Redis answers; every input carries an
// id, so the client's retry is deduplicated.
var ErrStalled = errors.New("the store did not answer in time")

// Bound runs fn and waits for it at most d. When d passes first it
// returns ErrStalled and leaves fn to finish on its own: fn gets a context
// that outlives the request by d, so a command already sent can still
// complete (the retry then finds it stored) and none runs for long.
func Bound[T any](ctx context.Context, d time.Duration, fn func(context.Context) (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), d)
	go func() {
		defer cancel()
		v, err := fn(fctx)
		done <- result{v, err}
	}()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case r := <-done:
		return r.v, r.err
	case <-t.C:
		var zero T
		return zero, fmt.Errorf("wait %s: %w", d, ErrStalled)
	case <-ctx.Done():
		var zero T
		return zero, fmt.Errorf("wait for the store: %w", ctx.Err())
	}
}

// Within bounds deliver's wait on the store to d (IngressWait when 0).
func Within(d time.Duration, deliver botgw.Deliver) botgw.Deliver {
	if d <= 0 {
		d = IngressWait
	}
	return func(ctx context.Context, in botgw.Inbound) error {
		_, err := Bound(ctx, d, func(ctx context.Context) (struct{}, error) {
			return struct{}{}, deliver(ctx, in)
		})
		if err != nil {
			return fmt.Errorf("store input %s: %w", in.ID, err)
		}
		return nil
	}
}
