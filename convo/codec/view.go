package codec

import (
	"errors"
	"fmt"
	"time"

	"github.com/botgw/botgw"
)

// Decoded is a chat's state as operators and exports see it.
type Decoded struct {
	Version     int             `json:"v"`
	Provider    string          `json:"provider,omitempty"`
	Created     time.Time       `json:"created"`
	Updated     time.Time       `json:"updated"`
	Turns       int             `json:"turns"`
	Usage       botgw.Usage     `json:"usage"`
	Today       string          `json:"today,omitempty"`
	TodayTokens int             `json:"today_tokens,omitempty"`
	Compaction  CompactionStats `json:"compaction"`
	Records     []Record        `json:"records,omitempty"`
	PausedUntil time.Time       `json:"paused_until,omitzero"`
	PausedBy    string          `json:"paused_by,omitempty"`
	History     []botgw.Message `json:"history"`
}

// Inspect reads a blob for inspection, whatever provider wrote it.
func Inspect(blob []byte) (*Decoded, error) {
	e, err := Decode(blob, nil)
	if err != nil {
		return nil, err
	}
	if e == nil {
		return nil, errors.New("no state")
	}
	return View(e), nil
}

// Encode turns an exported state back into a blob (chats import).
func (d *Decoded) Encode() ([]byte, error) {
	if d.Version != FormatVersion {
		return nil, fmt.Errorf("state format %d: this build reads %d", d.Version, FormatVersion)
	}
	e := Envelope{V: d.Version, Provider: d.Provider, Created: d.Created, Updated: d.Updated,
		Turns: d.Turns, Usage: d.Usage, Today: d.Today, TodayTokens: d.TodayTokens,
		Compaction: d.Compaction, Records: d.Records, History: d.History,
		PausedUntil: d.PausedUntil, PausedBy: d.PausedBy}
	return Encode(&e)
}

// View is e as operators and exports see it.
func View(e *Envelope) *Decoded {
	return &Decoded{Version: e.V, Provider: e.Provider, Created: e.Created, Updated: e.Updated,
		Turns: e.Turns, Usage: e.Usage, Today: e.Today, TodayTokens: e.TodayTokens,
		Compaction: e.Compaction, Records: e.Records, History: e.History,
		PausedUntil: e.PausedUntil, PausedBy: e.PausedBy}
}
