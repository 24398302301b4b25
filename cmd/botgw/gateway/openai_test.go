package gateway

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/botgw/botgw/channels/web"
	"github.com/botgw/botgw/internal/e2e"
	"github.com/botgw/botgw/providers/providertest"
)

// failFirst answers the first call with OpenAI's error for status (and
// Retry-After: 0), then echoes the last user message.
func failFirst(status int) providertest.Respond {
	return func(n int, w http.ResponseWriter, r *http.Request) {
		if n == 0 {
			w.Header().Set("Retry-After", "0")
			providertest.OpenAIStatus(status).Write(w)
			return
		}
		providertest.Echo()(n, w, r)
	}
}

func TestOpenAIErrorsGiveAnApologyAndKeepTheMessage(t *testing.T) {
	for _, status := range []int{401, 429, 500} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			fake := providertest.NewOpenAI(t, failFirst(status))
			none := 0
			cfg := DefaultConfig()
			cfg.Channels.Web = &web.Config{ReplyTimeout: 20 * time.Second}
			cfg.Provider = ProviderConfig{Kind: "openai", BaseURL: fake.URL + "/v1", APIKey: "sk-test",
				Model: "gpt-4o-mini", MaxRetries: &none}
			base := startGateway(t, cfg)

			_, v := e2e.PostJSON(t, base+"/v1/chat", `{"chat":"web:p","text":"where is the theatre?"}`)
			if reply, _ := v["reply"].(string); !strings.HasPrefix(reply, "Sorry") {
				t.Fatalf("reply after %d = %q, want the apology", status, reply)
			}
			_, v = e2e.PostJSON(t, base+"/v1/chat", `{"chat":"web:p","text":"hello again"}`)
			if v["reply"] != "You said: hello again" {
				t.Fatalf("second reply = %v", v)
			}
			reqs := fake.Calls()
			var got []string
			for _, m := range reqs[len(reqs)-1].Body.Messages {
				got = append(got, m.Role+": "+m.Text())
			}
			want := []string{"system: " + cfg.SystemPrompt, "user: where is the theatre?", "user: hello again"}
			if strings.Join(got, "|") != strings.Join(want, "|") {
				t.Errorf("second request messages = %q, want %q", got, want)
			}
			if reqs[0].Body.Model != "gpt-4o-mini" {
				t.Errorf("model = %v", reqs[0].Body.Model)
			}
		})
	}
}
