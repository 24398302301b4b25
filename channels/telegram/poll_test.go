package telegram

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/channels/channeltest"
)

// listen runs the polling channel until the test ends it with the returned
// stop, which also returns Listen's error.
func listen(t *testing.T, ta *testAdapter, deliver botgw.Deliver) (stop func() error) {
	t.Helper()
	l, ok := ta.ch.(botgw.Listener)
	if !ok {
		t.Fatal("polling mode channel is not a botgw.Listener")
	}
	ctx, cancel := context.WithCancel(t.Context())
	var err error
	var wg sync.WaitGroup
	wg.Go(func() { err = l.Listen(ctx, deliver) })
	return func() error {
		cancel()
		wg.Wait()
		return err
	}
}

func TestPollingDeliversAndConfirms(t *testing.T) {
	ta := newTestAdapter(t, Config{Mode: ModePolling}, "")
	rec := &channeltest.Store{}
	ta.api.PushUpdates(readSample(t, "private_text.json"), readSample(t, "edited_message.json"), readSample(t, "photo_no_caption.json"))
	stop := listen(t, ta, rec.Deliver)
	// The poll after the batch confirms it: its offset is past the last update.
	ta.api.WaitFor(func() bool { return hasOffset(ta.api.CallsTo("getUpdates"), "745632111") })
	if err := stop(); err != nil {
		t.Errorf("Listen returned %v after ctx ended, want nil", err)
	}
	stored := rec.Stored()
	if len(stored) != 2 || stored[0].ID != "1337" || stored[1].Media == nil || stored[1].Media.Kind != botgw.MediaPhoto {
		t.Errorf("stored %+v, want the text then the photo (the edit ignored)", stored)
	}
	var order []string
	for _, c := range ta.api.Calls() {
		if c.Method == "deleteWebhook" || c.Method == "getUpdates" {
			order = append(order, c.Method)
		}
	}
	if order[0] != "deleteWebhook" {
		t.Errorf("polling did not start with deleteWebhook: %v", order)
	}
}

// When deliver cannot store an update, the poller does not confirm it and
// tries the same update again.
func TestPollingRetriesUndeliveredUpdate(t *testing.T) {
	ta := newTestAdapter(t, Config{Mode: ModePolling}, "")
	var mu sync.Mutex
	fails := 1
	rec := &channeltest.Store{}
	deliver := func(ctx context.Context, in botgw.Inbound) error {
		mu.Lock()
		defer mu.Unlock()
		if fails > 0 {
			fails--
			return errors.New("redis down")
		}
		return rec.Deliver(ctx, in)
	}
	ta.api.PushUpdates(readSample(t, "private_text.json"))
	stop := listen(t, ta, deliver)
	ta.api.WaitFor(func() bool { return hasOffset(ta.api.CallsTo("getUpdates"), "745632102") })
	_ = stop()
	polls := ta.api.CallsTo("getUpdates")
	if polls[0].Params["offset"] != "0" || polls[1].Params["offset"] != "0" {
		t.Errorf("offsets %s, %s: the failed update was confirmed", polls[0].Params["offset"], polls[1].Params["offset"])
	}
	if stored := rec.Stored(); len(stored) != 1 {
		t.Errorf("stored %d messages after the retry, want 1", len(stored))
	}
	if len(ta.slept) == 0 {
		t.Error("no backoff after a failed delivery")
	}
}

func TestPollingHealth(t *testing.T) {
	ta := newTestAdapter(t, Config{Mode: ModePolling}, "")
	h := ta.ch.(botgw.Health)
	ta.api.Script("getUpdates", channeltest.Reply{Status: 409, Body: `{"ok":false,"error_code":409,"description":"Conflict: terminated by other getUpdates request; make sure that only one bot instance is running"}`})
	var during error
	ta.sleep = func(ctx context.Context, _ time.Duration) error {
		during = h.Health() // the poller backs off after the failure
		return ctx.Err()
	}
	ta.api.PushUpdates(readSample(t, "private_text.json"))
	stop := listen(t, ta, (&channeltest.Store{}).Deliver)
	ta.api.WaitFor(func() bool { return hasOffset(ta.api.CallsTo("getUpdates"), "745632102") })
	_ = stop()
	if during == nil || !strings.Contains(during.Error(), "409 Conflict") {
		t.Errorf("Health during the conflict = %v, want the 409", during)
	}
	if err := h.Health(); err != nil {
		t.Errorf("Health after a good poll = %v, want nil", err)
	}
}

func hasOffset(calls []channeltest.APICall, offset string) bool {
	for _, c := range calls {
		if c.Params["offset"] == offset {
			return true
		}
	}
	return false
}
