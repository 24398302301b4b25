// Package compaction shrinks a conversation history ([]botgw.Message) before
// it is stored and sent to the LLM.
//
// # Exchanges
//
// Strategies never cut inside an exchange: a user message together with
// everything that answered it (assistant messages, their tool calls and
// results) and the keyless events that arrived before the next user message.
// Messages before the first user message (events, summaries left by earlier
// compactions) form a leading group whose messages are dropped one by one,
// oldest first. When a strategy drops an exchange that used tools, it leaves
// a one-line summary (RoleSummary) in its place:
//
//	Earlier: user asked "weather in Paris?"; get_weather({"city":"Paris"}) → sunny 22°C
//
// Consecutive lines are merged into one message. These summaries count toward
// budgets like any message and are dropped, oldest first, when the budget
// needs it.
//
// # Pinning
//
// The latest event of each key (an event with a non-empty EventKey, such as
// the player's current location) is pinned: every strategy keeps it, where it
// was. Older events of the same key are superseded and left out by every
// strategy but None (the engine normally replaces them itself).
//
// # Never destroy a conversation
//
// Compaction only ever drops the oldest context and only as much as its
// limit needs: the newest exchange is always kept whole, even when it alone
// exceeds a budget, pinned events always survive, and an LLM summary that
// fails, is empty or is not shorter than what it replaces is discarded in
// favour of a deterministic fallback. No strategy mutates the history it is
// given. Compactors hold no state between calls and are safe for concurrent
// use.
package compaction
