package mcptools_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"
)

// testServerEnv, set to "stdio", makes the test binary an MCP server on its stdin and stdout:
// the tests run it as a real process over real pipes.
const testServerEnv = "MCPTOOLS_TEST_SERVER"

// testEventsEnv names a file (a FIFO the test reads) to which the test server writes a line
// "cancelled" whenever a call of hang is cancelled: the server-side event a test can wait for
// without calling the server again, so no other call is bound by the server's timeout.
const testEventsEnv = "MCPTOOLS_TEST_EVENTS"

// reportEvent writes line to the events file named by testEventsEnv, if any.
func reportEvent(line string) {
	path := os.Getenv(testEventsEnv)
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		fmt.Fprintln(os.Stderr, "test server: events:", err)
		return
	}
	defer f.Close()
	fmt.Fprintln(f, line)
}

// TestMain serves MCP when the tests start the binary as their server, and otherwise runs the
// tests and fails the package if one leaves a goroutine behind: sessions, processes' waiters,
// HTTP connections must all be gone once the tool sets are closed.
func TestMain(m *testing.M) {
	if os.Getenv(testServerEnv) == "stdio" {
		err := newTestServer().Run(context.Background(), &mcp.StdioTransport{})
		if err != nil && !errors.Is(err, mcp.ErrConnectionClosed) {
			fmt.Fprintln(os.Stderr, "test server:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}

// pngPixel is a 1×1 PNG, the image the image tool returns.
var pngPixel = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89" +
	"\x00\x00\x00\rIDATx\x9cc\xf8\xff\xff?\x00\x05\xfe\x02\xfe\xa7\x35\x81\x84\x00\x00\x00\x00IEND\xaeB`\x82")

type (
	echoIn struct {
		Text string `json:"text" jsonschema:"the text to echo"`
	}
	echoOut struct {
		Text   string `json:"text"`
		Length int    `json:"length"`
	}
	bigIn struct {
		Bytes int `json:"bytes"`
	}
	pidOut struct {
		PID int `json:"pid"`
	}
	cancellationsOut struct {
		Cancelled int `json:"cancelled"`
	}
)

// cancellations counts the calls of hang that ended because the client cancelled them: the
// server-side evidence of MCP's notifications/cancelled.
type cancellations struct {
	mu    sync.Mutex
	count int
	first chan struct{}
	// hanging is closed when a call of hang first runs.
	hanging     chan struct{}
	hangingOnce sync.Once
}

func (c *cancellations) add() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.count == 0 {
		close(c.first)
	}
	c.count++
}

// newTestServer is the MCP server of the tests, with a tool for every behaviour they check.
func newTestServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "faulty", Version: "v1"}, nil)
	cancelled := &cancellations{first: make(chan struct{}), hanging: make(chan struct{})}
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echoes text, as structured content."},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, echoOut, error) {
			return nil, echoOut{Text: in.Text, Length: len(in.Text)}, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "plain", Description: "Returns a text block only."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "just text"}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "image", Description: "Returns a 1×1 PNG image block."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.ImageContent{Data: pngPixel, MIMEType: "image/png"}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "fail", Description: "Fails with isError."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return nil, nil, errors.New("the note does not exist")
		})
	mcp.AddTool(s, &mcp.Tool{Name: "crash", Description: "Exits the server with status 3."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			fmt.Fprintln(os.Stderr, "crashing on purpose")
			os.Exit(3)
			return nil, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "hang", Description: "Returns only when the call is cancelled."},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			cancelled.hangingOnce.Do(func() { close(cancelled.hanging) })
			<-ctx.Done()
			cancelled.add()
			reportEvent("cancelled")
			return nil, nil, ctx.Err()
		})
	mcp.AddTool(s, &mcp.Tool{Name: "hanging", Description: "Returns once a call of hang runs."},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			select {
			case <-cancelled.hanging:
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hang runs"}}}, nil, nil
			case <-ctx.Done():
				return nil, nil, ctx.Err()
			}
		})
	mcp.AddTool(s, &mcp.Tool{Name: "cancellations", Description: "Waits for a cancelled call of hang, then counts them."},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, cancellationsOut, error) {
			select {
			case <-cancelled.first:
			case <-ctx.Done():
				return nil, cancellationsOut{}, ctx.Err()
			}
			cancelled.mu.Lock()
			defer cancelled.mu.Unlock()
			return nil, cancellationsOut{Cancelled: cancelled.count}, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "big", Description: "Returns a text block of the given size."},
		func(_ context.Context, _ *mcp.CallToolRequest, in bigIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("x", in.Bytes)}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "pid", Description: "Returns the server's process id."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, pidOut, error) {
			return nil, pidOut{PID: os.Getpid()}, nil
		})
	return s
}

// serveHTTP serves the test server over streamable HTTP on 127.0.0.1 until the test ends, and
// returns its endpoint. Requests without the header want are refused.
func serveHTTP(t testing.TB, wantHeader, wantValue string) string {
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return newTestServer() }, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if wantHeader != "" && r.Header.Get(wantHeader) != wantValue {
			http.Error(w, "missing "+wantHeader, http.StatusUnauthorized)
			return
		}
		handler.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}
