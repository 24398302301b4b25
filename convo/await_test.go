package convo

import (
	"context"
	"errors"
	"testing"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/internal/wait"
)

// settled waits until chat k has no pending input and no undelivered reply.
// From then on nothing more can be sent for it (a reply is sent only from the
// outbox, and removed from it only after it was sent), so a test can count
// what was sent without waiting for something to not happen.
func settled(t *testing.T, st botgw.Store, k botgw.ChatKey) {
	t.Helper()
	wait.Eventually(t, "the condition", func() bool {
		info, err := st.Info(context.Background(), k)
		return err == nil && info.Pending == 0 && info.Outbox == 0 && info.Version > 0
	})
}

// expired waits until chat k's state is gone from the store.
func expired(t *testing.T, st botgw.Store, k botgw.ChatKey) {
	t.Helper()
	wait.Eventually(t, "the condition", func() bool {
		_, err := st.Info(context.Background(), k)
		return errors.Is(err, botgw.ErrNotFound)
	})
}
