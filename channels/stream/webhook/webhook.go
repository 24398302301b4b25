// Package webhook is the conversation stream's webhook sink: each batch is
// one POST of {"records": [...]}, signed like POST /v1/events
// (X-Botgw-Timestamp and X-Botgw-Signature: v1=<hex HMAC-SHA256 of
// "<timestamp>.<body>">); any 2xx acknowledges the batch.
package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/internal/httpclient"
	"github.com/botgw/botgw/webhooks"
)

// Config is stream.webhook.
type Config struct {
	URL     string `yaml:"url"`
	Secret  string `yaml:"secret"`
	Content *bool  `yaml:"content"` // default true
}

// Sink posts batches to one URL.
type Sink struct {
	url    string
	secret []byte
	client *http.Client
	now    func() time.Time
}

// New builds the sink; client nil means a client with a 30 s timeout.
func New(cfg Config, client *http.Client) *Sink {
	if client == nil {
		client = httpclient.New(nil)
		client.Timeout = 30 * time.Second
	}
	return &Sink{url: cfg.URL, secret: []byte(cfg.Secret), client: client, now: time.Now}
}

// Name is "webhook".
func (s *Sink) Name() string { return "webhook" }

// Deliver posts recs and returns nil on a 2xx.
func (s *Sink) Deliver(ctx context.Context, recs []botgw.StreamRecord) error {
	body, err := json.Marshal(struct {
		Records []botgw.StreamRecord `json:"records"`
	}{recs})
	if err != nil {
		return fmt.Errorf("encode stream batch: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("stream webhook request: %w", err)
	}
	ts := strconv.FormatInt(s.now().Unix(), 10)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Botgw-Timestamp", ts)
	req.Header.Set("X-Botgw-Signature", webhooks.Sign(s.secret, ts, body))
	resp, err := s.client.Do(req)
	if err != nil {
		return fmt.Errorf("post stream batch: %w", err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)) // lets the connection be reused
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("post stream batch: receiver answered %s", resp.Status)
	}
	return nil
}
