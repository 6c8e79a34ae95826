package hostprogram

import (
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/codemodehq/codemode/pkg/codemode"
)

func TestParseListen(t *testing.T) {
	good := map[string]string{
		"stdio": "stdio", "stdio://": "stdio", "grpc+stdio://": "grpc+stdio://",
		"ws://127.0.0.1:0": "ws://127.0.0.1:0", "grpc://[::1]:8080": "grpc://[::1]:8080",
	}
	for in, want := range good {
		l, err := ParseListen(in)
		if err != nil || l.String() != want {
			t.Errorf("ParseListen(%q) = %v, %v; want %s", in, l, err, want)
		}
	}
	bad := map[string]string{
		"http://127.0.0.1:1":    "unsupported --listen URL `http://127.0.0.1:1`; expected `grpc://IP:PORT`, `grpc+stdio://`, `stdio`, `stdio://` or `ws://IP:PORT`",
		"grpc+stdio://x":        "unsupported --listen URL `grpc+stdio://x`",
		"grpc://localhost:9000": "invalid gRPC --listen URL `grpc://localhost:9000`; expected `grpc://IP:PORT`",
		"ws://localhost:9000":   "invalid WebSocket --listen URL",
		"unix:///tmp/s":         "unsupported --listen URL",
	}
	for in, want := range bad {
		if _, err := ParseListen(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseListen(%q) = %v; want an error containing %q", in, err, want)
		}
	}
}

func TestCheckRefusesWhatMustNotStart(t *testing.T) {
	listen := func(s string) Listen {
		l, err := ParseListen(s)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	cases := []struct {
		name string
		cfg  Config
		want string // "" accepted
	}{
		{"loopback without a token", Config{Listens: []Listen{listen("ws://127.0.0.1:0"), listen("grpc://[::1]:0")}}, ""},
		{"IPv4-mapped loopback", Config{Listens: []Listen{listen("grpc://[::ffff:127.0.0.1]:0")}}, ""},
		{"any address without a token", Config{Listens: []Listen{listen("grpc://0.0.0.0:0")}}, "is not a loopback address"},
		{"any address with a token", Config{Listens: []Listen{listen("grpc://0.0.0.0:0")}, Token: "0123456789abcdef"}, ""},
		{"any address with a short token", Config{Listens: []Listen{listen("grpc://0.0.0.0:0")}, Token: "t"}, "at least 16 characters"},
		{"any address with a blank token", Config{Listens: []Listen{listen("ws://0.0.0.0:0")}, Token: "                "}, "must not contain spaces"},
		{"loopback with a short token", Config{Listens: []Listen{listen("grpc://127.0.0.1:0")}, Token: "t"}, ""},
		{"stdio twice", Config{Listens: []Listen{listen("stdio"), listen("stdio://")}}, "given 2 times"},
		{"V1 and gRPC on stdio", Config{Listens: []Listen{listen("stdio"), listen("grpc+stdio://")}}, "--listen stdio or grpc+stdio:// given 2 times"},
		{"gRPC on stdio without a token", Config{Listens: []Listen{listen("grpc+stdio://"), listen("grpc://127.0.0.1:0")}}, ""},
		{"origins without gRPC", Config{Listens: []Listen{listen("ws://127.0.0.1:0")}, AllowOrigins: []string{"*"}}, "needs a grpc:// listener"},
		{"an origin with a path", Config{Listens: []Listen{listen("grpc://127.0.0.1:0")}, AllowOrigins: []string{"https://a.example/app"}}, "expected an origin"},
		{"origins", Config{Listens: []Listen{listen("grpc://127.0.0.1:0")}, AllowOrigins: []string{"*", "http://localhost:5173"}}, ""},
	}
	for _, c := range cases {
		err := c.cfg.withDefaults().check()
		var u *UsageError
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: refused: %v", c.name, err)
		case c.want != "" && (err == nil || !errors.As(err, &u) || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v; want a UsageError containing %q", c.name, err, c.want)
		}
	}
}

func TestCapLimits(t *testing.T) {
	u := func(v uint64) *uint64 { return &v }
	caps := codemode.SessionCellExecutionLimits{MaxYieldTimeMs: u(1000), MaxHeapSizeBytes: u(1 << 20)}
	got := capLimits(codemode.SessionCellExecutionLimits{MaxYieldTimeMs: u(500)}, caps)
	if *got.MaxYieldTimeMs != 500 || *got.MaxHeapSizeBytes != 1<<20 {
		t.Errorf("a smaller limit and a missing one: %d, %d", *got.MaxYieldTimeMs, *got.MaxHeapSizeBytes)
	}
	got = capLimits(codemode.SessionCellExecutionLimits{MaxYieldTimeMs: u(5000), MaxHeapSizeBytes: u(2 << 20)}, caps)
	if *got.MaxYieldTimeMs != 1000 || *got.MaxHeapSizeBytes != 1<<20 {
		t.Errorf("larger limits: %d, %d", *got.MaxYieldTimeMs, *got.MaxHeapSizeBytes)
	}
	if got := capLimits(codemode.SessionCellExecutionLimits{}, codemode.SessionCellExecutionLimits{}); !got.IsDefault() {
		t.Errorf("no caps changed no limits: %+v", got)
	}
}

func TestAuthAndCORSMiddleware(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) })
	p := &Program{cfg: Config{Token: "tok"}, log: slog.New(slog.DiscardHandler)}
	ws := p.requireTokenWS(ok)
	// The scheme is case-insensitive (RFC 9110 §11.1); the token is not.
	for header, want := range map[string]int{"": 401, "Bearer tok": 418, "Bearer tok2": 401, "bearer tok": 418, "BEARER tok": 418, "Bearer TOK": 401, "tok": 401, "Basic tok": 401} {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		if header != "" {
			r.Header.Set("Authorization", header)
		}
		w := httptest.NewRecorder()
		ws.ServeHTTP(w, r)
		if w.Code != want {
			t.Errorf("WebSocket with Authorization %q: %d, want %d", header, w.Code, want)
		}
	}
	handler := cors([]string{"http://a.example"}, p.requireTokenRPC(ok))
	r := httptest.NewRequest(http.MethodOptions, "/x", nil)
	r.Header.Set("Origin", "http://a.example")
	r.Header.Set("Access-Control-Request-Method", "POST")
	w := httptest.NewRecorder()
	handler.ServeHTTP(w, r)
	if w.Code != http.StatusNoContent || w.Header().Get("Access-Control-Allow-Origin") != "http://a.example" {
		t.Errorf("preflight without a token: %d %v; want 204 with the origin allowed", w.Code, w.Header())
	}
	r = httptest.NewRequest(http.MethodPost, "/codex.code_mode.v1.CodeModeHost/CloseSession", strings.NewReader("{}"))
	r.Header.Set("Content-Type", "application/json")
	w = httptest.NewRecorder()
	handler.ServeHTTP(w, r)
	if w.Code != http.StatusUnauthorized || !strings.Contains(w.Body.String(), `"unauthenticated"`) || w.Header().Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("Connect without a token or origin: %d %q %v", w.Code, w.Body.String(), w.Header())
	}
}
