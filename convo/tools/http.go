// Package tools runs the model's tool calls as HTTP requests to the game's
// endpoints, declared in config (tools[i]).
package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/internal/httpclient"
)

// Limits of one HTTP tool call.
const (
	DefaultTimeout = 10 * time.Second
	// MaxResponse bounds what the model sees of an endpoint's answer;
	// longer bodies are cut with a note saying so.
	MaxResponse  = 64 << 10
	maxErrorBody = 1 << 10
)

// HTTP runs tool calls as HTTP requests to the game's endpoints. The
// arguments are the JSON body (query parameters for GET); the headers
// X-Botgw-Chat, X-Botgw-User and X-Botgw-Call-Id say who asked. A failing
// or slow endpoint becomes an error for the model, never for the user.
// Safe for concurrent use.
type HTTP struct {
	client *http.Client
	tools  map[string]Config
	specs  []botgw.ToolSpec
	log    *slog.Logger
}

// NewHTTP checks the declarations (Validate) and builds the
// runner. log may be nil.
func NewHTTP(tools []Config, log *slog.Logger) (*HTTP, error) {
	if err := Validate(tools); err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	h := &HTTP{client: httpclient.New(nil), tools: make(map[string]Config, len(tools)), log: log}
	for _, t := range tools {
		params, _ := json.Marshal(t.schema()) // Validate checked it encodes
		h.tools[t.Name] = t
		h.specs = append(h.specs, botgw.ToolSpec{Name: t.Name, Description: t.Description, Parameters: params})
	}
	return h, nil
}

// Specs lists the tools in config order.
func (h *HTTP) Specs() []botgw.ToolSpec { return h.specs }

// Call runs one call: a 2xx answer is the result (cut at MaxResponse);
// anything else is an error whose text the model reads.
func (h *HTTP) Call(ctx context.Context, chat botgw.ChatKey, user string, call botgw.ToolCall) (string, error) {
	t, ok := h.tools[call.Name]
	if !ok {
		return "", fmt.Errorf("there is no tool named %q", call.Name)
	}
	args, err := arguments(call.Arguments)
	if err != nil {
		return "", err
	}
	timeout := t.timeout()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := t.request(ctx, args)
	if err != nil {
		return "", fmt.Errorf("tool %s request: %w", t.Name, err)
	}
	req.Header.Set("X-Botgw-Chat", chat.String())
	req.Header.Set("X-Botgw-User", user)
	req.Header.Set("X-Botgw-Call-Id", call.ID)
	res, err := h.client.Do(req)
	if err != nil {
		h.log.Warn("tool call failed", "chat", chat, "tool", t.Name, "err", err)
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return "", fmt.Errorf("the game server did not answer within %s", timeout)
		}
		return "", errors.New("the game server could not be reached")
	}
	defer res.Body.Close()
	return h.result(chat, t, res)
}

// result reads a response: the bounded body on 2xx, an error naming the
// status (and the body's start, which often explains it) otherwise.
func (h *HTTP) result(chat botgw.ChatKey, t Config, res *http.Response) (string, error) {
	body, cut, err := readBounded(res.Body, MaxResponse)
	if err != nil {
		h.log.Warn("tool response unreadable", "chat", chat, "tool", t.Name, "err", err)
		return "", errors.New("the game server's answer was cut off")
	}
	if res.StatusCode < 200 || res.StatusCode > 299 {
		h.log.Warn("tool endpoint refused", "chat", chat, "tool", t.Name, "status", res.StatusCode)
		msg := "status " + res.Status
		if detail := strings.TrimSpace(clip(body, maxErrorBody)); detail != "" {
			msg += ": " + detail
		}
		return "", errors.New(msg)
	}
	if cut {
		return body + fmt.Sprintf("\n[botgw: the answer was longer than %d bytes and was cut here]", MaxResponse), nil
	}
	if strings.TrimSpace(body) == "" {
		return "status " + res.Status + " (no content)", nil
	}
	return body, nil
}

// arguments parses the model's arguments: a JSON object ("" is {}).
func arguments(raw string) (map[string]any, error) {
	args := map[string]any{}
	if strings.TrimSpace(raw) == "" {
		return args, nil
	}
	if err := json.Unmarshal([]byte(raw), &args); err != nil {
		return nil, fmt.Errorf("the arguments are not a JSON object: %v", err)
	}
	return args, nil
}

// request builds the HTTP request: a JSON body, or query parameters for GET.
func (t Config) request(ctx context.Context, args map[string]any) (*http.Request, error) {
	method := t.method()
	u, err := url.Parse(t.URL)
	if err != nil {
		return nil, err
	}
	var body io.Reader
	if method == http.MethodGet {
		q := u.Query()
		for k, v := range args {
			q.Set(k, queryValue(v))
		}
		u.RawQuery = q.Encode()
	} else {
		b, err := json.Marshal(args)
		if err != nil {
			return nil, err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "botgw")
	for k, v := range t.Headers {
		req.Header.Set(k, v)
	}
	return req, nil
}

// queryValue writes strings as they are and anything else as JSON.
func queryValue(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v) // decoded from JSON: encodes again
	return string(b)
}

// readBounded reads up to limit bytes and reports whether there was more.
func readBounded(r io.Reader, limit int) (string, bool, error) {
	b, err := io.ReadAll(io.LimitReader(r, int64(limit)+1))
	if err != nil {
		return "", false, err
	}
	if len(b) <= limit {
		return string(b), false, nil
	}
	return strings.ToValidUTF8(string(b[:limit]), ""), true, nil
}

// clip shortens s to at most n bytes on a character boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}
