package botgw

import (
	"context"
	"errors"
	"time"
)

// ErrOptedOut is why a proactive message was not sent: the player asked
// not to be messaged (docs/operating.md, "Players who don't want to be
// messaged").
var ErrOptedOut = errors.New("the player opted out of proactive messages")

// OptOuts keeps which chats asked not to be messaged, apart from their
// conversation: a reset or an expiry of the state keeps it. Optional: a
// Store that keeps them implements it. Every method is safe for concurrent
// use and takes one Redis round trip.
type OptOuts interface {
	// OptOut records that chat k opted out at at; a chat already opted out
	// keeps its first time. It reports whether the chat was opted in.
	OptOut(ctx context.Context, k ChatKey, at time.Time) (bool, error)
	// OptIn lifts the opt-out; it reports whether there was one.
	OptIn(ctx context.Context, k ChatKey) (bool, error)
	// OptedOut returns when chat k opted out; zero when it did not.
	OptedOut(ctx context.Context, k ChatKey) (time.Time, error)
	// OptedOutChats lists up to n opted-out chats, oldest opt-out first,
	// from offset.
	OptedOutChats(ctx context.Context, offset, n int) ([]ChatKey, error)
}
