package execserver

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/coder/websocket"
)

// serveWebSocket serves srv on a real loopback listener for the test and returns its port.
func serveWebSocket(t *testing.T, srv *Server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := srv.ServeWebSocket(ctx, ln); err != nil && !errors.Is(err, net.ErrClosed) {
			t.Errorf("ServeWebSocket: %v", err)
		}
	})
	t.Cleanup(func() { cancel(); wg.Wait() })
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return port
}

// rebound is a client whose every name resolves to 127.0.0.1, as a browser's is for a page whose
// DNS name was rebound to the loopback address: it connects to the server, and Host carries the
// page's name.
func rebound() *http.Client {
	return &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		_, port, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		var d net.Dialer
		return d.DialContext(ctx, network, net.JoinHostPort("127.0.0.1", port))
	}}}
}

// TestWebSocketRefusesPagesAndForeignHosts: the exec-server runs commands without a token, so its
// WebSocket listener serves programs that connect to loopback only: a Host naming anything else
// (DNS rebinding) and any Origin are refused with 403 and their reason; /readyz answers under any
// name; a program through 127.0.0.1 or localhost connects.
func TestWebSocketRefusesPagesAndForeignHosts(t *testing.T) {
	port := serveWebSocket(t, newServer(t, ""))
	ctx := context.Background()
	refused := func(url string, opts *websocket.DialOptions, want string) {
		t.Helper()
		conn, resp, err := websocket.Dial(ctx, url, opts)
		if err == nil {
			_ = conn.CloseNow()
			t.Fatalf("%s: connected, want 403", url)
		}
		if resp == nil || resp.StatusCode != http.StatusForbidden {
			t.Fatalf("%s: %v, want 403", url, err)
		}
		body, _ := io.ReadAll(resp.Body)
		if !strings.HasPrefix(string(body), want) {
			t.Fatalf("%s: 403 %q, want it to start with %q", url, body, want)
		}
	}
	refused("ws://evil.example:"+port, &websocket.DialOptions{HTTPClient: rebound()}, `Host "evil.example:`+port+`" is not a loopback name`)
	refused("ws://127.0.0.1:"+port, &websocket.DialOptions{HTTPHeader: http.Header{"Origin": {"http://127.0.0.1:" + port}}}, "browser origins are not allowed: a request from http://127.0.0.1:"+port+" was refused")

	resp, err := rebound().Get("http://evil.example:" + port + "/readyz")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("/readyz under a rebound name: %v, %v; want 200", resp, err)
	}
	_ = resp.Body.Close()
	for _, host := range []string{"127.0.0.1", "localhost"} {
		conn, _, err := websocket.Dial(ctx, "ws://"+host+":"+port, &websocket.DialOptions{HTTPClient: rebound()})
		if err != nil {
			t.Fatalf("a program through %s: %v", host, err)
		}
		_ = conn.CloseNow()
	}
}
