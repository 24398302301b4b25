package eval

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/botgw/botgw"
)

// Recording is a suite made from real conversations: the player's
// messages, locations, taps and the app's events in order, the
// assistant's replies as baselines, ids replaced.
type Recording struct {
	Name          string          `yaml:"name"`
	Conversations []*recordedConv `yaml:"conversations"`
	ids           []string        // ids to replace in texts
}

type recordedConv struct {
	Name  string         `yaml:"name"`
	Steps []recordedStep `yaml:"steps"`
}

type recordedStep struct {
	User     string         `yaml:"user,omitempty"`
	Event    *recordedEvent `yaml:"event,omitempty"`
	Location *recordedPin   `yaml:"location,omitempty"`
	Tap      string         `yaml:"tap,omitempty"`
	Baseline string         `yaml:"baseline,omitempty"`
}

type recordedEvent struct {
	Text string `yaml:"text"`
	Key  string `yaml:"key,omitempty"`
}

type recordedPin struct {
	Latitude  float64 `yaml:"latitude"`
	Longitude float64 `yaml:"longitude"`
}

// NewRecording starts a recording; ids (chat and user ids) are replaced
// wherever a text quotes them.
func NewRecording(name string, ids ...string) *Recording {
	return &Recording{Name: name, ids: slices.DeleteFunc(ids, func(s string) bool { return len(s) < 3 })}
}

// phone and email find contact details players type.
var (
	phone = regexp.MustCompile(`\+?\d[\d ().-]{6,}\d`)
	email = regexp.MustCompile(`[\w.+-]+@[\w-]+\.[\w.-]+`)
)

// scrub replaces the recording's ids, phone numbers and emails in s.
func (r *Recording) scrub(s string) string {
	for _, id := range r.ids {
		s = strings.ReplaceAll(s, id, "PLAYER")
	}
	s = email.ReplaceAllString(s, "player@example.com")
	return phone.ReplaceAllString(s, "+10000000000")
}

// conv is the conversation being recorded; a new one when none is.
func (r *Recording) conv() *recordedConv {
	if len(r.Conversations) == 0 {
		r.next()
	}
	return r.Conversations[len(r.Conversations)-1]
}

// next starts a new conversation (after a reset, or another chat).
func (r *Recording) next() {
	if n := len(r.Conversations); n > 0 && len(r.Conversations[n-1].Steps) == 0 {
		return
	}
	r.Conversations = append(r.Conversations, &recordedConv{Name: fmt.Sprintf("conversation %d", len(r.Conversations)+1)})
}

func (r *Recording) add(s recordedStep) { c := r.conv(); c.Steps = append(c.Steps, s) }

// reply adds the assistant's words to the last step that answers the
// player, as its baseline.
func (r *Recording) reply(text string) {
	c := r.conv()
	for i := len(c.Steps) - 1; i >= 0; i-- {
		if c.Steps[i].Event == nil {
			c.Steps[i].Baseline = strings.TrimSpace(strings.TrimSpace(c.Steps[i].Baseline) + "\n\n" + r.scrub(text))
			return
		}
	}
}

// History records a stored conversation (a chat's history, as `botgw
// chats export` writes it).
func (r *Recording) History(h []botgw.Message) {
	for i, m := range h {
		switch {
		case m.Role == botgw.RoleUser && m.Location != nil:
			r.add(recordedStep{Location: &recordedPin{m.Location.Latitude, m.Location.Longitude}})
		case m.Role == botgw.RoleUser && m.Tap:
			r.add(recordedStep{Tap: m.Text})
		case m.Role == botgw.RoleUser:
			r.add(recordedStep{User: r.scrub(m.Text)})
		case m.Role == botgw.RoleEvent && !(m.EventKey == botgw.LocationKey && nearPin(h, i)):
			r.add(recordedStep{Event: &recordedEvent{Text: r.scrub(m.Text), Key: m.EventKey}})
		case m.Role == botgw.RoleAssistant && m.Text != "" && m.Operator == "":
			r.reply(m.Text)
		}
	}
}

// nearPin reports whether event i is the keyed location a pin next to it
// set (the pin's replay sets it again).
func nearPin(h []botgw.Message, i int) bool {
	for _, j := range []int{i - 1, i + 1} {
		if j >= 0 && j < len(h) && h[j].Role == botgw.RoleUser && h[j].Location != nil {
			return true
		}
	}
	return false
}

// Export records a `botgw chats export`.
func (r *Recording) Export(data []byte) error {
	var ex struct {
		History []botgw.Message `json:"history"`
	}
	if err := json.Unmarshal(data, &ex); err != nil {
		return fmt.Errorf("read export: %w", err)
	}
	r.History(ex.History)
	return nil
}

// Stream records the conversation stream's records: JSON lines of
// records, or the webhook's {"records": [...]} bodies, one a line or
// concatenated. Each conversation id becomes a conversation; a reset
// starts a new one.
func (r *Recording) Stream(in io.Reader) error {
	recs, err := readRecords(in)
	if err != nil {
		return err
	}
	order, byConv := []string{}, map[string][]botgw.StreamRecord{}
	for _, rec := range recs {
		if _, ok := byConv[rec.ConversationID]; !ok {
			order = append(order, rec.ConversationID)
		}
		byConv[rec.ConversationID] = append(byConv[rec.ConversationID], rec)
	}
	for _, id := range order {
		recs := byConv[id]
		slices.SortStableFunc(recs, func(a, b botgw.StreamRecord) int { return int(a.Seq - b.Seq) })
		r.ids = append(r.ids, idsOf(id, recs)...)
		r.next()
		for _, rec := range recs {
			r.record(rec)
		}
	}
	return nil
}

func (r *Recording) record(rec botgw.StreamRecord) {
	switch rec.Action {
	case botgw.ActionMessage:
		if strings.HasPrefix(rec.AgentID, "user:") {
			r.add(recordedStep{User: r.scrub(rec.Text)})
		}
	case botgw.ActionLocation:
		if rec.Location != nil {
			r.add(recordedStep{Location: &recordedPin{rec.Location.Latitude, rec.Location.Longitude}})
		}
	case botgw.ActionEvent:
		r.add(recordedStep{Event: &recordedEvent{Text: r.scrub(rec.Text)}})
	case botgw.ActionReply:
		if rec.AgentID == botgw.AgentAssistant {
			r.reply(rec.Text)
		}
	case botgw.ActionReset:
		r.next()
	}
}

// idsOf are the ids a conversation's records name: the chat's and its
// players'.
func idsOf(conv string, recs []botgw.StreamRecord) []string {
	ids := []string{}
	if _, id, ok := strings.Cut(conv, ":"); ok && len(id) >= 3 {
		ids = append(ids, id)
	}
	for _, rec := range recs {
		if id, ok := strings.CutPrefix(rec.AgentID, "user:"); ok && len(id) >= 3 && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return ids
}

// readRecords reads JSON values one after another: records, or bodies
// holding records.
func readRecords(in io.Reader) ([]botgw.StreamRecord, error) {
	dec := json.NewDecoder(bufio.NewReader(in))
	var out []botgw.StreamRecord
	for n := 1; ; n++ {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err == io.EOF {
			return out, nil
		} else if err != nil {
			return nil, fmt.Errorf("read stream records: value %d: %w", n, err)
		}
		var body struct {
			Records []botgw.StreamRecord `json:"records"`
		}
		if bytes.Contains(raw, []byte(`"records"`)) && json.Unmarshal(raw, &body) == nil && body.Records != nil {
			out = append(out, body.Records...)
			continue
		}
		var rec botgw.StreamRecord
		if err := json.Unmarshal(raw, &rec); err != nil || rec.Action == "" {
			return nil, fmt.Errorf("read stream records: value %d: not a stream record", n)
		}
		out = append(out, rec)
	}
}

// YAML is the recording as a suite file.
func (r *Recording) YAML() ([]byte, error) {
	r.Conversations = slices.DeleteFunc(r.Conversations, func(c *recordedConv) bool { return len(c.Steps) == 0 })
	if len(r.Conversations) == 0 {
		return nil, fmt.Errorf("record: the conversation has no player input to replay")
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(r); err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	return b.Bytes(), enc.Close()
}
