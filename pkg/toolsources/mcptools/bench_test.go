package mcptools_test

import (
	"context"
	"os"
	"os/exec"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/jsruntime"
	"github.com/codemodehq/codemode/pkg/toolsources/toolprovider"
)

// The cells of BenchmarkMCPCellHundredCalls: 100 calls of a stdio MCP server's echo tool, awaited
// one after the other, or all at once.
const (
	hundredSequential = `for (let i = 0; i < 100; i++) {
  if ((await tools.mcp__faulty__echo({ text: "x" + i })).structuredContent.length < 2) throw "short";
}`
	hundredPromiseAll = `const rs = await Promise.all(Array.from({ length: 100 }, (_, i) => tools.mcp__faulty__echo({ text: "x" + i })));
if (rs.length !== 100) throw "short";`
)

// BenchmarkMCPCellHundredCalls is one cell making 100 tool calls of an MCP server (the test
// binary serving MCP on stdio, a real process over real pipes), through pkg/toolsources/mcptools: per op, the
// whole cell from Execute to its result. BenchmarkMCPClientHundredCalls is the baseline: the same
// 100 calls made by the Go SDK's client directly, without a cell.
func BenchmarkMCPCellHundredCalls(b *testing.B) {
	sets := openManifest(b, stdioServer("faulty", ""))
	d, err := toolprovider.NewDelegate(nil, sets...)
	if err != nil {
		b.Fatal(err)
	}
	p, err := jsruntime.NewProvider(jsruntime.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	ctx := context.Background()
	s, err := p.CreateSession(ctx, codemode.FromBlocking(d), codemode.SessionCellExecutionLimits{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Shutdown(ctx)
	for _, bc := range []struct{ name, src string }{{"sequential", hundredSequential}, {"promise_all", hundredPromiseAll}} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				cell, err := s.Execute(ctx, codemode.ExecuteRequest{ToolCallID: "call", Source: bc.src, EnabledTools: d.Definitions()})
				if err != nil {
					b.Fatal(err)
				}
				r, err := cell.InitialResponse(ctx)
				if err != nil {
					b.Fatal(err)
				}
				if r.Kind != codemode.Result || r.ErrorText != nil {
					b.Fatalf("cell: %v %v", r.Kind, *r.ErrorText)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/100/1000, "µs/call")
		})
	}
}

// BenchmarkMCPClientHundredCalls is BenchmarkMCPCellHundredCalls's baseline: the same 100 calls
// of the same server, made by the Go SDK's client session directly (one after the other, or
// from 100 goroutines at once), with no cell and no codemode in between.
func BenchmarkMCPClientHundredCalls(b *testing.B) {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), testServerEnv+"=stdio")
	ctx := context.Background()
	session, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "v1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer session.Close()
	call := func(i int) {
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "x" + string(rune('0'+i%10))}})
		if err != nil || res.IsError {
			b.Error(err)
		}
	}
	b.Run("sequential", func(b *testing.B) {
		for b.Loop() {
			for i := range 100 {
				call(i)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/100/1000, "µs/call")
	})
	b.Run("concurrent", func(b *testing.B) {
		for b.Loop() {
			var wg sync.WaitGroup
			for i := range 100 {
				wg.Go(func() { call(i) })
			}
			wg.Wait()
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/100/1000, "µs/call")
	})
}
