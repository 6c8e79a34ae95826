package tracing_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/telemetry/tracing"
)

// BenchmarkTracing runs a cell that only starts and ends, and one that calls a tool, on the
// in-process runtime bare ("off": a host without a trace flag installs nothing) and behind the
// decorator with every span exported in batches as OTLP JSON to a sink that discards it ("on").
// The two modes run in the same process, one after the other, so that their ratio is comparable.
func BenchmarkTracing(b *testing.B) {
	cells := []struct {
		name string
		req  codemode.ExecuteRequest
	}{
		{"cell", codemode.ExecuteRequest{ToolCallID: "call", Source: `text(1)`}},
		{"tool-round-trip", codemode.ExecuteRequest{ToolCallID: "call", EnabledTools: []codemode.ToolDefinition{tool("echo")}, Source: `await tools.echo({a: 1})`}},
	}
	for _, c := range cells {
		for _, mode := range []string{"off", "on"} {
			b.Run(c.name+"/"+mode, func(b *testing.B) {
				var p codemode.SessionProvider = newRuntime(b)
				if mode == "on" {
					sink := &discardSink{}
					tp := tracing.NewTracerProvider(tracing.NewExporter(sink), tracing.Service{Name: "bench"})
					defer func() {
						_ = tp.Shutdown(context.Background())
						b.ReportMetric(float64(sink.bytes.Load())/float64(b.N), "exported-B/op")
					}()
					p = tracing.WrapProvider(p, tracing.Tracer(tp))
				}
				ctx := context.Background()
				s, err := p.CreateSession(ctx, &startingDelegate{&recordingDelegate{}}, codemode.SessionCellExecutionLimits{})
				if err != nil {
					b.Fatal(err)
				}
				defer s.Shutdown(ctx)
				b.ReportAllocs()
				for b.Loop() {
					started, err := s.Execute(ctx, c.req)
					if err != nil {
						b.Fatal(err)
					}
					if r, err := started.InitialResponse(ctx); err != nil || r.Kind != codemode.Result {
						b.Fatalf("%+v, %v", r, err)
					}
				}
			})
		}
	}
}

// discardSink counts the bytes of the batches it is sent.
type discardSink struct{ bytes atomic.Int64 }

func (s *discardSink) Send(_ context.Context, batch []byte) error {
	s.bytes.Add(int64(len(batch)))
	return nil
}
