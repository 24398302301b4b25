package channels

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-telegram/bot"
)

// A gateway making many calls at once must reuse its connections to the
// platform's API (each new one is a TCP and TLS handshake), not keep a few
// and open the rest again on every burst as net/http's default does: the
// replies to a thousand players waiting on a slow model end together.
func TestPlatformClientReusesConnectionsAcrossBursts(t *testing.T) {
	const burst = 1000
	var opened atomic.Int64
	release := make(chan struct{})
	var inFlight sync.WaitGroup
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		inFlight.Done()
		<-release // hold every request until the whole burst is in flight
		io.WriteString(w, `{"ok":true,"result":true}`)
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			opened.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()

	client := HTTPClient(10 * time.Second)
	for round := range 3 {
		release = make(chan struct{})
		inFlight.Add(burst)
		var done sync.WaitGroup
		for range burst {
			done.Go(func() {
				resp, err := client.Get(srv.URL)
				if err != nil {
					t.Errorf("round %d: %v", round, err)
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			})
		}
		inFlight.Wait()
		close(release)
		done.Wait()
	}
	if n := opened.Load(); n > burst {
		t.Errorf("3 bursts of %d requests opened %d connections, want at most %d (reused)", burst, n, burst)
	}
}

const sendMessageOK = `{"ok":true,"result":{"message_id":1,"date":1,"chat":{"id":1,"type":"private"},"text":"hi"}}`

// go-telegram/bot streams its multipart form through a pipe; the platform
// client sends it with its length, in one piece, not chunked.
func TestStreamedBodyGoesWithItsLength(t *testing.T) {
	type seen struct {
		length   int64
		chunked  bool
		chat     string
		text     string
		readBody int
	}
	got := make(chan seen, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s := seen{length: r.ContentLength, chunked: len(r.TransferEncoding) > 0}
		if err := r.ParseMultipartForm(1 << 20); err != nil {
			t.Errorf("multipart form: %v", err)
		}
		s.chat, s.text = r.FormValue("chat_id"), r.FormValue("text")
		got <- s
		io.WriteString(w, sendMessageOK)
	}))
	defer srv.Close()
	b, err := bot.New("1:x", bot.WithServerURL(srv.URL), bot.WithHTTPClient(10*time.Second, HTTPClient(10*time.Second)), bot.WithSkipGetMe())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.SendMessage(t.Context(), &bot.SendMessageParams{ChatID: 42, Text: "+50 points"}); err != nil {
		t.Fatal(err)
	}
	s := <-got
	if s.chunked || s.length <= 0 {
		t.Errorf("request went with Content-Length %d, chunked %v; want its length, not chunked", s.length, s.chunked)
	}
	if s.chat != "42" || s.text != "+50 points" {
		t.Errorf("form carried chat_id %q, text %q", s.chat, s.text)
	}
}

// BenchmarkTelegramSendMessage is one go-telegram/bot sendMessage round
// trip to a local server through the platform client ("streamed": the same
// without sending the body with its length).
func BenchmarkTelegramSendMessage(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		io.WriteString(w, sendMessageOK)
	}))
	defer srv.Close()
	for _, name := range []string{"sized", "streamed"} {
		b.Run(name, func(b *testing.B) {
			c := HTTPClient(10 * time.Second)
			if name == "streamed" {
				c.Transport = c.Transport.(sizedBody).next
			}
			tg, err := bot.New("1:x", bot.WithServerURL(srv.URL), bot.WithHTTPClient(10*time.Second, c), bot.WithSkipGetMe())
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := tg.SendMessage(b.Context(), &bot.SendMessageParams{ChatID: 1, Text: "You are at Harrogate Theatre: +50 points."}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// A platform API that stops answering mid-request does not hold a send
// forever: the client ends the request, its answer's body included, after
// its timeout.
func TestPlatformClientEndsAHungRequest(t *testing.T) {
	hang := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/body" {
			io.WriteString(w, `{"ok":`)
			w.(http.Flusher).Flush()
		}
		<-hang
	}))
	defer srv.Close()
	defer close(hang) // before Close, which waits for the handlers
	client := HTTPClient(200 * time.Millisecond)
	for _, path := range []string{"/headers", "/body"} {
		done := make(chan error, 1)
		go func() {
			resp, err := client.Get(srv.URL + path)
			if err == nil {
				_, err = io.ReadAll(resp.Body)
				resp.Body.Close()
			}
			done <- err
		}()
		select {
		case err := <-done:
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("%s: hung request ended with %v, want its deadline", path, err)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("%s: a hung request never ended", path)
		}
	}
}
