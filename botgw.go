// Package botgw is the shared vocabulary of the gateway: chat keys, messages,
// inbound and outbound envelopes, and the small interfaces that have several
// implementations (Channel, Provider, Store, Compactor). It imports only the
// standard library; concrete types live in the sub-packages and are wired
// together in cmd/botgw.
package botgw

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// ChatKey names one conversation: the channel and the platform's own
// conversation id, with the thread appended after "/" where the platform has
// threads ("telegram:-1001234567890/42", "slack:C0123ABC/1700000000.000100").
type ChatKey struct{ Channel, ID string }

func (k ChatKey) String() string       { return k.Channel + ":" + k.ID }
func (k ChatKey) LogValue() slog.Value { return slog.StringValue(k.String()) }
func (k ChatKey) IsZero() bool         { return k.Channel == "" && k.ID == "" }

// Chat key limits: every route that takes a chat key from outside checks
// these (ParseChatKey), and adapters check keys built from platform ids
// (ChatKey.Validate), so no key that cannot be stored gets in.
const (
	MaxChannelLen = 32  // bytes of the channel name
	MaxChatIDLen  = 256 // bytes of the id (with its thread)
)

// ParseChatKey parses "<channel>:<id>" and validates it (ChatKey.Validate).
func ParseChatKey(s string) (ChatKey, error) {
	ch, id, ok := strings.Cut(s, ":")
	if !ok || ch == "" || id == "" {
		return ChatKey{}, fmt.Errorf("chat key %s: want <channel>:<id>", quoteShort(s))
	}
	k := ChatKey{Channel: ch, ID: id}
	if err := k.Validate(); err != nil {
		return ChatKey{}, err
	}
	return k, nil
}

// Validate checks a chat key's shape: a channel of lower-case letters,
// digits and underscores ("whatsapp_cloud"), an id of valid UTF-8 without control characters or braces (the
// braces delimit Redis Cluster hash tags), each within its length limit.
func (k ChatKey) Validate() error {
	switch {
	case k.Channel == "" || k.ID == "":
		return fmt.Errorf("chat key %s: want <channel>:<id>", quoteShort(k.String()))
	case len(k.Channel) > MaxChannelLen:
		return fmt.Errorf("chat key %s: channel longer than %d bytes", quoteShort(k.String()), MaxChannelLen)
	case len(k.ID) > MaxChatIDLen:
		return fmt.Errorf("chat key %s: id longer than %d bytes", quoteShort(k.String()), MaxChatIDLen)
	case !utf8.ValidString(k.ID):
		return fmt.Errorf("chat key %s: id is not valid UTF-8", quoteShort(k.String()))
	}
	for _, r := range k.Channel {
		if (r < 'a' || r > 'z') && (r < '0' || r > '9') && r != '_' {
			return fmt.Errorf("chat key %s: channel must be lower-case letters, digits and underscores", quoteShort(k.String()))
		}
	}
	for _, r := range k.ID {
		if unicode.IsControl(r) || r == '{' || r == '}' {
			return fmt.Errorf("chat key %s: id must not contain braces or control characters (newlines, NUL)", quoteShort(k.String()))
		}
	}
	return nil
}

// quoteShort quotes s for an error message, cut to 80 bytes.
func quoteShort(s string) string {
	if len(s) > 80 {
		return strconv.Quote(s[:80]) + "…"
	}
	return strconv.Quote(s)
}

func (k ChatKey) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

func (k *ChatKey) UnmarshalText(b []byte) error {
	p, err := ParseChatKey(string(b))
	if err != nil {
		return err
	}
	*k = p
	return nil
}

// Role says who wrote a history message.
type Role string

const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	// RoleEvent is context injected by the app ("the player reached the
	// theatre"). Providers send it as a user-side context message.
	RoleEvent Role = "event"
	// RoleSummary is compaction's stand-in for dropped history.
	RoleSummary Role = "summary"
)

// Message is one entry of a conversation history.
type Message struct {
	Role Role      `json:"role"`
	Text string    `json:"text,omitempty"`
	At   time.Time `json:"at,omitzero"`
	// ToolCalls are the calls an assistant message asked for, each with its
	// result or error once the gateway ran it. One record per call keeps the
	// call and its outcome together so compaction can summarise them.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// EventID and EventKey identify an event message (RoleEvent). The latest
	// event of each key is pinned: compaction keeps it.
	EventID  string `json:"event_id,omitempty"`
	EventKey string `json:"event_key,omitempty"`
	// InboundIDs are the platform message ids this user message was made of.
	InboundIDs []string `json:"inbound_ids,omitempty"`
	// Operator names the person who wrote an assistant message by hand
	// during a takeover; empty for the model's words.
	Operator string `json:"operator,omitempty"`
	// Location is the position a user message (a pin) or the keyed
	// "location" event shares.
	Location *Location `json:"location,omitempty"`
	// Media says what a user message carried besides text; its Text holds
	// the marker ("[photo]", "[voice note]") and the caption or transcript.
	Media MediaKind `json:"media,omitempty"`
	// Images are the photos of the turn's new user message, sent to the
	// model with it on that turn only; never stored.
	Images []Image `json:"-"`
	// Choices are the choices an assistant message offered the player
	// (Offer.Ref names them); Tap marks a user message made by tapping one.
	Choices   []string `json:"choices,omitempty"`
	ChoiceRef string   `json:"choice_ref,omitempty"`
	Tap       bool     `json:"tap,omitempty"`
}

// ToolCall is one function call asked for by the model, with its outcome.
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"` // JSON object, as the model wrote it
	Result    string `json:"result,omitempty"`
	Error     string `json:"error,omitempty"`
}

// Event is app context pushed into a chat over the events webhook.
type Event struct {
	ID      string `json:"id,omitempty"`  // idempotency key
	Key     string `json:"key,omitempty"` // replaces the previous event of this key
	Text    string `json:"text"`
	Respond bool   `json:"respond,omitempty"` // run a turn now and send the reply
	// Offer is what the reply the event asks for offers the player
	// (only with Respond).
	Offer
}

// InboundKind tells the engine what an Inbound carries.
type InboundKind string

const (
	KindText InboundKind = "text"
	// KindUnsupported is media the gateway cannot read; the engine answers
	// with a polite text-only notice, without the LLM.
	KindUnsupported InboundKind = "unsupported"
	// KindEvent is an app event (Event is set).
	KindEvent InboundKind = "event"
	// KindSay is text the gateway sends to the chat verbatim, without the
	// model, and stores as the assistant's message (a broadcast's message).
	KindSay InboundKind = "say"
	// KindOperator is an operator's action on the chat (Op is set): it
	// goes through the pending list like any input, so it is applied in
	// order and committed with the chat's state on whichever replica runs
	// the chat.
	KindOperator InboundKind = "operator"
	// KindLocation is a later position of a live location (Location is
	// set): it replaces the chat's keyed event "location" and runs no turn.
	KindLocation InboundKind = "location"
)

// MetaBroadcast is the Meta key of the broadcast items ("<id>#<index>",
// space-separated) a reply delivers, carried from Inbound to Outbound.
const MetaBroadcast = "broadcast"

// Operator actions carried by a KindOperator inbound.
const (
	OpPause     = "pause"     // stop answering until Op.Until
	OpResume    = "resume"    // answer again
	OpMessage   = "message"   // send Inbound.Text as the assistant, signed Op.Operator
	OpRedeliver = "redeliver" // put Op.Reply back into the outbox (a retried dead letter)
)

// OperatorAction is what an operator asked of a chat.
type OperatorAction struct {
	Action   string    `json:"action"`
	Operator string    `json:"operator,omitempty"` // who: "admin-api", "telegram:123", a name
	Until    time.Time `json:"until,omitzero"`     // OpPause: when the pause ends by itself
	Reply    *Outbound `json:"reply,omitempty"`    // OpRedeliver
}

// OperatorInput is an operator action ready for chat k's pending list;
// an empty id gets a random one ("op-…").
func OperatorInput(k ChatKey, id string, op OperatorAction, text string) Inbound {
	if id == "" {
		b := make([]byte, 8)
		rand.Read(b)
		id = "op-" + hex.EncodeToString(b)
	}
	return Inbound{Chat: k, Kind: KindOperator, ID: id, UserID: op.Operator, Text: text, At: time.Now(), Op: &op}
}

// Inbound is one normalised message into a chat.
type Inbound struct {
	Chat ChatKey     `json:"chat"`
	Kind InboundKind `json:"kind"`
	// ID is the platform's message id (or the event id), unique within the
	// chat; the store deduplicates on it.
	ID       string    `json:"id"`
	UserID   string    `json:"user,omitempty"` // platform user id of the sender
	UserName string    `json:"name,omitempty"`
	Text     string    `json:"text,omitempty"`
	At       time.Time `json:"at,omitzero"`
	Event    *Event    `json:"event,omitempty"`
	// Op is the operator's action of a KindOperator inbound.
	Op *OperatorAction `json:"op,omitempty"`
	// Offer is what a KindSay text or an operator's message offers the
	// player, sent with it.
	Offer
	// Tap is set when the input is a tap on a choice the gateway offered
	// (choices.go). Text is the choice's label, or empty when the adapter
	// could not read it from the platform and the engine resolves Tap.
	Tap *Tap `json:"tap,omitempty"`
	// Cut is set when Text (or the event's text) was longer than the
	// gateway's input limit and was cut to it; the user is told.
	Cut bool `json:"cut,omitempty"`
	// Meta carries adapter data the adapter needs again when it answers
	// (a message id to reply to, a sender JID for a read receipt).
	Meta map[string]string `json:"meta,omitempty"`
	// Backlog marks text that reached the gateway long after it was sent
	// (a platform's backlog after an outage): the engine stores it in the
	// history but does not answer it by itself; a later turn (live input,
	// or an event asking for a reply) answers it together.
	Backlog bool `json:"backlog,omitempty"`
	// Location is a shared position: on a text inbound a pin (Text gives
	// it in words), on KindLocation a live location's later position.
	Location *Location `json:"location,omitempty"`
	// Media is a photo or recording on a text inbound (Text is the
	// caption); the turn fetches it.
	Media *Media `json:"media,omitempty"`
}

// Outbound is one complete reply to a chat. Delivery is at-least-once: ID is
// stable across redeliveries so adapters may deduplicate.
type Outbound struct {
	Chat ChatKey           `json:"chat"`
	ID   string            `json:"id"`
	Text string            `json:"text"`
	Meta map[string]string `json:"meta,omitempty"` // Meta of the inbound answered
	// Sent is how many parts of a split reply the platform already took
	// (recorded from PlatformError.Sent); Send resumes after them.
	Sent int `json:"sent,omitempty"`
	// Offer is what the reply offers the player to tap; adapters render it
	// natively (choices.go).
	Offer
	// Held, when set, says why the gateway keeps this reply from the
	// player: it is settled without a send (a broadcast item that reached
	// a chat while an operator held it) and, if it has text, kept as a
	// dead letter for the operator to send later.
	Held string `json:"held,omitempty"`
	// Proactive is set on what the player did not just ask for: a
	// broadcast's message, the reply to an event with respond, an
	// operator's message. Replies to the player's own input leave it
	// unset. Platform rules for messages the player did not ask for, such
	// as the WhatsApp Cloud API's 24-hour window, apply to proactive sends
	// only (docs/whatsapp-cloud.md).
	Proactive bool `json:"proactive,omitempty"`
	// Pace is the chat's own send pace for this send, set by the engine
	// while its worker holds the chat's lease; nil: the adapter paces the
	// chat through its shared limiter. Never stored.
	Pace *SendPace `json:"-"`
}

// Channel sends to one chat network. Name is stable: it appears in ChatKey
// and config.
type Channel interface {
	Name() string
	// Send delivers one reply, chunked to the platform's limits, in order.
	// It blocks until the platform accepted every part or ctx ends. It is
	// safe for concurrent use across chats.
	Send(ctx context.Context, m Outbound) error
}

// Deliver hands one inbound message to the gateway. It returns once the
// message is durable (nil also for a duplicate), or an error that the
// platform should see as "retry later".
type Deliver func(ctx context.Context, m Inbound) error

// Listener is a channel that pulls its input (long polling, websockets).
type Listener interface {
	// Listen blocks until ctx is done, calling deliver for each message.
	Listen(ctx context.Context, deliver Deliver) error
}

// WebhookReceiver is a channel whose platform pushes input over HTTP. The
// handler is mounted at /webhooks/<name> and below.
type WebhookReceiver interface {
	WebhookHandler(deliver Deliver) http.Handler
}

// Typer shows a "working on it" signal while a turn runs. Optional.
type Typer interface {
	// StartTyping starts the signal for the turn answering in and renews it
	// until stop is called or ctx ends. It never blocks on the network.
	StartTyping(ctx context.Context, in Inbound) (stop func())
}

// Starter is a channel with start-up work: register its webhook, learn its
// own ids, register commands. Optional; errors are logged, not fatal.
type Starter interface {
	Start(ctx context.Context) error
}

// Health reports whether a channel can send and receive now. Optional; a
// non-nil error makes /readyz fail and names the reason.
type Health interface {
	Health() error
}

// IgnoreCounter is a channel that reads input it does not pass on (bots,
// edits, reactions, group chatter not addressed to the assistant). The
// gateway hands it inc, to call once per ignored input, before the channel
// starts. Optional.
type IgnoreCounter interface {
	CountIgnored(inc func())
}

// Holder is a channel whose platform session lives on one replica at a
// time (WhatsApp's linked device). Optional: turns of its chats run only on
// the replica that holds the session, so their replies can be sent.
type Holder interface {
	Holding() bool
}
