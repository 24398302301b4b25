package whatsapp

import (
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"
	"go.mau.fi/whatsmeow/types"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/state/ratelimit"
)

// budgeted is an adapter connected to a timed client, on synctest's clock.
func budgeted(t *testing.T, cfg Config) (*Adapter, *timedClient) {
	cli := &timedClient{fakeClient: newFakeClient(), composing: map[types.JID]time.Time{}}
	a, _ := testAdapter(cfg, nil, nil)
	a.setCurrent(cli)
	a.state.update(func(s *State) { s.JID = botPN.String() })
	return a, cli
}

func chatN(i int) botgw.ChatKey {
	return botgw.ChatKey{Channel: Name, ID: fmt.Sprintf("4477009002%02d@s.whatsapp.net", i)}
}

// With daily_cap: 3, the fourth message of the day waits for the next UTC
// day instead of going out (or being dropped), and goes then.
func TestDailyCapWaitsForTheNextDay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a, cli := budgeted(t, Config{DailyCap: 3, TypingDelay: "0"})
		a.wait = sleep // synctest's clock
		start := time.Now()
		for i := range 4 {
			if err := a.Send(t.Context(), botgw.Outbound{Chat: chatN(i), ID: fmt.Sprint("r", i), Text: "hello"}); err != nil {
				t.Fatal(err)
			}
		}
		midnight := start.UTC().Truncate(24 * time.Hour).Add(24 * time.Hour)
		cli.mu.Lock()
		defer cli.mu.Unlock()
		if len(cli.sends) != 4 || cli.sends[2].After(start.Add(time.Second)) || cli.sends[3].Before(midnight) {
			t.Fatalf("sent at %v, want three at once and the fourth after %v", cli.sends, midnight)
		}
		if s := a.Status().(State); s.SentToday != 1 || s.DailyCap != 3 {
			t.Errorf("status shows %d of %d sent today, want 1 of 3", s.SentToday, s.DailyCap)
		}
		if n := a.EventCounts()["daily_cap_reached"]; n != 1 {
			t.Errorf("daily_cap_reached %d, want 1", n)
		}
	})
}

// Chats whose player never wrote first (broadcast targets) go at the cold
// rate (2 a minute here); chats whose player wrote go at the number's rate
// (20 a minute), even right after the cold ones.
func TestColdChatsGoSlowerThanChatsThePlayerStarted(t *testing.T) {
	m := miniredis.RunT(t)
	synctest.Test(t, func(t *testing.T) {
		rdb := redis.NewClient(&redis.Options{Addr: m.Addr()})
		rdb.AddHook(clockHook{m})
		defer rdb.Close()
		a, cli := budgeted(t, Config{RatePerMinute: 20, ColdRatePerMinute: 2, TypingDelay: "0"})
		a.pacer = ratelimit.New(rdb, ratelimit.Sends("test"), nil)
		for i := 3; i < 6; i++ { // these players wrote first
			a.noteWrote(t.Context(), botgw.Inbound{Chat: chatN(i), Kind: botgw.KindText})
		}
		for i := range 6 {
			if err := a.Send(t.Context(), botgw.Outbound{Chat: chatN(i), ID: fmt.Sprint("r", i), Text: "hello"}); err != nil {
				t.Fatal(err)
			}
		}
		cli.mu.Lock()
		defer cli.mu.Unlock()
		for i := 1; i < 3; i++ {
			if gap := cli.sends[i].Sub(cli.sends[i-1]); gap < 30*time.Second {
				t.Errorf("cold message %d sent %v after the one before, want ≥ 30s (2 a minute)", i+1, gap)
			}
		}
		for i := 4; i < 6; i++ {
			if gap := cli.sends[i].Sub(cli.sends[i-1]); gap > 3*time.Second+time.Millisecond {
				t.Errorf("message %d to a player who wrote first waited %v, want the number's rate (3s)", i+1, gap)
			}
		}
	})
}
