package compaction

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/botgw/botgw"
)

var words = strings.Fields(`the player walks to the old theatre near the station and asks where
	to find coffee a museum a castle the river bridge points badge quest clue map tower garden
	Harrogate Bettys library market north south left right opens closes tonight tomorrow`)

func sentence(r *rand.Rand, n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = words[r.IntN(len(words))]
	}
	return strings.Join(w, " ")
}

// turn appends one simulated turn to h: sometimes a location or a keyless
// event, a user message, sometimes a tool call, an answer.
func turn(r *rand.Rand, h []botgw.Message, i int) []botgw.Message {
	if r.IntN(3) == 0 {
		h = append(h, event("location", fmt.Sprintf("Player is at stop %d", i)))
	}
	if r.IntN(5) == 0 {
		h = append(h, event("", "Player earned "+sentence(r, 3)))
	}
	h = append(h, user(fmt.Sprintf("turn %d: %s?", i, sentence(r, 5+r.IntN(120)))))
	if r.IntN(4) == 0 {
		h = append(h, call("find_places", fmt.Sprintf(`{"near":"stop %d"}`, i), sentence(r, 10+r.IntN(60))))
	}
	return append(h, assistant(sentence(r, 10+r.IntN(200))))
}

func TestTokenBudgetOverManyTurns(t *testing.T) {
	const budget = 2000
	counter := NewCounter("gpt-4o")
	c := TokenBudget(budget, counter)
	r := rand.New(rand.NewPCG(1, 2))
	var h []botgw.Message
	maxBytes, maxMessages := 0, 0
	for i := range 100 {
		in := turn(r, h, i)
		h = compact(t, c, in)
		checkInvariants(t, in, h)
		if got := CountMessages(counter, h); got > budget {
			t.Fatalf("turn %d: %d tokens, want at most %d", i, got, budget)
		}
		if i >= 10 && len(exchangesOf(h)) < 3 {
			t.Fatalf("turn %d: only %d exchanges kept, want the recent ones:%s", i, len(exchangesOf(h)), render(h))
		}
		b, _ := json.Marshal(h)
		maxBytes, maxMessages = max(maxBytes, len(b)), max(maxMessages, len(h))
	}
	if len(summaries(h)) == 0 {
		t.Errorf("no summary of dropped tool exchanges left after 100 turns:%s", render(h))
	}
	if maxBytes > 32<<10 {
		t.Errorf("history grew to %d bytes of JSON, want it bounded by the budget", maxBytes)
	}
	t.Logf("100 turns at %d tokens: at most %d messages, %d bytes of JSON; finally %d exchanges, %d summaries",
		budget, maxMessages, maxBytes, len(exchangesOf(h)), len(summaries(h)))
}
