package fake

import (
	"fmt"
	"strings"

	"github.com/botgw/botgw"
)

// quoteLimit caps each echoed text, in runes, so a long message does not
// turn the demo reply into a wall of text.
const quoteLimit = 80

// demoReply says plainly that no LLM is configured and echoes what the
// conversation remembers: the latest user text, how many the user sent, the
// first of them and the latest app event.
func demoReply(history []botgw.Message) string {
	var b strings.Builder
	b.WriteString("Demo reply (no LLM configured — set OPENAI_API_KEY or ANTHROPIC_API_KEY).")
	b.WriteString(userEcho(history))
	if ev, ok := latest(history, botgw.RoleEvent); ok {
		fmt.Fprintf(&b, " Latest app event: %s.", quote(ev.Text))
	}
	if _, ok := latest(history, botgw.RoleSummary); ok {
		b.WriteString(" Earlier messages were summarised to save space.")
	}
	return b.String()
}

func userEcho(history []botgw.Message) string {
	var texts []string
	for _, m := range history {
		if m.Role == botgw.RoleUser {
			texts = append(texts, m.Text)
		}
	}
	switch len(texts) {
	case 0:
		return " You have not said anything yet."
	case 1:
		return fmt.Sprintf(" You said: %s. This is your first message in this conversation.", quote(texts[0]))
	}
	return fmt.Sprintf(" You said: %s. This conversation has %d messages from you so far; your first was: %s.",
		quote(texts[len(texts)-1]), len(texts), quote(texts[0]))
}

// latest returns the last message of role in history.
func latest(history []botgw.Message, role botgw.Role) (botgw.Message, bool) {
	for i := len(history) - 1; i >= 0; i-- {
		if history[i].Role == role {
			return history[i], true
		}
	}
	return botgw.Message{}, false
}

func quote(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > quoteLimit {
		s = string(r[:quoteLimit]) + "…"
	}
	return `"` + s + `"`
}

// usage estimates token counts at about four bytes a token, so metrics move
// in the demo.
func usage(req botgw.Request, reply string) botgw.Usage {
	in := len(req.System)
	for _, m := range req.Messages {
		in += len(m.Text)
		for _, tc := range m.ToolCalls {
			in += len(tc.Name) + len(tc.Arguments) + len(tc.Result) + len(tc.Error)
		}
	}
	return botgw.Usage{InputTokens: tokens(in), OutputTokens: tokens(len(reply))}
}

func tokens(n int) int { return (n + 3) / 4 }
