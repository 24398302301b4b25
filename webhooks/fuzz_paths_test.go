package webhooks

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
)

// FuzzPathParamDecodedOnce routes a path segment through the server's
// path handling: a key escaped by Go (url.PathEscape) or by the console
// (encodeURIComponent) comes back as the key itself, and any segment a
// client sends is decoded exactly once ("%2541" is "%41", never "A").
func FuzzPathParamDecodedOnce(f *testing.F) {
	for _, s := range []string{"web:victim%41", "web:victimA", "slack:C1/1700000000.000100", "whatsapp:447700900123@s.whatsapp.net", "web:a b+c", "web:%zz", "web:ü"} {
		f.Add(s)
	}
	e := echo.New()
	e.Pre(escapedPath)
	e.GET("/x/:chat", func(c echo.Context) error {
		v, err := pathParam(c, "chat")
		if err != nil {
			return c.String(http.StatusBadRequest, "bad escape")
		}
		return c.String(http.StatusOK, v)
	})
	get := func(t *testing.T, raw string) (int, string) {
		w := httptest.NewRecorder()
		e.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/x/"+raw, nil))
		return w.Code, w.Body.String()
	}
	f.Fuzz(func(t *testing.T, key string) {
		if key == "" {
			return // no segment: another route
		}
		for name, esc := range map[string]string{"url.PathEscape": url.PathEscape(key), "encodeURIComponent": encodeURIComponent(key)} {
			if code, got := get(t, esc); code != http.StatusOK || got != key {
				t.Fatalf("%q escaped by %s as %q: %d %q, want the key", key, name, esc, code, got)
			}
		}
		if strings.ContainsAny(key, "/?# \x7f") || strings.IndexFunc(key, func(r rune) bool { return r < 0x20 || r > 0x7e }) >= 0 {
			return // not a path segment a client sends as it is
		}
		want, err := url.PathUnescape(key)
		if err != nil {
			return // Go's server answers 400 before any route
		}
		if code, got := get(t, key); code != http.StatusOK || got != want {
			t.Fatalf("segment %q: %d %q, want it decoded once: %q", key, code, got, want)
		}
	})
}

// encodeURIComponent escapes s as the console's JavaScript does.
func encodeURIComponent(s string) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-_.!~*'()", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteString("%" + strings.ToUpper(strconv.FormatUint(uint64(c)|0x100, 16)[1:]))
	}
	return b.String()
}

// FuzzBroadcastSignatureMethod signs "<ts>.<METHOD> <path>" for one
// method and path and sends it with another: only the signed method and
// path pass; any other is 401 and cancels nothing.
func FuzzBroadcastSignatureMethod(f *testing.F) {
	f.Add(true, "final-round", "final-round")
	f.Add(false, "final-round", "final-round")
	f.Add(true, "a", "a ")
	fb, h := broadcastServer(f)
	fb.created["final-round"] = 2
	f.Fuzz(func(t *testing.T, signGet bool, signedID, sentID string) {
		if !broadcastID.MatchString(sentID) {
			return // not a broadcast route
		}
		signed, other := http.MethodGet, http.MethodDelete
		if !signGet {
			signed, other = other, signed
		}
		ts := strconv.FormatInt(time.Now().Unix(), 10)
		sig := Sign([]byte(secret), ts, BodilessContent(signed, "/v1/broadcasts/"+signedID))
		header := map[string]string{"X-Botgw-Timestamp": ts, "X-Botgw-Signature": sig}
		fb.mu.Lock()
		before := fb.cancelled
		fb.mu.Unlock()
		if w := do(h, other, "/v1/broadcasts/"+sentID, "", header); w.Code != http.StatusUnauthorized {
			t.Fatalf("%s's signature of %q on %s %q: %d, want 401", signed, signedID, other, sentID, w.Code)
		}
		w := do(h, signed, "/v1/broadcasts/"+sentID, "", header)
		if (w.Code == http.StatusUnauthorized) == (signedID == sentID) {
			t.Fatalf("%s's signature of %q on %s %q: %d", signed, signedID, signed, sentID, w.Code)
		}
		fb.mu.Lock()
		defer fb.mu.Unlock()
		if want := before + map[bool]int{true: 1}[signed == http.MethodDelete && signedID == sentID]; fb.cancelled != want {
			t.Fatalf("cancelled %d times, want %d", fb.cancelled-before, want-before)
		}
	})
}
