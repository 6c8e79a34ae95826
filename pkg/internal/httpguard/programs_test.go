package httpguard_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/codemodehq/codemode/pkg/internal/httpguard"
)

// serve runs one request through h and reports the status and whether next was reached.
func serve(t *testing.T, policy httpguard.Policy, method, host, path, origin string) (code int, reached bool) {
	t.Helper()
	h := httpguard.ProgramsOnly(policy, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		reached = true
		w.WriteHeader(http.StatusTeapot)
	}))
	r := httptest.NewRequest(method, "http://"+host+path, nil)
	if origin != "" {
		r.Header.Set("Origin", origin)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w.Code, reached
}

// ProgramsOnly refuses every browser Origin (the listener's own too), answers GET /readyz itself
// and hands the rest to next; the Host check and the probe's exemption come from the Policy.
func TestProgramsOnly(t *testing.T) {
	bare := httpguard.Policy{}
	loopback := httpguard.Policy{LoopbackHosts: true, Exempt: httpguard.IsReadyProbe}
	for _, c := range []struct {
		name                       string
		policy                     httpguard.Policy
		method, host, path, origin string
		code                       int
		reached                    bool
	}{
		{"probe", bare, "GET", "example.com", "/readyz", "", http.StatusOK, false},
		{"probe from a page", bare, "GET", "127.0.0.1:1", "/readyz", "http://127.0.0.1:1", http.StatusForbidden, false},
		{"POST to the probe's path", bare, "POST", "127.0.0.1:1", "/readyz", "", http.StatusTeapot, true},
		{"program", bare, "GET", "example.com", "/", "", http.StatusTeapot, true},
		{"page", bare, "GET", "127.0.0.1:1", "/", "http://127.0.0.1:1", http.StatusForbidden, false},
		{"loopback program", loopback, "GET", "localhost:1", "/", "", http.StatusTeapot, true},
		{"rebinding page", loopback, "GET", "evil.example:1", "/", "", http.StatusForbidden, false},
		{"exempt probe from anywhere", loopback, "GET", "evil.example:1", "/readyz", "http://evil.example:1", http.StatusOK, false},
	} {
		code, reached := serve(t, c.policy, c.method, c.host, c.path, c.origin)
		if code != c.code || reached != c.reached {
			t.Errorf("%s: %d, next reached %v; want %d, %v", c.name, code, reached, c.code, c.reached)
		}
	}
}
