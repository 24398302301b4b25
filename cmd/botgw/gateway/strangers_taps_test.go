package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/botgw/botgw/channels/channeltest"
	"github.com/botgw/botgw/internal/e2e"
	"github.com/botgw/botgw/internal/wait"
	"github.com/botgw/botgw/providers/providertest"
	"github.com/botgw/botgw/state/redistest"
)

// tapGateway is one replica of the built binary on real Redis with
// Telegram webhooks, app events and the OpenAI fake (echo, API key key-a).
func tapGateway(t *testing.T) (*faultLLM, *channeltest.BotAPI, *replica) {
	t.Helper()
	redisURL := redistest.URL(t)
	llm, llmURL := newFaultLLM(t)
	api := newBotAPI(t)
	prefix := fmt.Sprintf("taps%d", time.Now().UnixNano())
	t.Cleanup(func() { redistest.Drop(t, redisURL, prefix) }) // after the replica stops
	cfg := faultConfig("url: "+redisURL, prefix, llmURL, "key-a", api.URL) + "events: {secret: " + eventsSecret + "}\n"
	return llm, api, startReplica(t, "a", cfg)
}

// offerChoices has an app event ask for a reply offering choices in chat
// and returns the index of the message that carries the buttons.
func offerChoices(t *testing.T, base string, api *channeltest.BotAPI, chat int64, choices string) int {
	t.Helper()
	body := fmt.Sprintf(`{"chat":"telegram:%d","text":"The round is over","respond":true,"choices":%s}`, chat, choices)
	if code := postEvent(t, base, body); code != http.StatusAccepted {
		t.Fatalf("event with choices: %d, want 202", code)
	}
	wait.Eventually(t, "the reply with the buttons", func() bool { return sentTo(api, chat) == 1 })
	return len(api.Offered()) - 1
}

// postTap posts a callback_query update and returns the status and the
// call the webhook's answer asks Telegram to make.
func postTap(t *testing.T, base string, update []byte) (int, map[string]any) {
	t.Helper()
	return e2e.PostJSON(t, base+"/webhooks/telegram", string(update), "X-Telegram-Bot-Api-Secret-Token", faultSecret)
}

// A tap's webhook is answered within Telegram's 5 s even when
// answerCallbackQuery takes 10 s: the answer itself answers the callback
// query, and the tap's turn runs.
func TestTapAnsweredWithinFiveSecondsWhenAnswerCallbackQueryIsSlow(t *testing.T) {
	_, api, r := tapGateway(t)
	api.Slow("answerCallbackQuery", 10*time.Second)
	const chat = int64(515151)
	n := offerChoices(t, r.base, api, chat, `["Take the ferry","Walk"]`)
	start := time.Now()
	code, answer := postTap(t, r.base, api.Tap(880001, "cbq-slow", n, 1, chat, false))
	took := time.Since(start)
	if code != http.StatusOK || took >= 5*time.Second {
		t.Fatalf("tap answered %d after %s, want 200 within 5 s", code, took.Round(time.Millisecond))
	}
	if answer["method"] != "answerCallbackQuery" || answer["callback_query_id"] != "cbq-slow" {
		t.Errorf("webhook's answer %v, want it to answer the callback query", answer)
	}
	wait.Eventually(t, "the tap's reply", func() bool { return sentTo(api, chat) == 2 })
}

// A choice labelled "/reset", tapped, is the player's words: the model
// reads it and the conversation is kept.
func TestTappedCommandLabelIsTextOnTheBinary(t *testing.T) {
	llm, api, r := tapGateway(t)
	const chat = int64(525252)
	n := offerChoices(t, r.base, api, chat, `["/reset","Keep going"]`)
	if code, _ := postTap(t, r.base, api.Tap(880002, "cbq-reset", n, 0, chat, false)); code != http.StatusOK {
		t.Fatalf("tap: %d, want 200", code)
	}
	wait.Eventually(t, "the tap's reply", func() bool { return sentTo(api, chat) == 2 })
	calls := llm.api.Calls()
	if len(calls) != 2 {
		t.Fatalf("model called %d times, want 2 (the event, the tap)", len(calls))
	}
	msgs := calls[1].Body.Messages
	if last := msgs[len(msgs)-1]; last.Role != "user" || last.Text() != "/reset" {
		t.Errorf("the model read %q (%s), want the tapped label %q as the player's words", last.Text(), last.Role, "/reset")
	}
	view, err := adminChat(r.base, chat)
	if err != nil {
		t.Fatal(err)
	}
	if len(view.History) < 3 {
		t.Errorf("history %+v, want the event's exchange kept (no reset)", view.History)
	}
	if m := lastUser(t, r.base, chat); m.Text != "/reset" || !m.Tap {
		t.Errorf("the player's message %+v, want the label marked as a tap", m)
	}
}

// A Telegram file download that the file server redirects to another host
// reaches it without the bot token: not in the URL, not in a header, not
// in a Referer; the photo still reaches the model.
func TestRedirectedDownloadCarriesNoToken(t *testing.T) {
	var mu sync.Mutex
	var seen []string // every request the other host got: URL and headers
	cdn := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h, _ := json.Marshal(r.Header)
		mu.Lock()
		seen = append(seen, r.URL.String()+" "+string(h))
		mu.Unlock()
		_, _ = w.Write(jpegPhoto(2000))
	}))
	t.Cleanup(cdn.Close)
	api := newBotAPI(t)
	api.AddMovedFile("ph-moved", cdn.URL+"/cdn/photo.jpg")
	llm := providertest.NewOpenAI(t, providertest.Always(providertest.Completion("Noted.")))
	provider := fmt.Sprintf("{kind: openai, base_url: %q, api_key: sk-test, model: gpt-4o-mini, max_retries: 0}", llm.URL+"/v1")
	prefix := fmt.Sprintf("moved%d", time.Now().UnixNano())
	base := runBinary(t, mediaConfig(redistest.URL(t), prefix, provider, "http://127.0.0.1:1", api.URL))
	update := tgMessage(601, 1, map[string]any{"photo": tgPhoto("ph-moved", 2000), "caption": "is this the bridge?"})
	if code := postUpdate(base, update); code != http.StatusOK {
		t.Fatalf("photo: %d, want 200", code)
	}
	wait.Eventually(t, "the photo's reply", func() bool { return sentTo(api, 601) == 1 })
	mu.Lock()
	defer mu.Unlock()
	if len(seen) == 0 {
		t.Fatal("the download never reached the host it was redirected to")
	}
	secret := strings.SplitN(e2eBotToken, ":", 2)[1]
	for _, req := range seen {
		if strings.Contains(req, secret) || strings.Contains(req, url.PathEscape(e2eBotToken)) {
			t.Errorf("the other host got the bot token: %s", req)
		}
	}
	if calls := llm.Calls(); len(calls) != 1 || !strings.Contains(string(calls[0].Raw), "data:image/jpeg;base64,") {
		t.Errorf("model calls %d, want one with the redirected photo", len(calls))
	}
}

// webView is a web chat as GET /v1/admin/chats/{chat} shows it.
func webView(t *testing.T, base, chat string) (view struct{ Outbox, Turns int }) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, base+"/v1/admin/chats/"+url.PathEscape(chat), nil)
	req.Header.Set("Authorization", "Bearer "+faultAdminToken)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	_ = json.NewDecoder(res.Body).Decode(&view)
	return view
}

// A client that lost the answer to POST /v1/chat and sends the same id
// again gets the first request's reply (200), not 202 pending after
// reply_timeout: once when the first request was still waiting when the
// reply came, once when its client had gone away before the reply.
func TestRetriedWebChatGetsItsReply(t *testing.T) {
	redisURL := redistest.URL(t)
	llm, llmURL := newFaultLLM(t)
	prefix := fmt.Sprintf("webretry%d", time.Now().UnixNano())
	t.Cleanup(func() { redistest.Drop(t, redisURL, prefix) })
	r := startReplica(t, "web", fmt.Sprintf(`
redis: {url: %q, key_prefix: %s}
provider: {kind: openai, base_url: %q, api_key: key-w, model: gpt-4o-mini, max_retries: 0}
compaction: {strategy: none}
channels:
  web: {token: %s, reply_timeout: 10s}
admin: {token: %s}
log: {level: warn, format: text}
`, redisURL, prefix, llmURL, strangerWebToken, faultAdminToken))
	chat := func(ctx context.Context, id, text string) (int, map[string]any, error) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, r.base+"/v1/chat",
			strings.NewReader(fmt.Sprintf(`{"chat":"web:retry","id":%q,"text":%q}`, id, text)))
		req.Header.Set("Authorization", "Bearer "+strangerWebToken)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, nil, err
		}
		defer res.Body.Close()
		var v map[string]any
		_ = json.NewDecoder(res.Body).Decode(&v)
		return res.StatusCode, v, nil
	}
	code, first, err := chat(t.Context(), "m-1", "where next?")
	if err != nil || code != http.StatusOK || first["reply"] != "You said: where next?" {
		t.Fatalf("first request: %d %v %v", code, first, err)
	}
	if code, again, _ := chat(t.Context(), "m-1", "where next?"); code != http.StatusOK || again["reply"] != first["reply"] {
		t.Errorf("retry after the answer was lost: %d %v, want 200 with %q", code, again, first["reply"])
	}

	llm.hold("key-w")
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { defer close(done); _, _, _ = chat(ctx, "m-2", "and after that?") }()
	wait.Eventually(t, "the second message at the model", func() bool { return llm.callsBy("key-w") == 2 })
	cancel() // the client goes away before the reply
	<-done
	llm.releaseAll()
	wait.Eventually(t, "the second reply sent", func() bool { v := webView(t, r.base, "web:retry"); return v.Turns == 2 && v.Outbox == 0 })
	if code, again, _ := chat(t.Context(), "m-2", "and after that?"); code != http.StatusOK || again["reply"] != "You said: and after that?" {
		t.Errorf("retry after the client went away: %d %v, want 200 with the reply", code, again)
	}
	if n := llm.callsBy("key-w"); n != 2 {
		t.Errorf("model called %d times, want 2: a retry is no new turn", n)
	}
}
