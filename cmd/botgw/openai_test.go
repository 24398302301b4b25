package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/botgw/botgw/channels/web"
)

// fakeOpenAI speaks the Chat Completions wire format: each request is
// answered by the next scripted status (200 = a completion echoing the last
// user message), with OpenAI's real error bodies.
type fakeOpenAI struct {
	mu       sync.Mutex
	statuses []int
	bodies   []map[string]any
}

var openAIErrors = map[int]string{
	401: `{"error":{"message":"Incorrect API key provided: sk-test. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`,
	429: `{"error":{"message":"Rate limit reached for gpt-4o-mini in organization org-test on requests per min (RPM): Limit 3, Used 3, Requested 1.","type":"requests","param":null,"code":"rate_limit_exceeded"}}`,
	500: `{"error":{"message":"The server had an error while processing your request. Sorry about that!","type":"server_error","param":null,"code":null}}`,
}

func (f *fakeOpenAI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer sk-test" {
		http.Error(w, `{"error":{"message":"unexpected request","type":"invalid_request_error","param":null,"code":null}}`, 404)
		return
	}
	var body map[string]any
	b, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(b, &body)
	f.mu.Lock()
	f.bodies = append(f.bodies, body)
	status := 200
	if len(f.statuses) > 0 {
		status, f.statuses = f.statuses[0], f.statuses[1:]
	}
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if status != 200 {
		w.Header().Set("Retry-After", "0")
		w.WriteHeader(status)
		io.WriteString(w, openAIErrors[status])
		return
	}
	msgs := body["messages"].([]any)
	last := msgs[len(msgs)-1].(map[string]any)["content"]
	fmt.Fprintf(w, `{"id":"chatcmpl-1","object":"chat.completion","created":1700000000,"model":"gpt-4o-mini",
"choices":[{"index":0,"message":{"role":"assistant","content":%q,"refusal":null},"logprobs":null,"finish_reason":"stop"}],
"usage":{"prompt_tokens":12,"completion_tokens":3,"total_tokens":15}}`, fmt.Sprint("You said: ", last))
}

func (f *fakeOpenAI) requests() []map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.bodies
}

func TestOpenAIErrorsGiveAnApologyAndKeepTheMessage(t *testing.T) {
	for _, status := range []int{401, 429, 500} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			fake := &fakeOpenAI{statuses: []int{status}}
			srv := httptest.NewServer(fake)
			defer srv.Close()
			none := 0
			cfg := DefaultConfig()
			cfg.Channels.Web = &web.Config{ReplyTimeout: 20 * time.Second}
			cfg.Provider = ProviderConfig{Kind: "openai", BaseURL: srv.URL + "/v1", APIKey: "sk-test",
				Model: "gpt-4o-mini", MaxRetries: &none}
			base := startGateway(t, cfg)

			_, v := postJSON(t, base+"/v1/chat", `{"chat":"web:p","text":"where is the theatre?"}`)
			if reply, _ := v["reply"].(string); !strings.HasPrefix(reply, "Sorry") {
				t.Fatalf("reply after %d = %q, want the apology", status, reply)
			}
			_, v = postJSON(t, base+"/v1/chat", `{"chat":"web:p","text":"hello again"}`)
			if v["reply"] != "You said: hello again" {
				t.Fatalf("second reply = %v", v)
			}
			reqs := fake.requests()
			msgs := reqs[len(reqs)-1]["messages"].([]any)
			var got []string
			for _, m := range msgs {
				mm := m.(map[string]any)
				got = append(got, fmt.Sprint(mm["role"], ": ", mm["content"]))
			}
			want := []string{"system: " + cfg.SystemPrompt, "user: where is the theatre?", "user: hello again"}
			if strings.Join(got, "|") != strings.Join(want, "|") {
				t.Errorf("second request messages = %q, want %q", got, want)
			}
			if reqs[0]["model"] != "gpt-4o-mini" {
				t.Errorf("model = %v", reqs[0]["model"])
			}
		})
	}
}
