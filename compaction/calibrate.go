package compaction

import "github.com/botgw/botgw"

// budget scales maxTokens by what the provider reported for the previous
// request against our estimate of it (botgw.UsageHint): if the provider
// counted 30 % more tokens than we did, the budget in our units shrinks by
// that much. It only ever shrinks the budget (an estimate that over-counts
// wastes a little context; one that under-counts overflows it), and by at
// most half, so one odd report cannot starve a history.
func budget(h botgw.UsageHint, maxTokens int) int {
	if !h.Usable() {
		return maxTokens
	}
	ratio := min(max(float64(h.Reported)/float64(h.Estimated), 1), 2)
	return int(float64(maxTokens) / ratio)
}
