package convo

import (
	"context"
	"sync"
	"time"

	"github.com/botgw/botgw"
)

// typingDelay is how long a turn runs before the channel shows the typing
// indicator. A reply that is ready sooner goes out without one: the
// indicator would only flash, and it costs a platform call per turn
// (counted against the platform's rate limits).
const typingDelay = 300 * time.Millisecond

// startTyping shows t's typing indicator for in's chat once typingDelay has
// passed, until the returned stop is called.
func startTyping(ctx context.Context, t botgw.Typer, in botgw.Inbound) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	var (
		mu         sync.Mutex
		stopTyping func()
	)
	timer := time.AfterFunc(typingDelay, func() {
		mu.Lock()
		defer mu.Unlock()
		if ctx.Err() == nil {
			stopTyping = t.StartTyping(ctx, in)
		}
	})
	return func() {
		timer.Stop()
		cancel()
		mu.Lock()
		defer mu.Unlock()
		if stopTyping != nil {
			stopTyping()
		}
	}
}
