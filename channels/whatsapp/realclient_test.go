package whatsapp

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mau.fi/whatsmeow"
	waBinary "go.mau.fi/whatsmeow/binary"
	"go.mau.fi/whatsmeow/proto/waAdv"
	"go.mau.fi/whatsmeow/proto/waE2E"
	"go.mau.fi/whatsmeow/store/sqlstore"
	"go.mau.fi/whatsmeow/types"
	"google.golang.org/protobuf/proto"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/channels/channeltest"
	"github.com/botgw/botgw/internal/syncbuf"
)

// realClient is whatsmeow's own *Client on a real device store with only
// the network replaced: connecting flips a flag instead of dialling. What
// a server would send is fed to whatsmeow's own node handlers
// (DangerousInternals), so the events, their order and their dispatch —
// and what a handler's answer means for the ack — are whatsmeow's, not a
// fake's.
type realClient struct {
	waClient
	mu    sync.Mutex
	up    bool
	calls chan string
	phone *mediaPhone // answers media retry receipts; nil: whatsmeow's own
	sent  sentLog     // what the adapter sent (the socket is the test's)
}

// SendMessage records m as sent: the socket is the test's.
func (r *realClient) SendMessage(_ context.Context, to types.JID, m *waE2E.Message, _ ...whatsmeow.SendRequestExtra) (whatsmeow.SendResponse, error) {
	r.sent.add(to, m)
	return whatsmeow.SendResponse{}, nil
}

func (r *realClient) ConnectContext(context.Context) error {
	r.mu.Lock()
	r.up = true
	r.mu.Unlock()
	r.calls <- "connect"
	return nil
}

func (r *realClient) Disconnect() {
	r.mu.Lock()
	r.up = false
	r.mu.Unlock()
	r.calls <- "disconnect"
}

func (r *realClient) IsConnected() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.up
}

func (r *realClient) waitCall(t *testing.T, call string) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case c := <-r.calls:
			if c == call {
				return
			}
		case <-timeout:
			t.Fatalf("client never got %q", call)
		}
	}
}

func (r *realClient) internals() *whatsmeow.DangerousInternalClient {
	return r.Client.DangerousInternals()
}

// realConnected runs an adapter on a real whatsmeow client, linked as
// botPN, through its first login (whatsmeow's own <success> handling,
// which marks it logged in and dispatches Connected).
func realConnected(t *testing.T) (*Adapter, *realClient, *syncbuf.Buffer) {
	t.Helper()
	cli := testClient(t, linkConfig(t, ""))
	cli.Store.ID = &types.JID{User: botPN.User, Device: 7, Server: types.DefaultUserServer}
	cli.Store.Account = &waAdv.ADVSignedDeviceIdentity{Details: []byte{1}, AccountSignature: make([]byte, 64), AccountSignatureKey: make([]byte, 32), DeviceSignature: make([]byte, 64)}
	if err := cli.Store.Save(context.Background()); err != nil { // linked: the store's LID map and sessions exist
		t.Fatal(err)
	}
	rc := &realClient{waClient: waClient{cli}, calls: make(chan string, 100)}
	a, logs := testAdapter(Config{}, newMemLease(), func(ctx context.Context) (client, error) {
		if devs, err := cli.Store.Container.(*sqlstore.Container).GetAllDevices(ctx); err != nil || len(devs) == 0 {
			return nil, errNotLinked // as linkedClient: the store lost the device
		}
		return rc, nil
	})
	cli.Log = waLogger(a.log, "Client") // whatsmeow's own errors (a handler's panic) in the test's log
	listen(t, a, (&channeltest.Store{}).Deliver)
	rc.waitCall(t, "connect")
	rc.internals().HandleConnectSuccess(context.Background(), &waBinary.Node{Tag: "success"}) // logs in, then dispatches Connected
	waitState(t, a, StateConnected)
	return a, rc, logs
}

// A stream:error with conflict type "replaced" (what the server sends when
// another client logs in with the same keys) parks the session: whatsmeow
// turns it into StreamReplaced and does not reconnect; neither does the
// adapter, however long it waits.
func TestRealClientStreamReplacedStaysOff(t *testing.T) {
	a, rc, logs := realConnected(t)
	polled := make(chan struct{}, 1000)
	a.tm.resumePoll = 3 * time.Millisecond
	sleepFor := a.wait
	a.wait = func(ctx context.Context, d time.Duration) bool {
		if d == 3*time.Millisecond {
			polled <- struct{}{}
		}
		return sleepFor(ctx, d)
	}
	conflict := waBinary.Node{Tag: "stream:error", Content: []waBinary.Node{{Tag: "conflict", Attrs: waBinary.Attrs{"type": "replaced"}}}}
	rc.internals().HandleStreamError(context.Background(), &conflict)
	rc.waitCall(t, "disconnect")
	waitState(t, a, StateReplaced)
	for range 20 {
		<-polled
	}
	if rc.IsConnected() {
		t.Fatal("connected again while another client holds the keys")
	}
	if !strings.Contains(a.State().Detail, "own keys") || strings.Contains(logs.String(), "Settings → Linked devices)") {
		t.Errorf("alert %q does not name the real causes", a.State().Detail)
	}
}

// A connect failure with reason 402 (temporarily banned, code 101, expiry
// in seconds) becomes whatsmeow's TemporaryBan: the number is held for the
// ban's length on every replica, and the session waits it out.
func TestRealClientTemporaryBanHoldsTheNumber(t *testing.T) {
	a, rc, _ := realConnected(t)
	failure := waBinary.Node{Tag: "failure", Attrs: waBinary.Attrs{"reason": "402", "code": "101", "expire": "3600"}}
	start := time.Now()
	rc.internals().HandleConnectFailure(context.Background(), &failure)
	waitState(t, a, StateBanned)
	s := a.Status().(State)
	if s.Hold == nil || s.Hold.Code != 101 || s.Hold.Until.Before(start.Add(time.Hour)) || s.Hold.Until.After(time.Now().Add(time.Hour)) {
		t.Fatalf("hold %+v, want ban 101 for an hour", s.Hold)
	}
	if !strings.Contains(s.Hold.Reason, "address books") {
		t.Errorf("hold reason %q does not say why WhatsApp banned the number", s.Hold.Reason)
	}
}

// whatsmeow acks a message only when the handler reports success: a message
// the store refused makes handleDecryptedMessage report failure (so
// whatsmeow returns before the ack, message.go), a stored one success. The
// message arrives wrapped as a disappearing message; whatsmeow unwraps it
// before the adapter sees it.
func TestRealClientAcksOnlyStoredMessages(t *testing.T) {
	a, rc, logs := realConnected(t)
	d := &flaky{fails: 1 << 30}
	a.mu.Lock()
	a.deliver = d.deliver
	a.mu.Unlock()
	info := types.MessageInfo{MessageSource: types.MessageSource{Chat: alicePN, Sender: alicePN}, ID: "3EB0AA", Timestamp: time.Now()}
	msg := &waE2E.Message{EphemeralMessage: &waE2E.FutureProofMessage{Message: &waE2E.Message{Conversation: proto.String("hi there")}}}
	if failed := rc.internals().HandleDecryptedMessage(context.Background(), &info, msg, 0); !failed {
		t.Fatalf("whatsmeow would ack a message that was not stored:\n%s", logs)
	}
	d.mu.Lock()
	d.fails = 0
	d.mu.Unlock()
	if failed := rc.internals().HandleDecryptedMessage(context.Background(), &info, msg, 0); failed {
		t.Fatal("whatsmeow would not ack a stored message")
	}
	if d.stored() != 1 || d.ins[0].Text != "hi there" {
		t.Errorf("stored %+v, want the unwrapped text once", d.ins)
	}
	a.mu.Lock()
	a.deliver = func(context.Context, botgw.Inbound) error { panic("store bug") }
	a.mu.Unlock()
	info.ID = "3EB0AB"
	if failed := rc.internals().HandleDecryptedMessage(context.Background(), &info, msg, 0); !failed {
		t.Error("whatsmeow would ack a message whose handling panicked (its dispatch recovers panics as success)")
	}
	if n := a.EventCounts()["handler_panic"]; n != 1 {
		t.Errorf("handler_panic %d, want 1", n)
	}
}
