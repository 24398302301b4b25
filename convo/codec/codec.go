// Package codec is a chat's state as the engine keeps it: a versioned
// Envelope (provider lock, processed inbound ids, usage, records, pause)
// around the message history, stored as zstd-compressed JSON. The blob is
// opaque to everything but this package.
package codec

import (
	"bytes"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/klauspost/compress/zstd"

	"github.com/botgw/botgw"
)

// FormatVersion is the Envelope format this build writes. A blob of a newer
// version (written by a newer replica) is not understood and is dropped.
const FormatVersion = 1

// maxProcessed bounds the inbound ids remembered for idempotency.
const maxProcessed = 256

// MaxRecords bounds the per-turn records kept in the Envelope.
const MaxRecords = 50

// Envelope is a chat's state. It is opaque to everything outside codec: the
// store keeps it as a zstd-compressed JSON blob.
type Envelope struct {
	V        int         `json:"v"`
	Provider string      `json:"provider,omitempty"` // lock: the provider that wrote it
	Created  time.Time   `json:"created"`
	Updated  time.Time   `json:"updated"`
	Turns    int         `json:"turns"`
	Usage    botgw.Usage `json:"usage"`
	// Today (a UTC date) and TodayTokens count the day's tokens for
	// Limits.DailyTokens.
	Today       string          `json:"today,omitempty"`
	TodayTokens int             `json:"today_tokens,omitempty"`
	Processed   []string        `json:"processed,omitempty"`
	Compaction  CompactionStats `json:"compaction,omitzero"`
	Records     []Record        `json:"records,omitempty"`
	// Hint compares the provider's reported input tokens for the last
	// request with our estimate of it; compaction budgets follow it.
	Hint botgw.UsageHint `json:"usage_hint,omitzero"`
	// PausedUntil is set while an operator has taken the chat over: input
	// is stored, the model is not called.
	PausedUntil time.Time       `json:"paused_until,omitzero"`
	PausedBy    string          `json:"paused_by,omitempty"`
	History     []botgw.Message `json:"history"`
}

// CompactionStats records what compaction did to this chat.
type CompactionStats struct {
	Count        int       `json:"count"`
	Last         time.Time `json:"last,omitzero"`
	TokensBefore int       `json:"tokens_before"`
	TokensAfter  int       `json:"tokens_after"`
}

// Record is the compact account of one LLM turn.
type Record struct {
	ID        string        `json:"id"`
	At        time.Time     `json:"at"`
	Provider  string        `json:"provider"`
	Usage     botgw.Usage   `json:"usage"`
	ToolCalls int           `json:"tool_calls,omitempty"`
	Duration  time.Duration `json:"duration,format:nano"`
	Outcome   string        `json:"outcome"`
}

// New is the state of a new conversation.
func New(now time.Time) *Envelope {
	return &Envelope{V: FormatVersion, Created: now, Updated: now}
}

func (e *Envelope) Seen(id string) bool { return slices.Contains(e.Processed, id) }

// MarkSeen remembers inbound id as processed (the last maxProcessed).
func (e *Envelope) MarkSeen(id string) {
	e.Processed = append(e.Processed, id)
	if over := len(e.Processed) - maxProcessed; over > 0 {
		e.Processed = slices.Delete(e.Processed, 0, over)
	}
}

// AddRecord keeps r, the last MaxRecords of them.
func (e *Envelope) AddRecord(r Record) {
	e.Records = append(e.Records, r)
	if over := len(e.Records) - MaxRecords; over > 0 {
		e.Records = slices.Delete(e.Records, 0, over)
	}
}

// DropReason says why a stored blob could not be used.
type DropReason string

const (
	DropCorrupt  DropReason = "corrupt"
	DropVersion  DropReason = "unknown_version"
	DropProvider DropReason = "provider_changed"
)

// DropError explains why a chat's state was dropped and the turn ran fresh.
type DropError struct {
	Reason DropReason
	Err    error
}

func (e *DropError) Error() string { return fmt.Sprintf("state dropped (%s): %v", e.Reason, e.Err) }
func (e *DropError) Unwrap() error { return e.Err }

var (
	encOnce sync.Once
	encoder *zstd.Encoder
	decoder *zstd.Decoder
)

func codecs() (*zstd.Encoder, *zstd.Decoder) {
	encOnce.Do(func() {
		// One encoder per CPU (concurrency 0 = GOMAXPROCS): EncodeAll
		// holds one for the whole call, so with fewer, commits of
		// different chats would queue for it.
		encoder, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(0))
		decoder, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderMaxMemory(64<<20))
	})
	return encoder, decoder
}

// jsonOpts: the Envelope is JSON written and read by the encoding/json/v2
// engine (go-json-experiment/json, its upstream), about twice as fast to
// decode as encoding/json and byte-compatible with what it writes (see
// TestStateIsReadableAcrossBuildsDuringAnUpgrade). Text with broken UTF-8
// from a platform is kept rather than failing the turn.
var jsonOpts = json.JoinOptions(jsontext.AllowInvalidUTF8(true), jsontext.AllowDuplicateNames(true))

// Every turn decodes and encodes its chat's state; the uncompressed JSON
// and the compressed output are scratch, used within the call, so their
// buffers are pooled: jsonBuffers for the JSON encoder, which writes into a
// bytes.Buffer in place, zstdBuffers for zstd's append-style calls. A
// buffer past maxPooled (a rare huge state) is left to the collector.
var (
	jsonBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}
	zstdBuffers = sync.Pool{New: func() any { return new([]byte) }}
)

const maxPooled = 1 << 20

// Encode serialises an Envelope for the store.
func Encode(e *Envelope) ([]byte, error) {
	raw := jsonBuffers.Get().(*bytes.Buffer)
	defer func() {
		if raw.Cap() <= maxPooled {
			raw.Reset()
			jsonBuffers.Put(raw)
		}
	}()
	if err := json.MarshalWrite(raw, e, jsonOpts); err != nil {
		return nil, fmt.Errorf("encode state: %w", err)
	}
	enc, _ := codecs()
	zipped := zstdBuffers.Get().(*[]byte)
	defer putZstd(zipped)
	*zipped = enc.EncodeAll(raw.Bytes(), (*zipped)[:0])
	return bytes.Clone(*zipped), nil // the blob outlives the call: exactly its size
}

func putZstd(b *[]byte) {
	if cap(*b) <= maxPooled {
		zstdBuffers.Put(b)
	}
}

// Decode reads a stored blob. accept lists the provider ids whose state this
// engine may continue (the configured provider and its fallbacks); empty
// accepts any. A nil blob is a new conversation, not an error.
func Decode(blob []byte, accept []string) (*Envelope, error) {
	if blob == nil {
		return nil, nil
	}
	_, dec := codecs()
	raw := zstdBuffers.Get().(*[]byte)
	defer putZstd(raw)
	var err error
	if *raw, err = dec.DecodeAll(blob, (*raw)[:0]); err != nil {
		return nil, &DropError{DropCorrupt, err}
	}
	var e Envelope // its strings are copies: raw is reused once Decode returns
	presize(&e, *raw)
	if err := json.Unmarshal(*raw, &e, jsonOpts); err != nil {
		return nil, &DropError{DropCorrupt, err}
	}
	if e.V != FormatVersion {
		return nil, &DropError{DropVersion, fmt.Errorf("format %d, this build reads %d", e.V, FormatVersion)}
	}
	if len(accept) > 0 && e.Provider != "" && !slices.Contains(accept, e.Provider) {
		return nil, &DropError{DropProvider, fmt.Errorf("written by %s, now %v", e.Provider, accept)}
	}
	return &e, nil
}

// presize allocates e's history and records at their size before raw is
// decoded into e (the decoder fills a slice's capacity before it grows it):
// every message has one "role" key, every record one "outcome" key, and
// neither can occur inside a JSON string, where quotes are escaped. The
// history has room for the turn's question and answer.
func presize(e *Envelope, raw []byte) {
	e.History = make([]botgw.Message, 0, bytes.Count(raw, []byte(`"role":`))+2)
	e.Records = make([]Record, 0, bytes.Count(raw, []byte(`"outcome":`))+1)
}
