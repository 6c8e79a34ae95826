package mcpserver_test

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemodehq/codemode/pkg/jsruntime"
	"github.com/codemodehq/codemode/pkg/mcpserver"
	"github.com/codemodehq/codemode/pkg/toolsources/toolprovider"
)

// BenchmarkMCP100Calls makes the same 100 tool calls (add, an in-process tool) from an MCP
// client (the Go SDK's, over its in-memory transport: real JSON-RPC messages, no network) two
// ways: one-by-one, 100 exec calls of one cell each doing one call, as a client that calls tools
// one per model turn would; and promise-all, one exec whose cell makes the 100 calls with
// Promise.all. One op is the 100 calls. tools/bench-mcp.sh prints the ratio.
func BenchmarkMCP100Calls(b *testing.B) {
	provider, err := jsruntime.NewProvider(jsruntime.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer provider.Close()
	srv, err := mcpserver.New(mcpserver.Options{Provider: provider, ToolSets: []toolprovider.ToolSet{newTestTools()}})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	serverSide, clientSide := mcp.NewInMemoryTransports()
	served := make(chan error, 1)
	go func() { served <- srv.ServeTransport(context.Background(), serverSide) }()
	client, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(), clientSide, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer func() {
		_ = client.Close()
		<-served
	}()
	run := func(b *testing.B, code, want string) {
		res, err := client.CallTool(context.Background(), &mcp.CallToolParams{Name: "exec", Arguments: map[string]any{"code": code}})
		if err != nil {
			b.Fatal(err)
		}
		if text := res.Content[len(res.Content)-1].(*mcp.TextContent).Text; res.IsError || text != want {
			b.Fatalf("exec answered %q (isError %v), want %q", text, res.IsError, want)
		}
	}
	b.Run("one-by-one", func(b *testing.B) {
		for b.Loop() {
			for range 100 {
				run(b, `text(await tools.add({a: 1, b: 2}))`, "3")
			}
		}
	})
	b.Run("promise-all", func(b *testing.B) {
		for b.Loop() {
			run(b, `const r = await Promise.all(Array.from({length: 100}, (_, i) => tools.add({a: i, b: 1})));
text(r.length)`, "100")
		}
	})
}
