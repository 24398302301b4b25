package whatsapp

import (
	"context"
	"testing"

	"go.mau.fi/whatsmeow/types"
	"go.mau.fi/whatsmeow/types/events"

	"github.com/botgw/botgw"
)

// A player's phone asks for a reply again (a retry receipt) after the
// gateway restarted or moved to another replica: whatsmeow's in-memory
// cache of sends is empty (as on this client, whose sends never filled
// it), and its GetMessageForRetry finds the reply in the delivery records
// in Redis.
func TestRealClientAnswersRetryReceiptFromDeliveryRecords(t *testing.T) {
	a, rc, logs := realConnected(t)
	m := botgw.Outbound{Chat: botgw.ChatKey{Channel: Name, ID: alicePN.String()}, ID: "r1", Text: "The bridge is 200 m north"}
	if err := a.Send(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	receipt := &events.Receipt{MessageSource: types.MessageSource{Chat: alicePN, Sender: alicePN}}
	msg, err := rc.internals().GetMessageForRetry(context.Background(), receipt, messageID(m, 0))
	if err != nil || msg.IsEmpty() {
		t.Fatalf("retry receipt unanswerable: %v\n%s", err, logs)
	}
	if got := a.messageForRetry(alicePN, alicePN, messageID(m, 0)); got.GetConversation() != m.Text {
		t.Errorf("record %q, want the reply's text", got.GetConversation())
	}
	if _, err := rc.internals().GetMessageForRetry(context.Background(), receipt, "3EB0UNKNOWN"); err == nil {
		t.Error("a message never sent was found")
	}
}
