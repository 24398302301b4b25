package broadcast

import (
	"context"
	"time"

	"github.com/botgw/botgw"
)

// Store keeps broadcasts: the definition and chat list, a cursor over the
// list leased to one replica at a time, and each item's outcome
// (state.Store.Broadcasts in production). Every method is safe for
// concurrent use.
type Store interface {
	// Create stores bc unless a broadcast with its id exists; created
	// reports which, total is the stored broadcast's chat count.
	Create(ctx context.Context, bc botgw.Broadcast) (created bool, total int, err error)
	// Get reads a broadcast; botgw.ErrNotFound if there is none.
	Get(ctx context.Context, id string) (botgw.BroadcastInfo, error)
	// Chats returns up to n chat keys from position from.
	Chats(ctx context.Context, id string, from, n int) ([]string, error)
	// Running lists the ids of the broadcasts still running.
	Running(ctx context.Context) ([]string, error)
	// Mark records item index's outcome (done, failed or cancelled).
	Mark(ctx context.Context, id string, index int, outcome string) error
	// Cancel stops a broadcast; Finish marks one whose items all settled.
	Cancel(ctx context.Context, id string) error
	Finish(ctx context.Context, id string) error
	// Lease takes (or keeps) the broadcast's cursor for token for ttl;
	// Advance moves the cursor under it; Unlease gives it back.
	Lease(ctx context.Context, id, token string, ttl time.Duration) (bool, error)
	Advance(ctx context.Context, id, token string, cursor int) error
	Unlease(ctx context.Context, id, token string) error
}
