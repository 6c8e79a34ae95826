package hostprogram

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"strings"
	"testing"
)

func TestParseAdminListen(t *testing.T) {
	for in, want := range map[string]string{"http://127.0.0.1:9464": "127.0.0.1:9464", "http://[::1]:0": "[::1]:0"} {
		if got, err := ParseAdminListen(in); err != nil || got.String() != want {
			t.Errorf("ParseAdminListen(%q) = %v, %v; want %s", in, got, err, want)
		}
	}
	for _, in := range []string{"127.0.0.1:9464", "https://127.0.0.1:1", "http://localhost:9464", "http://127.0.0.1"} {
		if _, err := ParseAdminListen(in); err == nil || !strings.Contains(err.Error(), "expected `http://IP:PORT`") {
			t.Errorf("ParseAdminListen(%q): %v, want a refusal that shows the form", in, err)
		}
	}
}

// TestReadyzSaysDraining checks the probes of a program whose drain has begun: /readyz answers
// 503 with the reason, /healthz still 200, and other paths go on to the listener's handler.
func TestReadyzSaysDraining(t *testing.T) {
	listen := Listen{Transport: GRPC, Addr: netip.MustParseAddrPort("127.0.0.1:0")}
	p, err := New(Config{Listens: []Listen{listen}}, io.NopCloser(strings.NewReader("")), os.Stdout)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	p.Exit = func(int) {}
	h := p.withHealth(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusTeapot) }))
	probe := func(path string) (int, string) {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
		return w.Code, w.Body.String()
	}
	if code, body := probe("/readyz"); code != http.StatusOK || body != "ok\n" {
		t.Errorf("/readyz before the drain: %d %q", code, body)
	}
	p.beginDrain()
	defer p.drain.stopWatchdog()
	if code, body := probe("/readyz"); code != http.StatusServiceUnavailable || body != "not ready: draining\n" {
		t.Errorf("/readyz while draining: %d %q, want 503 draining", code, body)
	}
	if code, _ := probe("/healthz"); code != http.StatusOK {
		t.Errorf("/healthz while draining: %d, want 200", code)
	}
	if code, _ := probe("/other"); code != http.StatusTeapot {
		t.Errorf("another path: %d, want the listener's own answer", code)
	}
}
