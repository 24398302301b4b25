package channeltest

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// Past the bot-wide limit the fake answers as Telegram does: 429 with
// parameters.retry_after, and the message is not taken.
func TestBotLimitAnswers429PastTheBurst(t *testing.T) {
	f := NewBotAPI(t, "7000000001:AAH-limit", "limitbot")
	f.BotLimit(0.001, 2) // a token every 1000 s: only the burst goes through
	var codes []int
	var last struct {
		Parameters struct {
			RetryAfter int `json:"retry_after"`
		} `json:"parameters"`
	}
	for range 3 {
		res, err := http.Post(f.URL+"/bot"+f.Token+"/sendMessage", "application/json",
			strings.NewReader(`{"chat_id":42,"text":"hi"}`))
		if err != nil {
			t.Fatal(err)
		}
		_ = json.NewDecoder(res.Body).Decode(&last)
		res.Body.Close()
		codes = append(codes, res.StatusCode)
	}
	if codes[0] != 200 || codes[1] != 200 || codes[2] != http.StatusTooManyRequests || last.Parameters.RetryAfter < 1 {
		t.Errorf("answers %v (last retry_after %d), want 200 200 429 with retry_after", codes, last.Parameters.RetryAfter)
	}
	if n, r := len(f.Delivered()), f.Refused429(); n != 2 || r != 1 {
		t.Errorf("took %d messages and refused %d, want 2 and 1", n, r)
	}
}
