package httpclient

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A request whose URL holds a token and whose headers hold credentials,
// redirected to another host, reaches it with neither: no Referer, no
// Authorization, no API key; a redirect on the same host keeps the
// credentials but still sends no Referer; a body is never sent elsewhere.
func TestRedirectLeavesCredentialsWithTheirHost(t *testing.T) {
	got := make(chan http.Header, 1)
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.Header.Clone()
		io.WriteString(w, "file")
	}))
	defer other.Close()
	platform := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/file/botSECRET/photo.jpg":
			http.Redirect(w, r, other.URL+"/cdn/photo.jpg", http.StatusFound)
		case "/bot/moved":
			http.Redirect(w, r, "/bot/here", http.StatusFound)
		case "/bot/post":
			http.Redirect(w, r, other.URL+"/elsewhere", http.StatusTemporaryRedirect)
		default:
			got <- r.Header.Clone()
		}
	}))
	defer platform.Close()
	c := New(Transport(2))
	do := func(method, path string, body io.Reader) error {
		req, _ := http.NewRequest(method, platform.URL+path, body)
		req.Header.Set("Authorization", "Bearer SECRET")
		req.Header.Set("X-Api-Key", "SECRET")
		req.Header.Set("Cookie", "session=SECRET")
		req.Header.Set("User-Agent", "botgw-test")
		res, err := c.Do(req)
		if err == nil {
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
		}
		return err
	}
	if err := do(http.MethodGet, "/file/botSECRET/photo.jpg", nil); err != nil {
		t.Fatal(err)
	}
	h := <-got
	for k, v := range h {
		if strings.Contains(strings.Join(v, " "), "SECRET") {
			t.Errorf("the other host got %s: %q, want no token", k, v)
		}
	}
	if h.Get("User-Agent") != "botgw-test" {
		t.Errorf("User-Agent %q across hosts, want it kept", h.Get("User-Agent"))
	}
	if err := do(http.MethodGet, "/bot/moved", nil); err != nil {
		t.Fatal(err)
	}
	if h := <-got; h.Get("Referer") != "" || h.Get("Authorization") != "Bearer SECRET" || h.Get("X-Api-Key") != "SECRET" {
		t.Errorf("same-host redirect: Referer %q, Authorization %q, X-Api-Key %q; want no Referer and the credentials kept",
			h.Get("Referer"), h.Get("Authorization"), h.Get("X-Api-Key"))
	}
	if err := do(http.MethodPost, "/bot/post", strings.NewReader(`{"secret":"SECRET"}`)); err == nil || !strings.Contains(err.Error(), "refused") {
		t.Errorf("a 307 sending the body to another host: %v, want it refused", err)
	}
	select {
	case h := <-got:
		t.Errorf("the body's redirect reached a host with headers %v", h)
	default:
	}
}
