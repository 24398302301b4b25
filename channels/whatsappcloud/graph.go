package whatsappcloud

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// The Graph API's JSON, for exactly the fields the channel uses: the
// webhook's body (Meta's "messages" field), the send call and its answer,
// the media lookup. Anything else Meta sends is ignored.

// hook is a webhook body.
type hook struct {
	Object string  `json:"object"`
	Entry  []entry `json:"entry"`
}

type entry struct {
	Changes []change `json:"changes"`
}

type change struct {
	Field string `json:"field"`
	Value value  `json:"value"`
}

type value struct {
	Metadata struct {
		PhoneNumberID string `json:"phone_number_id"`
	} `json:"metadata"`
	Contacts []contact `json:"contacts"`
	Messages []message `json:"messages"`
	Statuses []status  `json:"statuses"`
}

type contact struct {
	WaID    string `json:"wa_id"`
	Profile struct {
		Name string `json:"name"`
	} `json:"profile"`
}

// message is one inbound message; Type says which of the parts is set.
type message struct {
	From        string       `json:"from"`
	ID          string       `json:"id"`
	Timestamp   string       `json:"timestamp"` // Unix seconds, as a string
	Type        string       `json:"type"`
	Text        *textPart    `json:"text"`
	Image       *mediaPart   `json:"image"`
	Audio       *mediaPart   `json:"audio"`
	Sticker     *mediaPart   `json:"sticker"`
	Location    *locPart     `json:"location"`
	Interactive *interactive `json:"interactive"`
	Button      *buttonPart  `json:"button"`
}

type textPart struct {
	Body string `json:"body"`
}

type mediaPart struct {
	ID       string `json:"id"`
	MIMEType string `json:"mime_type"`
	Caption  string `json:"caption"`
	Voice    bool   `json:"voice"`
}

type locPart struct {
	Latitude  float64 `json:"latitude"`
	Longitude float64 `json:"longitude"`
	Name      string  `json:"name"`
	Address   string  `json:"address"`
}

type interactive struct {
	Type        string `json:"type"` // button_reply or list_reply
	ButtonReply *reply `json:"button_reply"`
	ListReply   *reply `json:"list_reply"`
}

type reply struct {
	ID    string `json:"id"`
	Title string `json:"title"`
}

// buttonPart is a tap on a template's quick-reply button.
type buttonPart struct {
	Payload string `json:"payload"`
	Text    string `json:"text"`
}

// status reports what became of a message the channel sent.
type status struct {
	ID          string       `json:"id"`
	Status      string       `json:"status"` // sent, delivered, read, failed
	RecipientID string       `json:"recipient_id"`
	Errors      []graphError `json:"errors"`
}

// graphError is an error of a status or of a call's answer.
type graphError struct {
	Code    int    `json:"code"`
	Title   string `json:"title"`
	Message string `json:"message"`
}

// errorBody is a Graph API call's error answer.
type errorBody struct {
	Error graphError `json:"error"`
}

// outMessage is the body of POST /{phone_number_id}/messages.
type outMessage struct {
	Product     string          `json:"messaging_product"` // always "whatsapp"
	Recipient   string          `json:"recipient_type,omitempty"`
	To          string          `json:"to,omitempty"`
	Type        string          `json:"type,omitempty"`
	Text        *outText        `json:"text,omitempty"`
	Interactive *outInteractive `json:"interactive,omitempty"`
	Template    *outTemplate    `json:"template,omitempty"`
	// A read mark: Status "read", the message's id, and the typing
	// indicator shown until the reply (at most 25 s).
	Status    string        `json:"status,omitempty"`
	MessageID string        `json:"message_id,omitempty"`
	Typing    *typingMarker `json:"typing_indicator,omitempty"`
}

type outText struct {
	Body       string `json:"body"`
	PreviewURL bool   `json:"preview_url"`
}

type outInteractive struct {
	Type   string    `json:"type"` // button, list or location_request_message
	Body   outBody   `json:"body"`
	Action outAction `json:"action"`
}

type outBody struct {
	Text string `json:"text"`
}

type outAction struct {
	Name     string       `json:"name,omitempty"`   // send_location
	Button   string       `json:"button,omitempty"` // a list's button label
	Buttons  []outButton  `json:"buttons,omitempty"`
	Sections []outSection `json:"sections,omitempty"`
}

type outButton struct {
	Type  string `json:"type"` // reply
	Reply reply  `json:"reply"`
}

type outSection struct {
	Rows []outRow `json:"rows"`
}

type outRow struct {
	ID          string `json:"id"`
	Title       string `json:"title"`
	Description string `json:"description,omitempty"`
}

type outTemplate struct {
	Name       string         `json:"name"`
	Language   outLanguage    `json:"language"`
	Components []outComponent `json:"components"`
}

type outLanguage struct {
	Code string `json:"code"`
}

type outComponent struct {
	Type       string     `json:"type"` // body
	Parameters []outParam `json:"parameters"`
}

type outParam struct {
	Type string `json:"type"` // text
	Text string `json:"text"`
}

type typingMarker struct {
	Type string `json:"type"` // text
}

// sendAnswer is the send call's answer: the new message's wamid.
type sendAnswer struct {
	Messages []struct {
		ID string `json:"id"`
	} `json:"messages"`
}

// mediaInfo is GET /{media id}'s answer: where to download the file.
type mediaInfo struct {
	URL      string   `json:"url"`
	MIMEType string   `json:"mime_type"`
	FileSize flexSize `json:"file_size"`
}

// flexSize reads a size Meta writes as a number or as a string.
type flexSize int64

func (s *flexSize) UnmarshalJSON(b []byte) error {
	b = bytes.Trim(b, `"`)
	if len(b) == 0 || string(b) == "null" {
		return nil
	}
	n, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		return nil // a size the channel cannot read is unknown, not an error
	}
	*s = flexSize(n)
	return nil
}

var _ json.Unmarshaler = (*flexSize)(nil)
