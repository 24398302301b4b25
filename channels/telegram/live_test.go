package telegram

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/botgw/botgw/channels/channeltest"
)

// Two live-location positions within the same second are two updates of
// one message with one edit_date: the webhook stores both (deduplicated by
// update_id), so the newest position is not dropped, and a redelivered
// update is still stored once.
func TestWebhookStoresEveryLivePositionOnce(t *testing.T) {
	ta := newTestAdapter(t, Config{}, "")
	rec := &channeltest.Store{}
	h := webhookOf(t, ta, rec)
	update := func(id int64, lat float64) []byte {
		return fmt.Appendf(nil, `{"update_id": %d, "edited_message": {"message_id": 1352,
 "from": {"id": 123456789, "is_bot": false, "first_name": "Ada"},
 "chat": {"id": 123456789, "first_name": "Ada", "type": "private"},
 "date": 1732271020, "edit_date": 1732271080,
 "location": {"latitude": %v, "longitude": -1.54012, "live_period": 900}}}`, id, lat)
	}
	for _, body := range [][]byte{update(745632123, 53.99301), update(745632124, 53.99355), update(745632124, 53.99355)} {
		if w := post(t, h, testSecret, body); w.Code != http.StatusOK {
			t.Fatalf("status %d, want 200", w.Code)
		}
	}
	stored := rec.Stored()
	if len(stored) != 2 || stored[1].Location == nil || stored[1].Location.Latitude != 53.99355 {
		t.Fatalf("stored %+v, want both positions once each, the newest last", stored)
	}
}
