package httpguard_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/codemodehq/codemode/pkg/internal/httpguard"
)

func TestLoopbackHost(t *testing.T) {
	for host, want := range map[string]bool{
		"localhost:8080":          true,
		"LocalHost:1":             true,
		"localhost":               true,
		"127.0.0.1:8080":          true,
		"127.9.8.7:1":             true,
		"127.0.0.1":               true,
		"[::1]:8080":              true,
		"[::1]":                   true,
		"[::ffff:127.0.0.1]:80":   true,
		"evil.example:8080":       false,
		"evil.example":            false,
		"localhost.evil.example":  false,
		"localhost.":              false,
		"foo.localhost:8080":      false,
		"10.0.0.1:8080":           false,
		"0.0.0.0:8080":            false,
		"[::]:8080":               false,
		"[fe80::1%25lo]:8080":     false,
		"":                        false,
		"127.0.0.1.evil.example":  false,
		"2130706433:8080":         false, // 127.0.0.1 as an integer: browsers normalize it, so Host never says it
		"[::1]:8080@evil.example": false,
		"localhost:":              false,
		"localhost:80x":           false,
	} {
		if got := httpguard.LoopbackHost(host); got != want {
			t.Errorf("LoopbackHost(%q) = %v, want %v", host, got, want)
		}
	}
}

// request builds a request as a server receives it: r.Host from the Host header.
func request(method, host, origin string) *http.Request {
	r := httptest.NewRequest(method, "http://"+host+"/codex.code_mode.v1.CodeModeHost/OpenSession", nil)
	r.Host = host
	if origin != "" {
		r.Header.Set("Origin", origin)
	}
	return r
}

func TestCheck(t *testing.T) {
	loopback := httpguard.New(httpguard.Policy{LoopbackHosts: true, Origins: []string{"http://localhost:5173"}})
	anyOrigin := httpguard.New(httpguard.Policy{Origins: []string{"*"}, LoopbackHosts: true})
	withToken := httpguard.New(httpguard.Policy{})
	programs := httpguard.New(httpguard.Policy{LoopbackHosts: true, NoBrowsers: true})
	probes := httpguard.New(httpguard.Policy{LoopbackHosts: true, Exempt: func(r *http.Request) bool { return r.URL.Path == "/healthz" }})
	for _, c := range []struct {
		name   string
		guard  *httpguard.Guard
		req    *http.Request
		header string // "" when served
	}{
		{"a program on loopback", loopback, request("POST", "127.0.0.1:8080", ""), ""},
		{"a program through localhost", loopback, request("POST", "localhost:8080", ""), ""},
		{"the page's own origin", loopback, request("POST", "127.0.0.1:8080", "http://127.0.0.1:8080"), ""},
		{"the page's own origin, name in another case", loopback, request("POST", "LOCALHOST:8080", "http://localhost:8080"), ""},
		{"an allowed origin", loopback, request("POST", "127.0.0.1:8080", "http://localhost:5173"), ""},
		{"DNS rebinding: another name", loopback, request("POST", "evil.example:8080", "http://evil.example:8080"), "Host"},
		{"DNS rebinding without Origin (a GET of the page)", loopback, request("GET", "evil.example:8080", ""), "Host"},
		{"DNS rebinding with every origin allowed", anyOrigin, request("POST", "evil.example:8080", "http://evil.example:8080"), "Host"},
		{"a foreign origin", loopback, request("POST", "127.0.0.1:8080", "http://evil.example"), "Origin"},
		{"a foreign origin on a safe method", loopback, request("GET", "127.0.0.1:8080", "http://evil.example"), "Origin"},
		{"another loopback port is another origin", loopback, request("POST", "127.0.0.1:8080", "http://127.0.0.1:9090"), "Origin"},
		{"the page's own origin through a TLS proxy", loopback, request("POST", "127.0.0.1:8443", "https://127.0.0.1:8443"), ""},
		{"a page of the same name on the default port", loopback, request("POST", "localhost", "http://localhost:80"), ""},
		{"the null origin", loopback, request("POST", "127.0.0.1:8080", "null"), "Origin"},
		{"every origin allowed", anyOrigin, request("POST", "127.0.0.1:8080", "http://evil.example"), ""},
		{"with a token any Host is served", withToken, request("POST", "codemode.internal:8080", ""), ""},
		{"with a token a foreign origin is still refused", withToken, request("POST", "codemode.internal:8080", "http://evil.example"), "Origin"},
		{"with a token the page's own origin", withToken, request("POST", "codemode.internal:8080", "http://codemode.internal:8080"), ""},
		{"programs only: a program", programs, request("GET", "127.0.0.1:8080", ""), ""},
		{"programs only: even the listener's own origin", programs, request("GET", "127.0.0.1:8080", "http://127.0.0.1:8080"), "Origin"},
		{"programs only: rebinding", programs, request("GET", "evil.example:8080", ""), "Host"},
		{"an exemption covers only its paths", probes, request("GET", "evil.example:8080", ""), "Host"},
	} {
		t.Run(c.name, func(t *testing.T) {
			refusal := c.guard.Check(c.req)
			switch {
			case c.header == "" && refusal != nil:
				t.Fatalf("refused: %v", refusal)
			case c.header != "" && refusal == nil:
				t.Fatalf("served, want a refusal of %s", c.header)
			case refusal != nil && refusal.Header != c.header:
				t.Fatalf("refused %s (%v), want %s", refusal.Header, refusal, c.header)
			}
		})
	}
}

func TestExemptProbe(t *testing.T) {
	g := httpguard.New(httpguard.Policy{LoopbackHosts: true, NoBrowsers: true, Exempt: func(r *http.Request) bool { return r.URL.Path == "/healthz" }})
	r := httptest.NewRequest("GET", "http://evil.example:8080/healthz", nil)
	r.Header.Set("Origin", "http://evil.example:8080")
	if refusal := g.Check(r); refusal != nil {
		t.Fatalf("probe refused: %v", refusal)
	}
}

func TestRefusalTexts(t *testing.T) {
	g := httpguard.New(httpguard.Policy{LoopbackHosts: true})
	if got, want := g.Check(request("POST", "evil.example:8080", "")).Error(),
		`Host "evil.example:8080" is not a loopback name: this listener has no token, so it answers only requests for localhost, 127.0.0.1 or [::1] (a page served under another name may be a DNS-rebinding attack); connect through one of those names, or give the host a token`; got != want {
		t.Errorf("Host refusal:\n got %s\nwant %s", got, want)
	}
	if got, want := g.Check(request("POST", "127.0.0.1:1", "http://evil.example")).Error(),
		"Origin http://evil.example is not allowed: browser pages reach this host only from its own origin or from one given with --allow-origin"; got != want {
		t.Errorf("Origin refusal:\n got %s\nwant %s", got, want)
	}
	p := httpguard.New(httpguard.Policy{NoBrowsers: true})
	if got, want := p.Check(request("GET", "127.0.0.1:1", "http://127.0.0.1:1")).Error(),
		"browser origins are not allowed: a request from http://127.0.0.1:1 was refused; this listener is for programs, never for a web page"; got != want {
		t.Errorf("NoBrowsers refusal:\n got %s\nwant %s", got, want)
	}
}

func TestHandlerAnswers403(t *testing.T) {
	served := false
	h := httpguard.New(httpguard.Policy{LoopbackHosts: true}).Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { served = true }), nil)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, request("POST", "evil.example:8080", "http://evil.example:8080"))
	body, _ := io.ReadAll(w.Result().Body)
	if served || w.Code != http.StatusForbidden || !strings.HasPrefix(string(body), `Host "evil.example:8080" is not a loopback name`) {
		t.Fatalf("served=%v, %d %q", served, w.Code, body)
	}
	w = httptest.NewRecorder()
	h.ServeHTTP(w, request("POST", "127.0.0.1:8080", ""))
	if !served {
		t.Fatalf("a loopback request was not served: %d", w.Code)
	}
}

func TestAuthorized(t *testing.T) {
	const token = "0123456789abcdef"
	for header, want := range map[string]bool{
		"Bearer " + token:          true,
		"bearer " + token:          true,
		"BEARER " + token:          true,
		"Bearer  " + token:         true,
		"Bearer " + token + "x":    false,
		"Bearer " + token[:15]:     false,
		"Basic " + token:           false,
		"Bearer":                   false,
		"":                         false,
		token:                      false,
		"Bearer " + token + " ":    false,
		"Bearer" + token:           false,
		"Bearer\t" + token:         false,
		"Token " + token:           false,
		"Bearer " + "\x00" + token: false,
	} {
		r := httptest.NewRequest("POST", "http://127.0.0.1/", nil)
		if header != "" {
			r.Header.Set("Authorization", header)
		}
		if got := httpguard.Authorized(r, token); got != want {
			t.Errorf("Authorized(%q) = %v, want %v", header, got, want)
		}
	}
}

func TestCheckToken(t *testing.T) {
	for _, c := range []struct {
		token   string
		network bool
		ok      bool
	}{
		{"s3cret", false, true},
		{"x", false, true},
		{"x", true, false},
		{" ", true, false},
		{" ", false, false},
		{"0123456789abcde", true, false},
		{"0123456789abcdef", true, true},
		{"0123456789 abcdef", true, false},
		{"0123456789abcdef\n", true, false},
	} {
		if err := httpguard.CheckToken(c.token, c.network); (err == nil) != c.ok {
			t.Errorf("CheckToken(%q, network %v) = %v, want ok %v", c.token, c.network, err, c.ok)
		}
	}
}
