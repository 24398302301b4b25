package main

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"
)

const (
	benchToken  = "7000000001:AAH-bench_Token"
	benchSecret = "bench-secret"
)

// botAPI is a fake Telegram Bot API on loopback, speaking its wire format
// (multipart requests, {"ok":true,"result":...} answers). It hands each
// sendMessage to the waiter of its chat.
type botAPI struct {
	mu      sync.Mutex
	waiters map[string]chan time.Time // chat id → reply arrival times
}

func newBotAPI() *botAPI { return &botAPI{waiters: map[string]chan time.Time{}} }

// replies returns the channel on which chat's replies arrive.
func (b *botAPI) replies(chat string) chan time.Time {
	b.mu.Lock()
	defer b.mu.Unlock()
	c, ok := b.waiters[chat]
	if !ok {
		c = make(chan time.Time, 64)
		b.waiters[chat] = c
	}
	return c
}

func (b *botAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	method, ok := strings.CutPrefix(r.URL.Path, "/bot"+benchToken+"/")
	w.Header().Set("Content-Type", "application/json")
	if !ok && !strings.HasPrefix(r.URL.Path, "/file/bot"+benchToken+"/") {
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprint(w, `{"ok":false,"error_code":401,"description":"Unauthorized"}`)
		return
	}
	if serveFiles(w, r, method) {
		return
	}
	if method != "sendMessage" { // sendChatAction, setMyCommands, getMe
		fmt.Fprint(w, `{"ok":true,"result":true}`)
		return
	}
	_ = r.ParseMultipartForm(1 << 20)
	chat := r.FormValue("chat_id")
	fmt.Fprintf(w, `{"ok":true,"result":{"message_id":1,"date":%d,"chat":{"id":%s,"type":"private"},"text":"ok"}}`,
		time.Now().Unix(), chat)
	b.replies(chat) <- time.Now()
}
