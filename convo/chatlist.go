package convo

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/botgw/botgw"
)

// previewRunes is how much of the last message the chat list shows.
const previewRunes = 100

// activity is what the chat list keeps of a chat after a commit.
func activity(env *envelope, now time.Time) *botgw.ChatActivity {
	a := &botgw.ChatActivity{At: now}
	if env.paused(now) {
		a.PausedUntil = env.PausedUntil
	}
	for i := len(env.History) - 1; i >= 0; i-- {
		if m := env.History[i]; m.Text != "" {
			a.Preview = previewOf(m)
			break
		}
	}
	return a
}

// previewOf is "who: text", on one line, cut to previewRunes.
func previewOf(m botgw.Message) string {
	who := string(m.Role)
	switch {
	case m.Operator != "":
		who = "operator " + m.Operator
	case m.Role == botgw.RoleUser:
		who = "player"
	}
	text := squash(m.Text)
	if utf8.RuneCountInString(text) > previewRunes {
		text = string([]rune(text)[:previewRunes]) + "…"
	}
	return who + ": " + text
}

// squash joins the words of text by single spaces, stopping once it has
// more than previewRunes: the preview is cut there anyway, and a long reply
// is not split into words whole on every commit.
func squash(text string) string {
	var b strings.Builder
	b.Grow(min(len(text), previewRunes+previewRunes/4))
	n := 0
	for w := range strings.FieldsSeq(text) {
		if n > 0 {
			b.WriteByte(' ')
			n++
		}
		b.WriteString(w)
		if n += utf8.RuneCountInString(w); n > previewRunes {
			break
		}
	}
	return b.String()
}

// Chats lists chats newest activity first, filtered and paged by q, from
// the index the store keeps at commit. botgw.ErrUnsupported when the store
// keeps none; botgw.ErrBadCursor for a cursor it did not hand out.
func (o *Operator) Chats(ctx context.Context, q botgw.ChatQuery) ([]botgw.ChatSummary, string, error) {
	idx, ok := o.Store.(botgw.ChatIndex)
	if !ok {
		return nil, "", fmt.Errorf("chat list: %w", botgw.ErrUnsupported)
	}
	return idx.Chats(ctx, q)
}
