package operator

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/botgw/botgw"
)

// OptedOut is a chat that opted out of proactive messages, as the admin
// API lists it.
type OptedOut struct {
	Chat       string `json:"chat"`
	OptedOutAt string `json:"opted_out_at"` // RFC 3339
}

// OptedOutChats pages through the chats that opted out, oldest opt-out
// first; cursor is "" to start, and the next one is "" when done.
// botgw.ErrUnsupported when the store keeps no opt-outs;
// botgw.ErrBadCursor for a cursor it did not hand out.
func (o *API) OptedOutChats(ctx context.Context, cursor string, n int) ([]OptedOut, string, error) {
	oo, ok := o.Store.(botgw.OptOuts)
	if !ok {
		return nil, "", botgw.ErrUnsupported
	}
	offset := 0
	if cursor != "" {
		var err error
		if offset, err = strconv.Atoi(cursor); err != nil || offset < 0 {
			return nil, "", botgw.ErrBadCursor
		}
	}
	chats, err := oo.OptedOutChats(ctx, offset, n)
	if err != nil {
		return nil, "", err
	}
	out := make([]OptedOut, 0, len(chats))
	for _, k := range chats {
		at, err := oo.OptedOut(ctx, k)
		if err != nil {
			return nil, "", fmt.Errorf("list opted-out chats: %w", err)
		}
		if !at.IsZero() {
			out = append(out, OptedOut{Chat: k.String(), OptedOutAt: at.Format(time.RFC3339)})
		}
	}
	next := ""
	if len(chats) == n {
		next = strconv.Itoa(offset + n)
	}
	return out, next, nil
}

// optOutOf fills the view's opt-out (one Redis read).
func (o *API) optOutOf(ctx context.Context, k botgw.ChatKey, v *ChatView) error {
	oo, ok := o.Store.(botgw.OptOuts)
	if !ok {
		return nil
	}
	at, err := oo.OptedOut(ctx, k)
	if err != nil {
		return fmt.Errorf("show %s: %w", k, err)
	}
	if !at.IsZero() {
		v.OptedOut, v.OptedOutAt = true, at.Format(time.RFC3339)
	}
	return nil
}
