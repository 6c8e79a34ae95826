package v1client_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/jsruntime"
	"github.com/codemodehq/codemode/pkg/v1/v1client"
)

// BenchmarkV1 measures what a V1 transport adds, against the in-process provider in the same
// run: a cell start (Execute until the Result of text("x")) and an awaited tool round trip
// (JavaScript → host → client delegate → host → JavaScript; one op = one call of 100 sequential
// calls in one cell, so cell start is amortised away), a cell awaiting Promise.all of 100 tool
// calls and a cell whose output is one 1 MiB text. Transports: the host as a separate process
// on stdio, over one WebSocket and over dual WebSockets on 127.0.0.1.
func BenchmarkV1(b *testing.B) {
	transports := []struct {
		name string
		new  func(b *testing.B) codemode.SessionProvider
	}{
		{"inprocess", func(b *testing.B) codemode.SessionProvider {
			p, err := jsruntime.NewProvider(jsruntime.Options{})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = p.Close() })
			return p
		}},
		{"stdio", func(b *testing.B) codemode.SessionProvider {
			path, args, env := hostCommand("stdio")
			p := v1client.NewProcessProvider(v1client.Command{Path: path, Args: args, Env: env}, v1client.Options{})
			b.Cleanup(func() { _ = p.Close() })
			return p
		}},
		{"websocket", func(b *testing.B) codemode.SessionProvider {
			p := v1client.NewWebSocketProvider(startWebSocketHost(b), false, v1client.Options{})
			b.Cleanup(func() { _ = p.Close() })
			return p
		}},
		{"dualwebsocket", func(b *testing.B) codemode.SessionProvider {
			p := v1client.NewWebSocketProvider(startWebSocketHost(b), true, v1client.Options{})
			b.Cleanup(func() { _ = p.Close() })
			return p
		}},
	}
	for _, tr := range transports {
		b.Run(tr.name, func(b *testing.B) {
			p := tr.new(b)
			sess, err := p.CreateSession(context.Background(), codemode.FromBlocking(echoDelegate{}), codemode.SessionCellExecutionLimits{})
			if err != nil {
				b.Fatal(err)
			}
			defer sess.Shutdown(context.Background())
			b.Run("CellStart", func(b *testing.B) {
				for b.Loop() {
					runCell(b, sess, `text("x")`)
				}
			})
			b.Run("ToolRoundTrip", func(b *testing.B) {
				const calls = 100
				for b.Loop() {
					runCell(b, sess, `for (let i = 0; i < 100; i++) { await tools.echo(i); }`)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*calls)/1e3, "µs/call")
			})
			b.Run("PromiseAll100", func(b *testing.B) {
				for b.Loop() {
					runCell(b, sess, `await Promise.all(Array.from({length: 100}, (_, j) => tools.echo({j})))`)
				}
			})
			b.Run("TextOutput1MiB", func(b *testing.B) {
				for b.Loop() {
					runCell(b, sess, `text("x".repeat(1 << 20))`)
				}
			})
		})
	}
}

func runCell(b *testing.B, sess codemode.Session, source string) {
	c, err := sess.Execute(context.Background(), codemode.ExecuteRequest{ToolCallID: "bench", Source: source,
		EnabledTools: []codemode.ToolDefinition{functionTool("echo")}, YieldTimeMs: forever()})
	if err != nil {
		b.Fatal(err)
	}
	r, err := c.InitialResponse(context.Background())
	if err != nil || r.Kind != codemode.Result || r.ErrorText != nil {
		b.Fatalf("%+v, %v", r, err)
	}
}

// echoDelegate answers every tool call with its input.
type echoDelegate struct{ codemode.BlockingNoop }

func (echoDelegate) InvokeTool(_ context.Context, call codemode.NestedToolCall) (json.RawMessage, error) {
	return call.Input, nil
}
