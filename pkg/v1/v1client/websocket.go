package v1client

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/coder/websocket"

	"github.com/codemodehq/codemode/pkg/v1/v1transport"
)

// DefaultWebSocketTimeout bounds connecting and the handshake over WebSocket (Codex's 10 s,
// docs/protocol/v1.md#handshake): a host that cannot answer a hello in that time is not usable.
const DefaultWebSocketTimeout = 10 * time.Second

// NewWebSocketProvider returns a Provider whose sessions run on the host listening at rawURL
// ("ws://IP:PORT/"). With dual it asks for dual websockets (optional: a host that does not
// grant them is used over the one socket).
func NewWebSocketProvider(rawURL string, dual bool, opts Options) *Provider {
	return newProvider(func(ctx context.Context, epoch uint64, o *Options) (*connection, error) {
		return dialWebSocket(ctx, rawURL, dual, epoch, o)
	}, opts)
}

var dialOptions = &websocket.DialOptions{CompressionMode: websocket.CompressionDisabled}

func dialWebSocket(ctx context.Context, rawURL string, dual bool, epoch uint64, opts *Options) (*connection, error) {
	timeout := opts.HandshakeTimeout
	if timeout <= 0 {
		timeout = DefaultWebSocketTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	control, _, err := websocket.Dial(ctx, rawURL, dialOptions)
	if err != nil {
		return nil, fmt.Errorf("failed to connect to the code-mode host at %s: %w", rawURL, err)
	}
	single := v1transport.NewWebSocketConn(control)
	n, err := handshake(ctx, single, dual)
	if err != nil {
		_ = single.Close()
		return nil, err
	}
	conn := single
	if n.bulkToken != "" {
		bulkURL, err := BulkURL(rawURL, n.bulkToken)
		if err != nil {
			_ = single.Close()
			return nil, err
		}
		bulk, _, err := websocket.Dial(ctx, bulkURL, dialOptions)
		if err != nil {
			_ = single.Close()
			return nil, fmt.Errorf("failed to open the negotiated code-mode bulk websocket: %w", err)
		}
		conn = v1transport.NewDualWebSocketConn(control, bulk)
	}
	link := v1transport.NewLink(conn, v1transport.SideHost, newTolerantDecoder().decode)
	return newConnection(link, epoch, n, opts, nil), nil
}

// BulkURL is where the bulk socket of a dual connection is opened: the control URL's path
// without its trailing '/', then "/bulk/" and the token, keeping the query (docs/protocol/v1.md#websocket-and-lanes).
func BulkURL(control, token string) (string, error) {
	u, err := url.Parse(control)
	if err != nil {
		return "", fmt.Errorf("invalid code-mode host URL %q: %w", control, err)
	}
	u.Path = strings.TrimSuffix(u.Path, "/") + "/bulk/" + token
	u.RawPath = ""
	return u.String(), nil
}
