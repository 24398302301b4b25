package codec

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// OutcomeDailyLimit is the outcome of a turn answered without the model
// because the chat used its daily tokens.
const OutcomeDailyLimit = "daily_limit"

// Status is the one-line summary the in-chat /status command shows of a
// conversation stored in size bytes that expires after ttl idle.
func Status(env *Envelope, size int, ttl time.Duration) string {
	if env.Turns == 0 && len(env.History) == 0 {
		return "No conversation yet: say hello!"
	}
	expiry := "no expiry"
	if ttl > 0 {
		expiry = "expires after " + ttl.Round(time.Minute).String() + " idle"
	}
	compactions := strconv.Itoa(env.Compaction.Count)
	if c := env.Compaction; c.Count > 0 {
		compactions += fmt.Sprintf(" (last %s ago, %d → %d tokens)", time.Since(c.Last).Round(time.Second), c.TokensBefore, c.TokensAfter)
	}
	s := fmt.Sprintf("Turns: %d · Messages kept: %d · Stored: %s · Tokens used: %d in / %d out (%d today) · Compactions: %s · Conversation %s",
		env.Turns, len(env.History), humanBytes(size), env.Usage.InputTokens, env.Usage.OutputTokens,
		env.TokensToday(time.Now()), compactions, expiry)
	if n := len(env.Records); n > 0 {
		s += " · Last turn: " + summary(env.Records[n-1])
	}
	return s
}

// PauseStatus is what Status adds, for an operator, about a takeover in
// force at now; empty when the chat is not paused.
func PauseStatus(env *Envelope, now time.Time) string {
	if !env.Paused(now) {
		return ""
	}
	s := " · Paused by an operator until " + env.PausedUntil.UTC().Format(time.RFC3339)
	if env.PausedBy != "" {
		s += " (" + env.PausedBy + ")"
	}
	return s
}

// summary is one turn record for Status.
func summary(r Record) string {
	if r.Outcome == OutcomeDailyLimit {
		return "daily token limit reached"
	}
	s := fmt.Sprintf("%s, %d in / %d out", cmp.Or(r.Provider, "no provider answered"), r.Usage.InputTokens, r.Usage.OutputTokens)
	if r.ToolCalls > 0 {
		s += fmt.Sprintf(", %d tool calls", r.ToolCalls)
	}
	s += ", " + r.Duration.Round(100*time.Millisecond).String()
	if r.Outcome != "ok" {
		s += " (" + strings.ReplaceAll(r.Outcome, "_", " ") + ")"
	}
	return s
}

func humanBytes(n int) string {
	if n < 1024 {
		return fmt.Sprintf("%d B", n)
	}
	return fmt.Sprintf("%.1f KB", float64(n)/1024)
}
