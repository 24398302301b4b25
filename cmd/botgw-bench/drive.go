package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// samples are one run's latencies.
type samples struct {
	mu     sync.Mutex
	ack    []time.Duration   // webhook answered
	e2e    []time.Duration   // reply reached the fake Bot API
	byTurn [][]time.Duration // e2e by the chat's turn number (0: its first message)
	text   []time.Duration   // e2e of text messages (not photos or voice notes)
}

func (s *samples) add(turn int, ack, e2e time.Duration, text bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ack = append(s.ack, ack)
	if e2e > 0 {
		s.e2e = append(s.e2e, e2e)
		if text {
			s.text = append(s.text, e2e)
		}
		for len(s.byTurn) <= turn {
			s.byTurn = append(s.byTurn, nil)
		}
		s.byTurn[turn] = append(s.byTurn[turn], e2e)
	}
}

// chatID is the Telegram chat id of bench chat c.
func chatID(c int) int64 { return 1_000_000 + int64(c) }

// update is a private-chat text message in the Bot API's Update format.
func update(updateID int64, chat int64, msg int, text string) []byte {
	return fmt.Appendf(nil, `{"update_id":%d,"message":{"message_id":%d,"date":%d,`+
		`"chat":{"id":%d,"type":"private","first_name":"Player"},`+
		`"from":{"id":%d,"is_bot":false,"first_name":"Player"},"text":%q}}`,
		updateID, msg, time.Now().Unix(), chat, chat, text)
}

// post sends one update to the webhook and returns the time to the answer.
func post(ctx context.Context, client *http.Client, url string, body []byte) (time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Telegram-Bot-Api-Secret-Token", benchSecret)
	start := time.Now()
	res, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("webhook answered %d", res.StatusCode)
	}
	return time.Since(start), nil
}

// driveChat plays one user: send a message, wait for the reply, repeat.
// replies is nil in ceiling mode (no reply is awaited).
func driveChat(ctx context.Context, client *http.Client, url string, c int, o options, replies chan time.Time, s *samples) error {
	msgs := o.messages
	for m := range msgs {
		id := int64(c)*int64(msgs) + int64(m) + 1
		body := update(id, chatID(c), m+1, "Where is the next clue? I am at the clock tower, message "+strconv.Itoa(m))
		if isMedia(o, m) {
			body = mediaUpdate(id, chatID(c), m+1)
		}
		start := time.Now()
		ack, err := post(ctx, client, url, body)
		if err != nil {
			return fmt.Errorf("chat %d message %d: %w", c, m, err)
		}
		var e2e time.Duration
		if replies != nil {
			select {
			case at := <-replies:
				e2e = at.Sub(start)
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		s.add(m, ack, e2e, !isMedia(o, m))
	}
	return nil
}

// webhookConnections caps the driver's connections to the webhook as
// Telegram does: it delivers updates over at most max_connections (1–100,
// default 40) connections per bot. Chats beyond it wait for a connection, as
// their updates would wait at Telegram.
const webhookConnections = 100

// drive runs every chat at once and returns the samples and wall time.
func drive(ctx context.Context, url string, o options, api *botAPI) (*samples, time.Duration, error) {
	conns := min(o.chats, webhookConnections)
	client := &http.Client{Transport: &http.Transport{MaxConnsPerHost: conns, MaxIdleConnsPerHost: conns}}
	defer client.CloseIdleConnections()
	s := &samples{}
	errs := make(chan error, o.chats)
	start := time.Now()
	var wg sync.WaitGroup
	for c := range o.chats {
		var replies chan time.Time
		if api != nil {
			replies = api.replies(strconv.FormatInt(chatID(c), 10))
		}
		wg.Go(func() { errs <- driveChat(ctx, client, url, c, o, replies, s) })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			return s, time.Since(start), err
		}
	}
	return s, time.Since(start), nil
}
