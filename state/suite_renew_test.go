package state

import (
	"errors"
	"testing"
	"time"

	"github.com/botgw/botgw"
)

// testRenewLeases: one call renews every lease its caller still holds and
// names the ones it lost, leaving another holder's lease with that holder.
func testRenewLeases(t *testing.T, h *harness) {
	held, taken, gone := chat("renew-held"), chat("renew-taken"), chat("renew-gone")
	mine := mustBegin(t, h, held, "")
	stale := mustBegin(t, h, taken, "")
	h.advance(suiteOpts.LeaseTTL + 50*time.Millisecond) // every lease expires
	mine = mustBegin(t, h, held, mine.Lease)            // taken again under the same token
	other := mustBegin(t, h, taken, "")                 // another worker took this one
	h.advance(suiteOpts.LeaseTTL * 2 / 3)

	errs := h.s.RenewLeases(t.Context(), []botgw.ChatKey{held, taken, gone}, []string{mine.Lease, stale.Lease, "never-held"})
	if errs[0] != nil {
		t.Errorf("renewing a held lease: %v", errs[0])
	}
	for i, k := range []botgw.ChatKey{taken, gone} {
		if !errors.Is(errs[i+1], botgw.ErrLeaseLost) {
			t.Errorf("renewing the lost lease of %s = %v, want ErrLeaseLost", k, errs[i+1])
		}
	}
	if _, err := h.s.Begin(t.Context(), taken, stale.Lease); !errors.Is(err, botgw.ErrBusy) {
		t.Errorf("Begin under the stale token after its renewal = %v, want ErrBusy (the lease is the other's)", err)
	}
	if again := mustBegin(t, h, taken, other.Lease); again.Lease != other.Lease {
		t.Errorf("the other holder's lease = %q, want %q", again.Lease, other.Lease)
	}
	if _, err := h.s.Begin(t.Context(), gone, ""); err != nil {
		t.Errorf("Begin on a chat nobody holds after a failed renewal = %v, want its lease", err)
	}
	h.advance(suiteOpts.LeaseTTL * 2 / 3) // past the leases' first expiry, within the renewed one
	if _, err := h.s.Begin(t.Context(), held, ""); !errors.Is(err, botgw.ErrBusy) {
		t.Errorf("Begin by another past the lease's first expiry, within its renewal = %v, want ErrBusy", err)
	}
}
