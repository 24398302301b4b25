package whatsapp

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/internal/fakeclock"
	"github.com/botgw/botgw/internal/wait"
)

// A broadcast to 2,000 people who never wrote to the number: at most
// cold_daily_cap of them get their message each UTC day (fake clock),
// the rest wait for the next day and none of the sends fails, so the
// engine dead-letters nothing; the status shows the day's count and the
// waiting sends.
func TestColdBroadcastWaitsForTheNextDay(t *testing.T) {
	const players, capPerDay = 2000, 30
	a, f, _, _ := connected(t, Config{ColdDailyCap: capPerDay})
	fc := fakeclock.New(time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC))
	a.clock, a.wait = fc.Now, clockWait(fc)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { // the fake's call log is bounded: drain it
		for {
			select {
			case <-f.calls:
			case <-ctx.Done():
				return
			}
		}
	}()
	var wg sync.WaitGroup
	errs := make(chan error, players)
	for i := range players {
		wg.Go(func() {
			k := botgw.ChatKey{Channel: Name, ID: fmt.Sprintf("4477%08d@s.whatsapp.net", i)}
			if err := a.Send(ctx, botgw.Outbound{Chat: k, ID: fmt.Sprintf("bc-%d", i), Text: "The final round starts in 10 minutes"}); err != nil && ctx.Err() == nil {
				errs <- err
			}
		})
	}
	t.Cleanup(func() { cancel(); wg.Wait() })
	for day := 1; day <= 2; day++ {
		wait.Eventually(t, fmt.Sprintf("day %d's cap sent, the rest waiting", day), func() bool {
			return a.Waiting()[waitCold] == players-day*capPerDay && len(f.sentTexts()) == day*capPerDay
		})
		s := a.Status().(State)
		if s.ColdToday != capPerDay || s.ColdDailyCap != capPerDay {
			t.Errorf("day %d: status cold %d of %d, want %d of %d", day, s.ColdToday, s.ColdDailyCap, capPerDay, capPerDay)
		}
		fc.Advance(24 * time.Hour)
	}
	select {
	case err := <-errs:
		t.Fatalf("a send failed instead of waiting: %v", err)
	default:
	}
}
