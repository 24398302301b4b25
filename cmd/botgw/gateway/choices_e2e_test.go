package gateway

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/channels/channeltest"
	"github.com/botgw/botgw/internal/wait"
	"github.com/botgw/botgw/state/redistest"
)

// choiceReplicas are two replicas of the built binary on real Redis, with
// Telegram webhooks, app events and the OpenAI fake (echo) under a key of
// their own.
func choiceReplicas(t *testing.T) (llm *faultLLM, api *channeltest.BotAPI, a, b *replica) {
	t.Helper()
	redisURL := redistest.URL(t)
	llm, llmURL := newFaultLLM(t)
	api = newBotAPI(t)
	rnd := make([]byte, 4)
	_, _ = rand.Read(rnd)
	prefix := "choices" + hex.EncodeToString(rnd)
	t.Cleanup(func() { redistest.Drop(t, redisURL, prefix) }) // after the replicas stop
	cfg := func(key string) string {
		return faultConfig("url: "+redisURL, prefix, llmURL, key, api.URL) + "events: {secret: " + eventsSecret + "}\n"
	}
	return llm, api, startReplica(t, "a", cfg("key-a")), startReplica(t, "b", cfg("key-b"))
}

// lastUser is the last player message of chat's history, read through the
// admin API of base.
func lastUser(t *testing.T, base string, chat int64) botgw.Message {
	t.Helper()
	view, err := adminChat(base, chat)
	if err != nil {
		t.Fatal(err)
	}
	var m botgw.Message
	for _, h := range view.History {
		if h.Role == botgw.RoleUser {
			m = h
		}
	}
	return m
}

// TestTelegramTapsAcrossRestartAndReplicas: choices from an app event are
// an inline keyboard; a tap is stored and answered before its turn runs
// (the model is held until after the answer), on another replica than the
// one that sent the buttons; the same callback_query twice is one turn; a
// tap on a message Telegram sends as inaccessible, after a restart, finds
// its label in the history; a tap with unknown data gets a note, no turn.
// The webhook's 200 answers each tap's callback query.
func TestTelegramTapsAcrossRestartAndReplicas(t *testing.T) {
	llm, api, a, b := choiceReplicas(t)
	const chat = int64(424242)
	body := fmt.Sprintf(`{"chat":"telegram:%d","text":"The bridge is closed","respond":true,"choices":["Take the ferry","Walk"]}`, chat)
	if code := postEvent(t, a.base, body); code != http.StatusAccepted {
		t.Fatalf("event with choices: %d, want 202", code)
	}
	wait.Eventually(t, "the condition", func() bool { return sentTo(api, chat) == 1 })
	offered := api.Offered()
	if got := offered[len(offered)-1]; !slices.Equal(got, []string{"Take the ferry", "Walk"}) {
		t.Fatalf("buttons %q, want the event's choices", got)
	}
	n := len(offered) - 1

	// The model is held: a turn cannot finish before the test lets it.
	llm.hold("key-a")
	llm.hold("key-b")
	a.stop(t)
	a.start(t)
	tap := api.Tap(990001, "cbq-walk", n, 1, chat, false)
	code, answer := postTap(t, b.base, tap)
	if code != http.StatusOK || answer["method"] != "answerCallbackQuery" || answer["callback_query_id"] != "cbq-walk" {
		t.Fatalf("tap on replica b: %d %v, want 200 answering the tap's callback query", code, answer)
	}
	if sentTo(api, chat) != 1 {
		t.Fatal("the tap's reply went out before the webhook answered its callback query")
	}
	if code := postUpdate(a.base, string(tap)); code != http.StatusOK { // Telegram redelivers, to the other replica
		t.Fatalf("redelivered tap: %d, want 200", code)
	}
	llm.releaseAll()
	wait.Eventually(t, "the condition", func() bool { return sentTo(api, chat) == 2 })
	if m := lastUser(t, b.base, chat); m.Text != "Walk" || !m.Tap {
		t.Errorf("the player's message %+v, want the label %q marked as a tap", m, "Walk")
	}

	old := api.Tap(990002, "cbq-ferry", n, 0, chat, true) // after a restart, on an inaccessible message
	if code := postUpdate(a.base, string(old)); code != http.StatusOK {
		t.Fatalf("tap on an inaccessible message: %d, want 200", code)
	}
	wait.Eventually(t, "the condition", func() bool { return sentTo(api, chat) == 3 })
	if m := lastUser(t, a.base, chat); m.Text != "Take the ferry" || !m.Tap {
		t.Errorf("the player's message %+v, want the label found in the history", m)
	}

	calls := llm.callsBy("key-a") + llm.callsBy("key-b")
	code, answer = postTap(t, b.base, api.TapData(990003, "cbq-forged", n, "buy:sword", chat))
	if code != http.StatusOK || answer["method"] != "answerCallbackQuery" || answer["text"] == nil {
		t.Fatalf("tap with unknown data: %d %v, want 200 answering the callback query with a note", code, answer)
	}
	wait.Eventually(t, "the condition", func() bool { return sentTo(api, chat) == 4 })
	if note := api.Delivered()[len(api.Delivered())-1].Params["text"]; !strings.Contains(note, "no longer works") {
		t.Errorf("answer to an unknown tap %q, want the short note", note)
	}
	if m := lastUser(t, b.base, chat); !m.Tap || !strings.Contains(m.Text, "no longer works") {
		t.Errorf("history's last player message %+v, want the unknown tap kept", m)
	}
	quiesced(t, a.base)
	quiesced(t, b.base)
	if now := llm.callsBy("key-a") + llm.callsBy("key-b"); now != calls || calls != 3 {
		t.Errorf("model calls %d then %d, want 3 (event, tap, old tap) and none for the unknown tap or the redelivery", calls, now)
	}
	if sent := sentTo(api, chat); sent != 4 {
		t.Errorf("%d messages to the chat, want 4: the redelivered tap is no second turn", sent)
	}
}
