// Package e2e holds what the whole-system tests of cmd/botgw share: a
// config file to start a gateway with, requests to its HTTP API, and the
// wait for it to answer.
package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/botgw/botgw/internal/wait"
)

// WriteFile writes a config (YAML text) to a file of its own that is
// removed with the test, and returns its path.
func WriteFile(t testing.TB, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// Post sends body to url with contentType and header pairs (name, value,
// ...), and returns the status; 0 when the server did not answer at all.
func Post(url, contentType, body string, header ...string) int {
	res, err := post(url, contentType, body, header)
	if err != nil {
		return 0
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res.StatusCode
}

// PostJSON sends a JSON body with header pairs and decodes the JSON
// answer; it fails the test when there is no answer or it is not JSON.
func PostJSON(t testing.TB, url, body string, header ...string) (int, map[string]any) {
	t.Helper()
	res, err := post(url, "application/json", body, header)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: non-JSON answer %d %q", url, res.StatusCode, b)
	}
	return res.StatusCode, v
}

func post(url, contentType, body string, header []string) (*http.Response, error) {
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", contentType)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return http.DefaultClient.Do(req)
}

// Healthy reports whether the gateway at base answers GET /healthz.
func Healthy(base string) bool {
	res, err := http.Get(base + "/healthz")
	if err != nil {
		return false
	}
	res.Body.Close()
	return true
}

// AwaitHealthy waits until the gateway at base (what names it) answers
// GET /healthz, and fails the test if it does not within wait.Deadline.
func AwaitHealthy(t testing.TB, base, what string) {
	t.Helper()
	wait.Eventually(t, what+" to answer /healthz", func() bool { return Healthy(base) })
}
