// Package streamrec builds conversation-stream records (CONTRACT.md,
// "Conversation stream") for the engine and the operator API alike.
package streamrec

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"time"

	"github.com/botgw/botgw"
)

// busyWait is how long Reset waits for a running turn.
const busyWait = 3 * time.Second

// New is a record of chat k; the store numbers it.
func New(k botgw.ChatKey, agent, action, text string, at time.Time) botgw.StreamRecord {
	return botgw.StreamRecord{Version: botgw.StreamVersion, ConversationID: k.String(),
		AgentID: agent, Action: action, Timestamp: botgw.Millis(at), Text: text}
}

// OperatorAgent is the agent id of an operator action's author, from the
// actor the operator API and in-chat commands name: the admin request's
// operator name ("admin-api (name)"), "operator" without one, the user id
// of an in-chat operator ("telegram:123"), else the name itself.
func OperatorAgent(who string) string {
	switch {
	case who == "" || who == "admin-api":
		return "operator"
	case strings.HasPrefix(who, "admin-api (") && strings.HasSuffix(who, ")"):
		return "operator:" + strings.TrimSuffix(strings.TrimPrefix(who, "admin-api ("), ")")
	}
	if _, id, ok := strings.Cut(who, ":"); ok {
		return "operator:" + id
	}
	return "operator:" + who
}

// Reset forgets chat k's conversation under its lease, so the reset is
// committed with its record (by agent). It waits up to busyWait for a
// running turn to end; past that the chat is reset without a record
// (logged) rather than the reset refused.
func Reset(ctx context.Context, st botgw.Store, k botgw.ChatKey, agent string, log *slog.Logger) error {
	snap, err := st.Begin(ctx, k, "")
	for wait := time.Now().Add(busyWait); errors.Is(err, botgw.ErrBusy) && time.Now().Before(wait); {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		snap, err = st.Begin(ctx, k, "")
	}
	if errors.Is(err, botgw.ErrBusy) {
		if log != nil {
			log.Warn("reset while a turn runs: the stream gets no reset record", "chat", k)
		}
		return st.Reset(ctx, k)
	}
	if err != nil {
		return err
	}
	defer st.Release(context.WithoutCancel(ctx), k, snap.Lease)
	rec := New(k, agent, botgw.ActionReset, "", time.Now())
	return st.Commit(ctx, k, botgw.Commit{Lease: snap.Lease, Version: snap.Version, Records: []botgw.StreamRecord{rec}})
}
