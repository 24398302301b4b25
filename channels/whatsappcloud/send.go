package whatsappcloud

import (
	"context"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/channels/markup"
)

// Meta keys of a reply the channel re-sends after a failed status.
const (
	metaResend  = "wa_resend"  // "template": send as the template
	metaRaw     = "wa_raw"     // the text is WhatsApp markup already
	metaRefused = "wa_refused" // WhatsApp refused it for good: why
)

// maxText is the Cloud API's limit on a text message's body; an
// interactive message's body holds maxInteractive.
const (
	maxText        = 4096
	maxInteractive = 1024
)

// Send delivers m: as free-form messages inside the 24-hour window (text
// split at 4,096 characters, the choices as reply buttons or a list on
// the last part), as the configured template outside it, or not at all
// (a permanent *botgw.PlatformError naming the window) without a
// template. Failures are *botgw.PlatformError saying how many parts
// WhatsApp took, so a retry resumes after them.
func (a *Adapter) Send(ctx context.Context, m botgw.Outbound) error {
	to, err := recipient(m.Chat)
	if err != nil {
		return &botgw.PlatformError{Channel: Name, Permanent: true, Err: err}
	}
	if why := m.Meta[metaRefused]; why != "" {
		return &botgw.PlatformError{Channel: Name, Permanent: true, Err: errors.New("refused by WhatsApp: " + why)}
	}
	in, err := a.inWindow(ctx, m)
	if err != nil {
		return &botgw.PlatformError{Channel: Name, Err: err}
	}
	if !in || m.Meta[metaResend] == "template" {
		return a.sendTemplate(ctx, m, to)
	}
	return a.sendParts(ctx, m, to)
}

// sendParts sends m's text and choices as free-form messages, in order.
// A part refused with 131047 (the window closed meanwhile) sends the rest
// of the reply as the template.
func (a *Adapter) sendParts(ctx context.Context, m botgw.Outbound, to string) error {
	parts := a.parts(m, to)
	start := max(a.progress.Sent(m.ID), m.Sent)
	for i := start; i < len(parts); i++ {
		err := a.post(ctx, m, i, parts[i])
		var ae *apiError
		if errors.As(err, &ae) && ae.Code == codeReEngagement {
			m.Text = textOf(parts[i:])
			return a.sendTemplate(ctx, m, to)
		}
		if err != nil {
			a.progress.Record(m.ID, i)
			pe := a.platformError(fmt.Errorf("part %d of %d to %s: %w", i+1, len(parts), m.Chat, err))
			pe.Sent = i
			return pe
		}
	}
	a.progress.Record(m.ID, 0)
	return nil
}

// parts are the messages m is sent as: the text in pieces of at most
// maxText characters, the last carrying the choices (then at most
// maxInteractive characters).
func (a *Adapter) parts(m botgw.Outbound, to string) []outMessage {
	chunks := []string{m.Text}
	if m.Meta[metaRaw] == "" {
		chunks = markup.WhatsApp.WithLimit(maxText).Render(m.Text)
		if !m.Offer.IsZero() && len(chunks) > 0 && utf8.RuneCountInString(chunks[len(chunks)-1]) > maxInteractive {
			chunks = markup.WhatsApp.WithLimit(maxInteractive).Render(m.Text)
		}
	}
	out := make([]outMessage, 0, len(chunks)+1)
	for _, c := range chunks {
		out = append(out, textMessage(to, c))
	}
	if m.Offer.IsZero() {
		return out
	}
	body := ""
	if len(out) > 0 {
		body, out = chunks[len(chunks)-1], out[:len(out)-1]
	}
	return append(out, offerMessage(to, body, m.Offer))
}

func textMessage(to, text string) outMessage {
	return outMessage{Product: "whatsapp", Recipient: "individual", To: to, Type: "text", Text: &outText{Body: text}}
}

// textOf is the text of parts, for the template they go as instead.
func textOf(parts []outMessage) string {
	s := ""
	for _, p := range parts {
		t := ""
		switch {
		case p.Text != nil:
			t = p.Text.Body
		case p.Interactive != nil:
			t = p.Interactive.Body.Text
		}
		if s != "" && t != "" {
			s += "\n\n"
		}
		s += t
	}
	return s
}

// sendTemplate sends m's text as the configured template's one body
// parameter; without a template m becomes a dead letter naming the window.
func (a *Adapter) sendTemplate(ctx context.Context, m botgw.Outbound, to string) error {
	t := a.cfg.Template
	if t == nil {
		a.counts.add("window_dead_letter")
		return &botgw.PlatformError{Channel: Name, Permanent: true, Err: errors.New(ErrOutsideWindow)}
	}
	a.counts.add("window_template")
	msg := outMessage{Product: "whatsapp", Recipient: "individual", To: to, Type: "template",
		Template: &outTemplate{Name: t.Name, Language: outLanguage{Code: t.Language},
			Components: []outComponent{{Type: "body", Parameters: []outParam{{Type: "text", Text: param(m.Text)}}}}}}
	m.Meta = withoutResend(m.Meta)
	if err := a.post(ctx, m, 0, msg); err != nil {
		return a.platformError(fmt.Errorf("template to %s: %w", m.Chat, err))
	}
	return nil
}

// maxParam is the most characters of a template's text parameter.
const maxParam = 1024

// param is text fit for a template parameter: Meta refuses newlines, tabs
// and runs of more than four spaces in one, and more than maxParam
// characters.
func param(text string) string {
	var out []rune
	for _, chunk := range markup.WhatsApp.WithLimit(0).Render(text) {
		for _, c := range chunk {
			if c == '\n' || c == '\t' {
				c = ' '
			}
			if c == ' ' && len(out) > 0 && out[len(out)-1] == ' ' {
				continue
			}
			out = append(out, c)
		}
	}
	if len(out) > maxParam {
		out = append(out[:maxParam-1], '…')
	}
	return string(out)
}

func withoutResend(meta map[string]string) map[string]string {
	out := make(map[string]string, len(meta))
	for k, v := range meta {
		if k != metaResend && k != metaRaw {
			out[k] = v
		}
	}
	return out
}
