package metrics_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/telemetry/metrics"
)

// The decorator's cost on the two paths it sits on, bare and decorated in the same run
// (go test -bench . -count 6 ./pkg/telemetry/metrics, then compare the pairs): a cell's start to
// its result, and a tool call's round trip through the delegate.

// echo answers every tool call with its input at once.
type echo struct{ codemode.BlockingNoop }

// InvokeTool returns the call's input.
func (echo) InvokeTool(_ context.Context, call codemode.NestedToolCall) (json.RawMessage, error) {
	return call.Input, nil
}

// providers are the bare runtime and the same runtime behind the decorator.
func providers(b *testing.B) []struct {
	name string
	p    codemode.SessionProvider
} {
	rt := newRuntime(b)
	return []struct {
		name string
		p    codemode.SessionProvider
	}{{"bare", rt}, {"metrics", metrics.New(metrics.Options{}).Provider(rt)}}
}

// runCell runs src to its result in s.
func runCell(b *testing.B, s codemode.Session, src string, tools []codemode.ToolDefinition) {
	forever := uint64(3_600_000)
	c, err := s.Execute(context.Background(), codemode.ExecuteRequest{ToolCallID: "bench", Source: src, YieldTimeMs: &forever, EnabledTools: tools})
	if err != nil {
		b.Fatal(err)
	}
	r, err := c.InitialResponse(context.Background())
	if err != nil || r.ErrorText != nil {
		b.Fatalf("cell: %v %v", err, r.ErrorText)
	}
}

// BenchmarkCellStart runs a one-line cell to its result.
func BenchmarkCellStart(b *testing.B) {
	for _, p := range providers(b) {
		b.Run(p.name, func(b *testing.B) {
			s, err := p.p.CreateSession(context.Background(), codemode.NoopDelegate{}, codemode.SessionCellExecutionLimits{})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Shutdown(context.Background())
			for b.Loop() {
				runCell(b, s, `text(1)`, nil)
			}
		})
	}
}

// BenchmarkToolRoundTrip runs cells of 100 sequential tool calls; ns/call is per call.
func BenchmarkToolRoundTrip(b *testing.B) {
	const calls = 100
	tool := []codemode.ToolDefinition{{Name: "echo", ToolName: codemode.ToolName{Name: "echo"}, Kind: codemode.ToolKindFunction}}
	for _, p := range providers(b) {
		b.Run(p.name, func(b *testing.B) {
			s, err := p.p.CreateSession(context.Background(), codemode.FromBlocking(echo{}), codemode.SessionCellExecutionLimits{})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Shutdown(context.Background())
			for b.Loop() {
				runCell(b, s, `for (let i = 0; i < 100; i++) await tools.echo({i})`, tool)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*calls), "ns/call")
		})
	}
}
