package main_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect/v2"
	"connectrpc.com/connect/v2/connecthttp"

	"github.com/codemodehq/codemode/gen/go/pb/codex/code_mode/v1/code_modev1connect"
)

// bearerH2C is an HTTP/2 (h2c) client that sends "Authorization: Bearer token" on every request,
// over one connection, as a gRPC client does.
func bearerH2C(token string) *http.Client {
	p := new(http.Protocols)
	p.SetUnencryptedHTTP2(true)
	return &http.Client{Transport: withHeader{name: "Authorization", value: "Bearer " + token, next: &http.Transport{Protocols: p}}}
}

// withHeader sets one header on every request.
type withHeader struct {
	name, value string
	next        http.RoundTripper
}

func (h withHeader) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(h.name, h.value)
	return h.next.RoundTrip(r)
}

// prefaceOnly opens a connection to addr that sends the HTTP/2 client connection preface (the
// magic string and an empty SETTINGS frame, RFC 9113 §3.4) and nothing else, and returns a channel
// closed once the server has closed it.
func prefaceOnly(t *testing.T, addr string) <-chan struct{} {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatalf("connection to %s: %v", addr, err)
	}
	t.Cleanup(func() { _ = c.Close() })
	if _, err := io.WriteString(c, "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x00\x04\x00\x00\x00\x00\x00"); err != nil {
		t.Fatalf("preface: %v", err)
	}
	closed := make(chan struct{})
	go func() {
		defer close(closed)
		_, _ = io.Copy(io.Discard, c) // the server's SETTINGS, then EOF when it closes
	}()
	return closed
}

// TestIdleConnectionsAreClosed: 3,000 connections that send only the HTTP/2 preface (no stream,
// no token) are all closed by the host once idle for --idle-timeout, while a client with the
// token is served before, among and after them on its own connection. Before, such connections
// stayed open for ever and, past the descriptor limit, starved everyone.
func TestIdleConnectionsAreClosed(t *testing.T) {
	if testing.Short() {
		t.Skip("opens 3,000 connections")
	}
	h := startHost(t, []string{"CODEMODE_HOST_TOKEN=0123456789abcdef"}, "--listen", "grpc://127.0.0.1:0", "--idle-timeout", "2s")
	url := h.addresses(1)[0]
	addr := strings.TrimPrefix(url, "http://")
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	client := bearerH2C("0123456789abcdef")
	host := code_modev1connect.NewCodeModeHostClient(connect.NewClient(connecthttp.NewTransport(client, url, connecthttp.WithGRPC())))
	runCell := func(when string) {
		t.Helper()
		if err := runSource(ctx, host, "text(1 + 1)"); err != nil {
			t.Fatalf("the client with the token %s: %v", when, err)
		}
	}
	runCell("before the flood")

	const flood = 3000
	var all sync.WaitGroup
	for range flood {
		closed := prefaceOnly(t, addr)
		all.Go(func() { <-closed })
	}
	runCell("among 3,000 idle connections")

	done := make(chan struct{})
	go func() { all.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(waitLimit): // a guard against a hang, never a measure
		t.Fatalf("idle connections still open after %s", waitLimit)
	}
	runCell("after the host closed the idle connections")
}

// TestGRPCStdioRefusesAClientThatIsNotHTTP2: bytes that are not HTTP/2's preface on
// grpc+stdio:// (V1 frames sent to a gRPC host, say) end the host with status 1 and the reason;
// before, the host exited 0 as if the client had simply closed its end.
func TestGRPCStdioRefusesAClientThatIsNotHTTP2(t *testing.T) {
	h := startHost(t, nil, "--listen", "grpc+stdio://")
	if _, err := io.WriteString(h.stdin, "\x10\x00\x00\x00{\"type\":\"hello\"}"); err != nil {
		t.Fatal(err)
	}
	_ = h.stdin.Close()
	if code := h.exitCode(); code != 1 {
		t.Fatalf("exit status %d, want 1", code)
	}
	if !strings.Contains(h.stderrText(), "serving grpc+stdio://: the client does not speak HTTP/2: its first bytes are") {
		t.Fatalf("stderr does not say why:\n%s", h.stderrText())
	}
	// A client that speaks HTTP/2 and hangs up still ends the host with status 0 (the test
	// above, TestGRPCStdioSpeaksFirstAndExitsZeroWhenStdinEnds).
}
