package main_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/grpc/grpcclient"
	"github.com/codemodehq/codemode/pkg/testenv"
	"github.com/codemodehq/codemode/pkg/v1/v1client"
)

// BenchmarkAgainstCodexHost runs the same workloads on Codex's own host (the pinned
// codex-code-mode-host, V8) and on codemode-host, both spawned as process hosts speaking V1 on
// stdio (the way Codex spawns a host) and driven by the same Go client (pkg/v1/v1client) and
// delegate, in one run: every workload runs as host=codex, then host=codemode. The bridge-bound
// rows also run over gRPC on the child's stdio (Codex 0.169's default spawn; pkg/grpc/grpcclient),
// as "<workload>@grpc-stdio". tools/bench-codex.sh pairs the hosts and prints the ratios
// codemode / Codex; ratios, not absolute numbers, compare across these noisy machines.
func BenchmarkAgainstCodexHost(b *testing.B) {
	codex := testenv.FindCodex(b)
	hosts := []comparedHost{
		{name: "codex", path: codex.Host},
		{name: "codemode", path: bin, args: []string{"--log-level", "warn"}},
	}
	if h, ok := candidateHost(); ok {
		hosts = append(hosts, h)
	}
	for _, w := range codexWorkloads {
		for _, h := range hosts {
			b.Run(w.name+"/host="+h.name, func(b *testing.B) { w.run(b, h.session(b, v1Stdio)) })
		}
	}
	for _, w := range append(codexWorkloads[:3:3], codexWorkloads[len(codexWorkloads)-1]) { // cell start, tool round trip, Promise.all, the floor
		for _, h := range hosts {
			b.Run(w.name+"@grpc-stdio/host="+h.name, func(b *testing.B) { w.run(b, h.session(b, grpcStdio)) })
		}
	}
	for _, h := range hosts {
		b.Run("UnaryRPC@grpc-stdio/host="+h.name, func(b *testing.B) { unaryFloor(b, h) })
	}
	for _, h := range hosts {
		b.Run("Sustained100Sessions/host="+h.name, func(b *testing.B) { sustained100Sessions(b, h) })
	}
	for _, h := range hosts {
		b.Run("Cells120Sessions/host="+h.name, func(b *testing.B) { cells120Sessions(b, h) })
	}
	for _, h := range hosts {
		b.Run("LiveCellRSS/host="+h.name, func(b *testing.B) { liveCellRSS(b, h, 50) })
	}
	for _, h := range hosts {
		b.Run("LiveCells1000RSS/host="+h.name, func(b *testing.B) { liveCellRSS(b, h, 1000) })
	}
}

// comparedHost is a host program to compare.
type comparedHost struct {
	name string
	path string
	args []string // before the --listen the transport adds
	env  []string // K=V pairs added to the benchmark's environment
}

// environ is h's environment for a spawn: nil (the benchmark's) when h adds nothing.
func (h comparedHost) environ() []string {
	if len(h.env) == 0 {
		return nil
	}
	return append(os.Environ(), h.env...)
}

// Candidate host: a third host binary, run in the same alternation as Codex's and codemode's
// (host=candidate rows), so that a change is measured against the tree it changes in one run on
// one machine's hour, not across runs whose ratios drift (docs/benchmarks.md).
// CODEMODE_BENCH_CANDIDATE is its path; CODEMODE_BENCH_CANDIDATE_ENV, space-separated K=V pairs,
// are added to its environment.
const (
	candidateEnv    = "CODEMODE_BENCH_CANDIDATE"
	candidateEnvEnv = "CODEMODE_BENCH_CANDIDATE_ENV"
)

// candidateHost is the candidate host, if one is named.
func candidateHost() (comparedHost, bool) {
	path := os.Getenv(candidateEnv)
	if path == "" {
		return comparedHost{}, false
	}
	return comparedHost{name: "candidate", path: path, args: []string{"--log-level", "warn"}, env: strings.Fields(os.Getenv(candidateEnvEnv))}, true
}

// closingProvider is a session provider that owns a host process.
type closingProvider interface {
	codemode.SessionProvider
	Close() error
}

// transport spawns a host program as a session provider.
type transport func(h comparedHost) closingProvider

// v1Stdio speaks V1 on the child's stdio; grpcStdio speaks gRPC there.
var (
	v1Stdio transport = func(h comparedHost) closingProvider {
		args := append(append([]string(nil), h.args...), "--listen", "stdio")
		if h.name == "codex" {
			args = h.args // Codex's host speaks V1 on stdio by default
		}
		return v1client.NewProcessProvider(v1client.Command{Path: h.path, Args: args, Env: h.environ()}, v1client.Options{})
	}
	grpcStdio transport = func(h comparedHost) closingProvider {
		return grpcclient.NewProcess(grpcclient.Command{Path: h.path, Args: h.args, Env: h.environ()}, grpcclient.Options{})
	}
)

// session opens a session on a fresh process of h over t, closed when the benchmark ends; one
// warm-up cell has run on it.
func (h comparedHost) session(b *testing.B, t transport) codemode.Session {
	b.Helper()
	p := t(h)
	b.Cleanup(func() { _ = p.Close() })
	s, err := p.CreateSession(context.Background(), codemode.FromBlocking(benchDelegate{}), codemode.SessionCellExecutionLimits{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Shutdown(context.Background()) })
	runCell(b, s, `text("warm")`)
	return s
}

// codexWorkload is one row of the comparison.
type codexWorkload struct {
	name string
	run  func(b *testing.B, s codemode.Session)
}

// codexWorkloads are the rows of issue 26's table: what a user of either host does.
var codexWorkloads = []codexWorkload{
	{"CellStart", cellsOf(`text("hi")`, "hi")},
	{"ToolRoundTrip", perCall(100, `for (let i = 0; i < 100; i++) await tools.echo({i}); text("done")`)},
	{"PromiseAll100", cellsOf(`await Promise.all(Array.from({length: 100}, (_, j) => tools.echo({j}))); text("done")`, "done")},
	{"Loop1e6", cellsOf(`let s = 0; for (let i = 0; i < 1e6; i++) s += i; text(s)`, "499999500000")},
	{"ToolResult1MiB", cellsOf(`text((await tools.big({})).data.length)`, "1048576")},
	{"ToolInput1MiB", cellsOf(`await tools.sink({s: "x".repeat(1 << 20)}); text("done")`, "done")},
	{"ToolInputEcho1MiB", cellsOf(`const r = await tools.echo({s: "x".repeat(1 << 20)}); text(r.s.length)`, "1048576")},
	{"JSON20kObjects", cellsOf(`const a = Array.from({length: 20000}, (_, i) => ({id: i, name: "item" + i, tags: ["a", "b"], nested: {ok: true}}));
text(JSON.parse(JSON.stringify(a)).length)`, "20000")},
	{"TextOutput1MiB", cellsOf(`text("x".repeat(1 << 20)); text("done")`, "")},
	{"TextOutput100MB", hugeText},
	{"RequestFloor", unknownCellTerminate},
}

// unknownCellTerminate is one request that both hosts answer at once: a terminate of a cell that
// never existed (answered as missing). It is the share of every round trip that belongs to the client
// and the transport rather than to either host's work.
func unknownCellTerminate(b *testing.B, s codemode.Session) {
	for b.Loop() {
		if out, err := s.Terminate(context.Background(), "987654321"); err != nil || !out.Missing {
			b.Fatalf("terminate of an unknown cell: %+v %v", out, err)
		}
	}
}

// cellsOf runs src as one cell per iteration; its first text must be want ("": any).
func cellsOf(src, want string) func(b *testing.B, s codemode.Session) {
	return func(b *testing.B, s codemode.Session) {
		for b.Loop() {
			r := runCell(b, s, src)
			if r.ErrorText != nil || (want != "" && firstText(r) != want) {
				b.Fatalf("%.40s: %v %q", src, errText(r), firstText(r))
			}
		}
	}
}

// perCall runs src, a cell of calls tool calls, and reports the time per call.
func perCall(calls int, src string) func(b *testing.B, s codemode.Session) {
	return func(b *testing.B, s codemode.Session) {
		for b.Loop() {
			if r := runCell(b, s, src); r.ErrorText != nil {
				b.Fatalf("%v", errText(r))
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*calls), "ns/call")
	}
}

// hugeText writes one 100 MB text(): both hosts answer with an error (Codex's host fails the
// execute, its response exceeding the 64 MiB frame limit; codemode's text() throws past its output
// limit, which is that frame limit); the time is until that answer.
func hugeText(b *testing.B, s codemode.Session) {
	for b.Loop() {
		r, err := cellOutcome(s, `text("x".repeat(100e6))`)
		if err == nil && r.ErrorText == nil {
			b.Fatalf("100 MB text() answered without an error: %d items", len(r.ContentItems))
		}
	}
}

// runCell executes src and waits until it ends, through as many waits as its yields take.
func runCell(b *testing.B, s codemode.Session, src string) codemode.RuntimeResponse {
	b.Helper()
	r, err := cellOutcome(s, src)
	if err != nil {
		b.Fatal(err)
	}
	return r
}

// cellOutcome executes src and returns its final response, or the error of the execute or a wait.
func cellOutcome(s codemode.Session, src string) (codemode.RuntimeResponse, error) {
	ctx := context.Background()
	yield := uint64(600_000)
	started, err := s.Execute(ctx, codemode.ExecuteRequest{ToolCallID: "bench", Source: src, EnabledTools: benchTools, YieldTimeMs: &yield})
	if err != nil {
		return codemode.RuntimeResponse{}, err
	}
	r, err := started.InitialResponse(ctx)
	for err == nil && r.Kind == codemode.Yielded {
		var o codemode.WaitOutcome
		o, err = s.Wait(ctx, codemode.WaitRequest{CellID: started.CellID, YieldTimeMs: yield})
		r = o.Response
	}
	return r, err
}

func firstText(r codemode.RuntimeResponse) string {
	for _, item := range r.ContentItems {
		if t, ok := item.(codemode.InputText); ok {
			return t.Text
		}
	}
	return ""
}

func errText(r codemode.RuntimeResponse) string {
	if r.ErrorText == nil {
		return "<nil>"
	}
	return *r.ErrorText
}

// benchTools are the tools every cell gets: echo answers its input, big a 1 MiB string, block
// never answers (until its cell ends), sink answers nothing (null) whatever its input.
var benchTools = []codemode.ToolDefinition{
	{Name: "echo", ToolName: codemode.ToolName{Name: "echo"}, Kind: codemode.ToolKindFunction},
	{Name: "sink", ToolName: codemode.ToolName{Name: "sink"}, Kind: codemode.ToolKindFunction},
	{Name: "big", ToolName: codemode.ToolName{Name: "big"}, Kind: codemode.ToolKindFunction},
	{Name: "block", ToolName: codemode.ToolName{Name: "block"}, Kind: codemode.ToolKindFunction},
}

var bigResult, _ = json.Marshal(map[string]string{"data": strings.Repeat("x", 1<<20)})

// benchDelegate answers the benchmark's tools.
type benchDelegate struct{ codemode.DiscardReports }

func (benchDelegate) InvokeTool(ctx context.Context, call codemode.NestedToolCall) (json.RawMessage, error) {
	switch call.ToolName.Name {
	case "big":
		return bigResult, nil
	case "block":
		<-ctx.Done()
		return nil, ctx.Err()
	case "sink":
		return nil, nil
	}
	return call.Input, nil
}

func (benchDelegate) Notify(context.Context, string, codemode.CellID, string) error { return nil }
func (benchDelegate) CellClosed(codemode.CellID)                                    {}

// liveCellRSS reports the host's resident memory per live cell: cells blocked on a tool call, on
// one V1 connection, against the same host before they started. A host that refuses one of them
// skips the row, saying which (codemode capped live cells at 128 before issue 38's scale work).
func liveCellRSS(b *testing.B, h comparedHost, cells int) {
	s := h.session(b, v1Stdio)
	pid := hostPID(b, h.path)
	before := rss(b, pid)
	yield := uint64(1)
	var live []codemode.CellID
	for range cells {
		started, err := s.Execute(context.Background(), codemode.ExecuteRequest{Source: `await tools.block({})`, EnabledTools: benchTools, YieldTimeMs: &yield})
		if err != nil && len(live) > 0 {
			b.Skipf("%s refused live cell %d: %v", h.name, len(live)+1, err)
		}
		if err != nil {
			b.Fatal(err)
		}
		r, err := started.InitialResponse(context.Background())
		if err != nil || r.Kind != codemode.Yielded {
			b.Fatalf("a blocked cell answered %v %v", r.Kind, err)
		}
		live = append(live, started.CellID)
	}
	after := rss(b, pid)
	for _, id := range live {
		if _, err := s.Terminate(context.Background(), id); err != nil {
			b.Fatal(err)
		}
	}
	// One measurement whatever b.N: the metric is memory, not time.
	for b.Loop() {
	}
	b.ReportMetric(float64(after-before)/float64(cells), "B/live-cell")
}

// hostPID finds the one running child of this process whose executable is path.
func hostPID(b testing.TB, path string) int {
	b.Helper()
	want, _ := filepath.EvalSymlinks(path)
	entries, _ := os.ReadDir("/proc")
	self := strconv.Itoa(os.Getpid())
	found := 0
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(fields) < 2 || fields[1] != self {
			continue
		}
		if exe, _ := os.Readlink(filepath.Join("/proc", e.Name(), "exe")); exe == want {
			found = pid
		}
	}
	if found == 0 {
		b.Fatalf("no child process runs %s", path)
	}
	return found
}

// sustained100Sessions runs 100 sessions on one process of h over V1 stdio, each executing cells
// of 100 awaited tool calls back to back, until b.N calls were made in all; it reports the time
// per call across the sessions (ns/call: the inverse of the throughput) and calls/s.
func sustained100Sessions(b *testing.B, h comparedHost) {
	const sessions = 100
	p := v1Stdio(h)
	b.Cleanup(func() { _ = p.Close() })
	var calls atomic.Int64
	d := countingDelegate{calls: &calls}
	ss := make([]codemode.Session, sessions)
	for i := range ss {
		s, err := p.CreateSession(context.Background(), codemode.FromBlocking(d), codemode.SessionCellExecutionLimits{})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = s.Shutdown(context.Background()) })
		runCell(b, s, `text("warm")`)
		ss[i] = s
	}
	calls.Store(0)
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for _, s := range ss {
		wg.Go(func() {
			for calls.Load() < int64(b.N) {
				if r, err := cellOutcome(s, `for (let i = 0; i < 100; i++) await tools.echo({i}); text("done")`); err != nil || r.ErrorText != nil {
					b.Errorf("%v %v", err, errText(r))
					return
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	n := calls.Load()
	b.ReportMetric(float64(elapsed.Nanoseconds())/float64(n), "ns/call")
	b.ReportMetric(float64(n)/elapsed.Seconds(), "calls/s")
}

// cells120Sessions runs 120 sessions on one process of h over V1 stdio, each starting a small
// cell as soon as its last one ended, until b.N cells ran in all; it reports the time per cell
// across the sessions (ns/cell: the inverse of the throughput) and cells/s.
func cells120Sessions(b *testing.B, h comparedHost) {
	const sessions = 120
	p := v1Stdio(h)
	b.Cleanup(func() { _ = p.Close() })
	ss := make([]codemode.Session, sessions)
	for i := range ss {
		s, err := p.CreateSession(context.Background(), codemode.FromBlocking(benchDelegate{}), codemode.SessionCellExecutionLimits{})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = s.Shutdown(context.Background()) })
		runCell(b, s, `text("warm")`)
		ss[i] = s
	}
	var cells atomic.Int64
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for _, s := range ss {
		wg.Go(func() {
			for cells.Add(1) <= int64(b.N) {
				if r, err := cellOutcome(s, `text("hi")`); err != nil || r.ErrorText != nil || firstText(r) != "hi" {
					b.Errorf("%v %v", err, errText(r))
					return
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	n := min(cells.Load(), int64(b.N))
	b.ReportMetric(float64(elapsed.Nanoseconds())/float64(n), "ns/cell")
	b.ReportMetric(float64(n)/elapsed.Seconds(), "cells/s")
}

// countingDelegate is benchDelegate counting the tool calls it answers.
type countingDelegate struct {
	benchDelegate
	calls *atomic.Int64
}

func (d countingDelegate) InvokeTool(ctx context.Context, call codemode.NestedToolCall) (json.RawMessage, error) {
	d.calls.Add(1)
	return d.benchDelegate.InvokeTool(ctx, call)
}
