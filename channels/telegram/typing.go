package telegram

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/botgw/botgw"
)

const typingEvery = 4 * time.Second // Telegram shows "typing" for about 5 s

// maxActionAnswer bounds the answer to sendChatAction read ({"ok":true,
// "result":true}, or an error's description).
const maxActionAnswer = 64 << 10

// StartTyping shows "typing…" in the chat of in, renewed every 4 s, until
// stop is called or ctx ends. Each signal is sent from a timer's goroutine,
// so nothing waits between signals: a turn waiting on the model holds no
// goroutine or ticker for its typing. stop waits for a signal in flight,
// so none follows the reply.
func (a *adapter) StartTyping(ctx context.Context, in botgw.Inbound) (stop func()) {
	t, err := parseTarget(in.Chat)
	if err != nil {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	s := &typingSignal{a: a, ctx: ctx, to: t}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.next = time.AfterFunc(0, s.send)
	return func() {
		cancel()
		s.mu.Lock() // waits for a signal in flight
		defer s.mu.Unlock()
		s.next.Stop()
	}
}

// typingSignal is one turn's typing indicator.
type typingSignal struct {
	a   *adapter
	ctx context.Context // ends when the turn stops typing
	to  target

	mu   sync.Mutex  // held while a signal is sent
	next *time.Timer // sends the next signal
}

// send sends one signal and sets the next one typingEvery later.
func (s *typingSignal) send() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ctx.Err() != nil {
		return
	}
	if err := s.a.sendTyping(s.ctx, s.to); err != nil && s.ctx.Err() == nil {
		s.a.log.Debug("telegram typing", "chat", s.to.key, "err", err)
	}
	if s.ctx.Err() == nil {
		s.next.Reset(typingEvery)
	}
}

// sendTyping calls sendChatAction with the action "typing" for t. A slow
// model makes it one call every turn, so the gateway makes it itself, as
// a JSON body of a few bytes on the Bot API's client: go-telegram/bot
// writes every call's multipart form through a pipe from a goroutine of
// its own, and decodes the answer twice.
func (a *adapter) sendTyping(ctx context.Context, t target) error {
	body := make([]byte, 0, 96)
	body = append(body, `{"chat_id":`...)
	body = strconv.AppendInt(body, t.chat, 10)
	if t.thread != 0 {
		body = append(body, `,"message_thread_id":`...)
		body = strconv.AppendInt(body, int64(t.thread), 10)
	}
	body = append(body, `,"action":"typing"}`...)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.apiURL+"/bot"+a.cfg.Token+"/sendChatAction", bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("telegram sendChatAction request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := a.api.Do(req)
	if err != nil {
		return fmt.Errorf("telegram sendChatAction: %w", redactToken(err, a.cfg.Token))
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxActionAnswer))
	if err != nil {
		return fmt.Errorf("telegram sendChatAction: read answer: %w", err)
	}
	var r struct {
		OK          bool   `json:"ok"`
		ErrorCode   int    `json:"error_code"`
		Description string `json:"description"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return fmt.Errorf("telegram sendChatAction: HTTP %d: undecodable answer: %w", resp.StatusCode, err)
	}
	if !r.OK {
		return fmt.Errorf("telegram sendChatAction: %d %s", r.ErrorCode, r.Description)
	}
	return nil
}
