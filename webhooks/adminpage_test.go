package webhooks

import (
	"net/http/httptest"
	"strings"
	"testing"
)

func TestOperatorPageIsServedLockedDown(t *testing.T) {
	r := newAdminRig(t, adminToken)
	for path, want := range map[string]string{"/admin": "text/html", "/admin/": "text/html", "/admin/admin.js": "text/javascript"} {
		w := httptest.NewRecorder()
		r.h.ServeHTTP(w, httptest.NewRequest("GET", path, nil))
		if w.Code != 200 || !strings.HasPrefix(w.Header().Get("Content-Type"), want) {
			t.Errorf("GET %s: %d %q, want 200 %s", path, w.Code, w.Header().Get("Content-Type"), want)
		}
		if csp := w.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") {
			t.Errorf("GET %s: Content-Security-Policy %q does not restrict scripts", path, csp)
		}
	}
}

func TestOperatorPageNeverWritesChatContentAsHTML(t *testing.T) {
	for _, name := range []string{"admin/index.html", "admin/admin.js"} {
		b, err := adminPage.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, sink := range []string{"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("} {
			if strings.Contains(string(b), sink) {
				t.Errorf("%s uses %s: chat text is attacker-controlled, use textContent", name, sink)
			}
		}
	}
}
