package main_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/grpc/grpcclient"
)

// Scale-out benchmarks on the real binary: tool-call round trips and throughput of codemode-host
// processes, directly and behind HAProxy (deploy/haproxy/haproxy.cfg), with the Go client as the
// tool provider; and the host's memory per idle session and per live cell.
// tools/bench-scale.sh runs them and prints the table in docs/benchmarks.md.

// benchHost starts codemode-host with a gRPC listener for a benchmark and returns its host:port
// and process ID; it is killed at cleanup.
func benchHost(b *testing.B, args ...string) (string, int) {
	b.Helper()
	cmd := exec.Command(bin, append([]string{"--listen", "grpc://127.0.0.1:0", "--log-level", "warn"}, args...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		b.Fatalf("codemode-host printed %q: %v", line, err)
	}
	return strings.TrimPrefix(strings.TrimSpace(line), "http://"), cmd.Process.Pid
}

// echoDelegate answers every tool call with its input.
type echoDelegate struct{ codemode.BlockingNoop }

func (echoDelegate) InvokeTool(_ context.Context, call codemode.NestedToolCall) (json.RawMessage, error) {
	return call.Input, nil
}

var echoTool = codemode.ToolDefinition{Name: "echo", ToolName: codemode.ToolName{Name: "echo"}, Kind: codemode.ToolKindFunction}

// benchCell runs source in s and fails unless it completes.
func benchCell(b *testing.B, s codemode.Session, source string) {
	yield := uint64(600_000)
	c, err := s.Execute(context.Background(), codemode.ExecuteRequest{ToolCallID: "call", Source: source, YieldTimeMs: &yield, EnabledTools: []codemode.ToolDefinition{echoTool}})
	if err != nil {
		b.Error(err)
		return
	}
	r, err := c.InitialResponse(context.Background())
	if err != nil || r.Kind != codemode.Result || r.ErrorText != nil {
		b.Errorf("cell: %+v, %v", r, err)
	}
}

// scaleTargets are the benchmarked set-ups: one host directly, one host behind HAProxy, three
// hosts behind HAProxy. Each returns the endpoint for the Go client.
func scaleTargets() []struct {
	name  string
	start func(b *testing.B) string
} {
	return []struct {
		name  string
		start func(b *testing.B) string
	}{
		{"direct-1host", func(b *testing.B) string { addr, _ := benchHost(b); return "http://" + addr }},
		{"haproxy-1host", func(b *testing.B) string { addr, _ := benchHost(b); return startHAProxy(b, addr).url }},
		{"haproxy-3hosts", func(b *testing.B) string {
			var addrs []string
			for range 3 {
				addr, _ := benchHost(b)
				addrs = append(addrs, addr)
			}
			return startHAProxy(b, addrs...).url
		}},
	}
}

// BenchmarkScaleToolRoundTrip is one tool call's round trip (cell → host → client delegate →
// host → cell) in one session: ns/op is the latency; the proxy's share is haproxy-1host minus
// direct-1host.
func BenchmarkScaleToolRoundTrip(b *testing.B) {
	for _, target := range scaleTargets() {
		b.Run(target.name, func(b *testing.B) {
			p, err := grpcclient.New(target.start(b), grpcclient.Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer p.Close()
			s, err := p.CreateSession(context.Background(), codemode.FromBlocking(echoDelegate{}), codemode.SessionCellExecutionLimits{})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Shutdown(context.Background())
			benchCell(b, s, `for (let i = 0; i < 100; i++) await tools.echo(i);`) // warm
			b.ResetTimer()
			benchCell(b, s, fmt.Sprintf(`for (let i = 0; i < %d; i++) await tools.echo(i);`, b.N))
		})
	}
}

// BenchmarkScaleToolThroughput runs 60 sessions at once (spread over the hosts by the proxy),
// each a cell calling its tool in batches of 10 concurrent calls, and reports tool calls per
// second across all of them. Client, proxy and hosts share this machine's cores.
func BenchmarkScaleToolThroughput(b *testing.B) {
	const sessions, batch = 60, 10
	for _, target := range scaleTargets() {
		b.Run(target.name, func(b *testing.B) {
			p, err := grpcclient.New(target.start(b), grpcclient.Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer p.Close()
			all := make([]codemode.Session, sessions)
			for i := range all {
				s, err := p.CreateSession(context.Background(), codemode.FromBlocking(echoDelegate{}), codemode.SessionCellExecutionLimits{})
				if err != nil {
					b.Fatal(err)
				}
				defer s.Shutdown(context.Background())
				all[i] = s
			}
			rounds := max(1, (b.N+sessions*batch-1)/(sessions*batch))
			source := fmt.Sprintf(`for (let r = 0; r < %d; r++) await Promise.all(Array.from({length: %d}, (_, j) => tools.echo(j)));`, rounds, batch)
			var wg sync.WaitGroup
			b.ResetTimer()
			start := time.Now()
			for _, s := range all {
				wg.Add(1)
				go func() {
					defer wg.Done()
					benchCell(b, s, source)
				}()
			}
			wg.Wait()
			elapsed := time.Since(start)
			b.StopTimer()
			b.ReportMetric(float64(sessions*batch*rounds)/elapsed.Seconds(), "calls/s")
		})
	}
}

// BenchmarkHostMemory measures one codemode-host process's resident memory (VmRSS) as sessions
// and cells accumulate: idle sessions (a lease, a subscription, no cell), then live cells (each a
// yielded cell that awaits forever, in its own session). It reports the growth per idle session
// and per live cell; run it with -benchtime 1x.
func BenchmarkHostMemory(b *testing.B) {
	const idle, live = 500, 100
	for range b.N {
		addr, pid := benchHost(b)
		p, err := grpcclient.New("http://"+addr, grpcclient.Options{})
		if err != nil {
			b.Fatal(err)
		}
		open := func() codemode.Session {
			s, err := p.CreateSession(context.Background(), codemode.FromBlocking(echoDelegate{}), codemode.SessionCellExecutionLimits{})
			if err != nil {
				b.Fatal(err)
			}
			return s
		}
		warm := open()
		benchCell(b, warm, `await tools.echo(1);`)
		base := rss(b, pid)
		var sessions []codemode.Session
		for range idle {
			sessions = append(sessions, open())
		}
		withIdle := rss(b, pid)
		yield := uint64(1)
		for range live {
			s := open()
			sessions = append(sessions, s)
			c, err := s.Execute(context.Background(), codemode.ExecuteRequest{ToolCallID: "call", YieldTimeMs: &yield,
				Source: `await tools.echo(1); yield_control(); await new Promise(() => {});`, EnabledTools: []codemode.ToolDefinition{echoTool}})
			if err != nil {
				b.Fatal(err)
			}
			if r, err := c.InitialResponse(context.Background()); err != nil || r.Kind != codemode.Yielded {
				b.Fatalf("live cell: %+v, %v", r, err)
			}
		}
		withLive := rss(b, pid)
		b.ReportMetric(float64(base)/(1<<20), "base-RSS-MiB")
		b.ReportMetric(float64(withIdle-base)/idle, "B/idle-session")
		// A live cell here also has its own session: subtract the idle session it costs.
		b.ReportMetric(float64(withLive-withIdle)/live-float64(withIdle-base)/idle, "B/live-cell")
		b.ReportMetric(float64(withLive)/(1<<20), "RSS-MiB")
		for _, s := range append(sessions, warm) {
			_ = s.Shutdown(context.Background())
		}
		_ = p.Close()
	}
}

// rss is a process's resident set size in bytes.
func rss(b *testing.B, pid int) int64 {
	b.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			return kb << 10
		}
	}
	b.Fatal("no VmRSS")
	return 0
}
