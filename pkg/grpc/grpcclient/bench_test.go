package grpcclient_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/grpc/grpcclient"
)

// Benchmarks of the gRPC transport, each beside the in-process provider it serves, in the same
// run: the difference is what the wire adds. `make bench` runs them (docs/benchmarks.md).

// echo is the cheapest delegate: a tool returns its input.
type echo struct{ codemode.BlockingNoop }

func (echo) InvokeTool(_ context.Context, call codemode.NestedToolCall) (json.RawMessage, error) {
	if call.Input == nil {
		return json.RawMessage("null"), nil
	}
	return call.Input, nil
}

// benchProviders are the providers a benchmark compares: the in-process runtime itself, and the
// Go client over each protocol against a host serving that same runtime on 127.0.0.1.
func benchProviders(b *testing.B) []struct {
	name     string
	provider codemode.SessionProvider
} {
	h := startHost(b, "127.0.0.1:0")
	return []struct {
		name     string
		provider codemode.SessionProvider
	}{
		{"inprocess", h.runtime},
		{"grpc", newProvider(b, h.url(), grpcclient.ProtocolGRPC)},
		{"connect", newProvider(b, h.url(), grpcclient.ProtocolConnect)},
	}
}

func benchSession(b *testing.B, p codemode.SessionProvider) codemode.Session {
	s, err := p.CreateSession(context.Background(), codemode.FromBlocking(echo{}), codemode.SessionCellExecutionLimits{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Shutdown(context.Background()) })
	return s
}

func benchRun(b *testing.B, s codemode.Session, source string, tools ...codemode.ToolDefinition) codemode.RuntimeResponse {
	yield := uint64(3_600_000)
	c, err := s.Execute(context.Background(), codemode.ExecuteRequest{ToolCallID: "bench", Source: source, YieldTimeMs: &yield, EnabledTools: tools})
	if err != nil {
		b.Fatal(err)
	}
	r, err := c.InitialResponse(context.Background())
	if err != nil || r.Kind != codemode.Result || r.ErrorText != nil {
		b.Fatalf("%+v, %v", r, err)
	}
	return r
}

// BenchmarkToolRoundTrip is one awaited tool call: JS → delegate → JS, b.N of them in one cell.
func BenchmarkToolRoundTrip(b *testing.B) {
	for _, p := range benchProviders(b) {
		b.Run(p.name, func(b *testing.B) {
			s := benchSession(b, p.provider)
			benchRun(b, s, `text("warm")`)
			b.ResetTimer()
			benchRun(b, s, fmt.Sprintf(`for (let i = 0; i < %d; i++) await tools.echo(i);`, b.N), fnTool("echo"))
		})
	}
}

// BenchmarkCellStart is Execute → Result of text("hi").
func BenchmarkCellStart(b *testing.B) {
	for _, p := range benchProviders(b) {
		b.Run(p.name, func(b *testing.B) {
			s := benchSession(b, p.provider)
			for b.Loop() {
				benchRun(b, s, `text("hi")`)
			}
		})
	}
}

// BenchmarkToolStorm100Sessions runs 100 sessions at once, each a cell that calls its tool in
// batches of 10 concurrent calls; it reports tool calls per second across all of them.
func BenchmarkToolStorm100Sessions(b *testing.B) {
	const sessions, batch = 100, 10
	for _, p := range benchProviders(b) {
		b.Run(p.name, func(b *testing.B) {
			all := make([]codemode.Session, sessions)
			for i := range all {
				all[i] = benchSession(b, p.provider)
			}
			rounds := max(1, (b.N+sessions*batch-1)/(sessions*batch))
			source := fmt.Sprintf(`for (let r = 0; r < %d; r++) await Promise.all(Array.from({length: %d}, (_, j) => tools.echo(j)));`, rounds, batch)
			var wg sync.WaitGroup
			b.ResetTimer()
			start, startCPU := time.Now(), processCPU(b)
			for _, s := range all {
				wg.Add(1)
				go func() {
					defer wg.Done()
					benchRun(b, s, source, fnTool("echo"))
				}()
			}
			wg.Wait()
			elapsed, cpu := time.Since(start), processCPU(b)-startCPU
			b.StopTimer()
			calls := float64(sessions * batch * rounds)
			b.ReportMetric(calls/elapsed.Seconds(), "calls/s")
			// CPU per call (host, client and runtime together, all in this process): what the
			// throughput would be on idle cores, whatever else loads the machine.
			b.ReportMetric(float64(cpu.Microseconds())/calls, "cpu-µs/call")
		})
	}
}

// processCPU is the CPU time (user and system) this process has used.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
