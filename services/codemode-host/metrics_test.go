package main_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/codemode/codemodetest"
	"github.com/codemodehq/codemode/pkg/grpc/grpcclient"
	"github.com/codemodehq/codemode/pkg/grpc/grpcconv"
)

// metricsManifest writes a tool manifest with three tools that run on the host: host_echo
// returns its input, host_fail exits 3, host_slow outlives its 200 ms timeout and is killed.
func metricsManifest(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tools.json")
	manifest := `{"tools": [
  {"name": "host_echo", "description": "Returns its input.", "command": ["cat"]},
  {"name": "host_fail", "description": "Fails.", "command": ["sh", "-c", "echo boom >&2; exit 3"]},
  {"name": "host_slow", "description": "Times out.", "command": ["sleep", "60"], "timeout": "200ms"}]}`
	if err := os.WriteFile(path, []byte(manifest), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// workloadCell is one cell of the scripted workload and the outcome the host must count.
type workloadCell struct {
	name, src, outcome string
	// yieldEarly runs the cell with a 1 ms yield time and terminates it after its empty yield.
	// Not zero: a zero yield time answers before the cell has taken a runtime, and a Terminate
	// that came first would leave the pool's counts to chance; a yield deadline counts from the
	// runtime's start, so the yield proves the cell took one.
	yieldEarly bool
	// beside, when set, is the source of a second cell run to its end (outcome ok) while this one
	// waits in client_hold: the pool's one runtime is taken, so the second cell must create one.
	beside string
}

// workload is every outcome the metrics tell apart, tool results of every kind and a
// notification.
var workload = []workloadCell{
	{name: "ok", src: `text("hi")`, outcome: "ok"},
	{name: "tool", src: `const r = await tools.host_echo({word: "a"}); text(r.word)`, outcome: "ok"},
	{name: "syntax error", src: `text(`, outcome: "script_error"},
	{name: "throw", src: `throw new Error("x")`, outcome: "script_error"},
	{name: "endless loop", src: `while (true) {}`, outcome: "terminated", yieldEarly: true},
	{name: "512 MiB", src: `const b = new ArrayBuffer(512 * 1024 * 1024); text(b.byteLength)`, outcome: "out_of_memory"},
	{name: "host tool fails", src: `try { await tools.host_fail({}) } catch (e) { text("caught") }`, outcome: "ok"},
	{name: "host tool times out", src: `try { await tools.host_slow({}) } catch (e) { text("late") }`, outcome: "ok"},
	{name: "client tool fails", src: `try { await tools.client_fail({}) } catch (e) { text("refused") }`, outcome: "ok"},
	{name: "notify", src: `notify("n1"); text("done")`, outcome: "ok"},
	{name: "held", src: `await tools.client_hold({}); text("released")`, outcome: "ok", beside: `text("beside")`},
}

// workloadCells counts the workload's cells, those run beside another included.
func workloadCells() int {
	n := len(workload)
	for _, c := range workload {
		if c.beside != "" {
			n++
		}
	}
	return n
}

// poolMisses is how many of the workload's cells find no runtime ready on a host that keeps none
// warm (--pool-size 0): each cell run beside another; and, where the linear memory is not one
// mapped reservation (engine/memory_other.go), the cell after the out-of-memory one, whose
// runtime's grown memory gets it replaced. Every other cell reuses the runtime the cell before it
// put back (the pool's Get waits for a runtime on its way back rather than creating one).
func poolMisses() int {
	n := workloadCells() - len(workload)
	if runtime.GOOS != "linux" {
		n++
	}
	return n
}

// TestMetricsAndLogsOfAWorkload runs the scripted workload on a real codemode-host over gRPC, with
// refusals (a third session beyond --max-sessions 2, a malformed session ID), then scrapes
// /metrics on the admin listener and checks the exact value of every codemode_* series, the
// probes of both listeners, /debug/sessions, and, after a drain, the JSON log lines. The host
// keeps no runtime warm (--pool-size 0), so that only the workload's cells take runtimes from the
// pool and its hits and misses are exact (poolMisses).
func TestMetricsAndLogsOfAWorkload(t *testing.T) {
	h := startHost(t, nil, "--listen", "grpc://127.0.0.1:0", "--admin-listen", "http://127.0.0.1:0", "--pool-size", "0",
		"--tools", metricsManifest(t), "--max-heap-bytes", "67108864", "--max-sessions", "2", "--log-format", "json")
	addrs := h.addresses(2)
	grpcURL, admin := addrs[0], addrs[1]
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()

	if got := get(t, admin+"/readyz", nil); got.StatusCode != http.StatusOK {
		t.Fatalf("/readyz of an idle host: %d %s", got.StatusCode, body(got))
	}
	p, err := grpcclient.New(grpcURL, grpcclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	rec := codemodetest.NewRecorder()
	rec.Handle("client_fail", func(context.Context, codemode.NestedToolCall) (json.RawMessage, error) {
		return nil, errors.New("the client refuses")
	})
	held := newHold()
	rec.Handle("client_hold", held.tool)
	s, err := p.CreateSession(ctx, rec, codemode.SessionCellExecutionLimits{})
	if err != nil {
		t.Fatal(err)
	}
	var sources int
	for _, c := range workload {
		sources += len(c.src)
		runWorkloadCell(ctx, t, s, rec, held, c)
	}

	// Refusals: a second session fills the host, a third is refused (the client tries
	// grpcconv.MaxOpenAttempts times); a malformed session ID is refused too.
	second, err := p.CreateSession(ctx, codemodetest.NewRecorder(), codemode.SessionCellExecutionLimits{})
	if err != nil {
		t.Fatal(err)
	}
	if got := get(t, admin+"/readyz", nil); got.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body(got), "full: 2 sessions open") {
		t.Errorf("/readyz of a full host: %d, want 503 full", got.StatusCode)
	}
	if got := get(t, grpcURL+"/readyz", nil); got.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("/readyz of a full host on its gRPC listener: %d, want 503", got.StatusCode)
	}
	if got := get(t, admin+"/healthz", nil); got.StatusCode != http.StatusOK {
		t.Errorf("/healthz of a full host: %d, want 200 (it is alive)", got.StatusCode)
	}
	if _, err := p.CreateSession(ctx, codemodetest.NewRecorder(), codemode.SessionCellExecutionLimits{}); err == nil || !strings.Contains(err.Error(), "too many open sessions") {
		t.Fatalf("a third session: %v, want too many open sessions", err)
	}
	req, _ := http.NewRequest(http.MethodPost, grpcURL+"/codex.code_mode.v1.CodeModeHost/CloseSession", strings.NewReader(`{"sessionId":"not-a-uuid"}`))
	req.Header.Set("Content-Type", "application/json")
	if resp := do(t, http.DefaultClient, req); resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("CloseSession of a malformed ID: %d, want 400", resp.StatusCode)
	}
	checkDebugSessions(t, admin, 2)
	if err := second.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}

	families := scrapeUntil(ctx, t, admin, func(f map[string]*dto.MetricFamily) bool {
		return value(f, "codemode_notifications_total", "result", "ok") == 1 && value(f, "codemode_sessions_open", "", "") == 1
	})
	want := []struct {
		name, label, value string
		want               float64
	}{
		{"codemode_sessions_open", "", "", 1},
		{"codemode_sessions_opened_total", "", "", 2},
		{"codemode_cells_started_total", "", "", float64(workloadCells())},
		{"codemode_cells_live", "", "", 0},
		{"codemode_cells_finished_total", "outcome", "ok", 8},
		{"codemode_cells_finished_total", "outcome", "script_error", 2},
		{"codemode_cells_finished_total", "outcome", "terminated", 1},
		{"codemode_cells_finished_total", "outcome", "out_of_memory", 1},
		{"codemode_cell_duration_seconds", "outcome", "ok", 8},
		{"codemode_cell_yields_total", "", "", 1},
		{"codemode_cell_peak_heap_bytes", "", "", float64(workloadCells())},
		{"codemode_tool_calls_total", "result", "ok", 2},
		{"codemode_tool_calls_total", "result", "error", 2},
		{"codemode_tool_calls_total", "result", "timeout", 1},
		{"codemode_tool_calls_total", "result", "cancelled", 0},
		{"codemode_tool_call_duration_seconds", "result", "error", 2},
		{"codemode_notifications_total", "result", "ok", 1},
		{"codemode_notification_duration_seconds", "", "", 1},
		{"codemode_refusals_total", "reason", "too_many_sessions", grpcconv.MaxOpenAttempts},
		{"codemode_refusals_total", "reason", "invalid_argument", 1},
		{"codemode_refusals_total", "reason", "too_many_cells", 0},
		{"codemode_session_failures_total", "", "", 0},
		{"codemode_runtime_pool_size", "", "", 0},
		{"codemode_runtime_pool_hits_total", "", "", float64(workloadCells() - poolMisses())},
		{"codemode_runtime_pool_misses_total", "", "", float64(poolMisses())},
	}
	for _, w := range want {
		if got := value(families, w.name, w.label, w.value); got != w.want {
			t.Errorf("%s{%s=%q} = %v, want %v", w.name, w.label, w.value, got, w.want)
		}
	}
	// Sources and tool results go in; tool inputs, the notification and the output come out.
	if got := value(families, "codemode_bridge_bytes_total", "direction", "into_cell"); got < float64(sources) {
		t.Errorf("bytes into cells: %v, want at least the %d bytes of the sources", got, sources)
	}
	if got := value(families, "codemode_bridge_bytes_total", "direction", "out_of_cell"); got <= 0 {
		t.Errorf("bytes out of cells: %v, want some", got)
	}
	for _, name := range []string{"go_goroutines", "process_resident_memory_bytes", "go_memstats_heap_inuse_bytes"} {
		if families[name] == nil {
			t.Errorf("%s is missing: the Go and process collectors are not registered", name)
		}
	}
	checkNamedMetricsExist(t, families)

	if err := s.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	h.signal(syscall.SIGTERM)
	if code := h.exitCode(); code != 0 {
		t.Fatalf("exit status %d after the drain", code)
	}
	checkLogLines(t, h.stderrText())
}

// hold is how the test and client_hold meet: holding is signalled once the tool holds its cell,
// release lets it return.
type hold struct{ holding, release chan struct{} }

func newHold() hold { return hold{holding: make(chan struct{}, 1), release: make(chan struct{}, 1)} }

// tool is client_hold: it tells the test that it holds its cell, then waits until the test
// releases it (or the cell no longer needs it).
func (h hold) tool(ctx context.Context, _ codemode.NestedToolCall) (json.RawMessage, error) {
	h.holding <- struct{}{}
	select {
	case <-h.release:
		return json.RawMessage(`{}`), nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// clientTools are the tools the client offers every workload cell.
var clientTools = []codemode.ToolDefinition{
	{Name: "client_fail", ToolName: codemode.ToolName{Name: "client_fail"}, Kind: codemode.ToolKindFunction},
	{Name: "client_hold", ToolName: codemode.ToolName{Name: "client_hold"}, Kind: codemode.ToolKindFunction},
}

// runWorkloadCell runs c and checks its response; a yieldEarly cell is terminated after its
// yield, and a cell with a beside cell runs that one while it waits in client_hold.
func runWorkloadCell(ctx context.Context, t *testing.T, s codemode.Session, rec *codemodetest.Recorder, held hold, c workloadCell) {
	t.Helper()
	forever, early := uint64(3_600_000), uint64(1)
	yield := &forever
	if c.yieldEarly {
		yield = &early
	}
	started, err := s.Execute(ctx, codemode.ExecuteRequest{ToolCallID: "call-" + c.name, Source: c.src, YieldTimeMs: yield, EnabledTools: clientTools})
	if err != nil {
		t.Fatalf("%s: %v", c.name, err)
	}
	if c.beside != "" {
		select {
		case <-held.holding: // the cell holds the pool's one runtime
		case <-ctx.Done():
			t.Fatalf("%s: client_hold was never called: %v", c.name, ctx.Err())
		}
		runWorkloadCell(ctx, t, s, rec, held, workloadCell{name: c.name + " beside", src: c.beside, outcome: "ok"})
		held.release <- struct{}{}
	}
	r, err := started.InitialResponse(ctx)
	if err != nil {
		t.Fatalf("%s: %v", c.name, err)
	}
	if c.yieldEarly {
		if r.Kind != codemode.Yielded {
			t.Fatalf("%s: %v, want Yielded", c.name, r.Kind)
		}
		if _, err := s.Terminate(ctx, started.CellID); err != nil {
			t.Fatalf("%s: terminate: %v", c.name, err)
		}
	} else if r.Kind != codemode.Result {
		t.Fatalf("%s: %v, want Result", c.name, r.Kind)
	}
	if err := rec.AwaitCellClosed(ctx, started.CellID); err != nil {
		t.Fatalf("%s: %v", c.name, err)
	}
}

// checkDebugSessions checks that /debug/sessions lists n open sessions, and that the probes and
// unknown paths answer as documented on the admin listener.
func checkDebugSessions(t *testing.T, admin string, n int) {
	t.Helper()
	var got struct {
		Sessions []struct {
			Session      string `json:"session"`
			CellsStarted int    `json:"cells_started"`
		} `json:"sessions"`
	}
	resp := get(t, admin+"/debug/sessions", nil)
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil || len(got.Sessions) != n {
		t.Fatalf("/debug/sessions: %+v (%v), want %d sessions", got, err, n)
	}
	if got.Sessions[0].CellsStarted != workloadCells() {
		t.Errorf("/debug/sessions: the oldest session started %d cells, want %d", got.Sessions[0].CellsStarted, workloadCells())
	}
	for path, want := range map[string]int{"/debug/pprof/": 200, "/nothing-here": 404, "/metrics": 200} {
		if resp := get(t, admin+path, nil); resp.StatusCode != want {
			t.Errorf("GET %s on the admin listener: %d, want %d", path, resp.StatusCode, want)
		}
	}
}

// scrapeUntil scrapes /metrics until ready accepts what it read (the host counts a tool call or
// notification when its delivery ends, just after the cell's client saw it), and returns it.
func scrapeUntil(ctx context.Context, t *testing.T, admin string, ready func(map[string]*dto.MetricFamily) bool) map[string]*dto.MetricFamily {
	t.Helper()
	for {
		f := scrape(t, admin)
		if ready(f) {
			return f
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the metrics never settled: %v", ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// scrape reads /metrics in Prometheus' text format.
func scrape(t *testing.T, admin string) map[string]*dto.MetricFamily {
	t.Helper()
	resp := get(t, admin+"/metrics", nil)
	parser := expfmt.NewTextParser(model.UTF8Validation)
	f, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parsing /metrics: %v", err)
	}
	return f
}

// value is the value of the series of family name whose label is value (any series when label
// is ""): a counter's or gauge's value, a histogram's sample count. A missing series is -1.
func value(f map[string]*dto.MetricFamily, name, label, value string) float64 {
	family := f[name]
	if family == nil {
		return -1
	}
	for _, m := range family.GetMetric() {
		if label != "" && !hasLabel(m, label, value) {
			continue
		}
		switch {
		case m.GetCounter() != nil:
			return m.GetCounter().GetValue()
		case m.GetGauge() != nil:
			return m.GetGauge().GetValue()
		case m.GetHistogram() != nil:
			return float64(m.GetHistogram().GetSampleCount())
		}
	}
	return -1
}

func hasLabel(m *dto.Metric, name, value string) bool {
	for _, l := range m.GetLabel() {
		if l.GetName() == name && l.GetValue() == value {
			return true
		}
	}
	return false
}

// checkLogLines checks the host's JSON log: a line per session opened and closed, per cell
// finished with its outcome, per tool failure, per refusal, the drain's last line, and no
// line carrying a cell's data.
func checkLogLines(t *testing.T, stderr string) {
	t.Helper()
	count := map[string]int{}
	outcomes := map[string]int{}
	var last map[string]any
	sc := bufio.NewScanner(strings.NewReader(stderr))
	for sc.Scan() {
		var line map[string]any
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Errorf("a log line that is not JSON: %q", sc.Text())
			continue
		}
		msg, _ := line["msg"].(string)
		count[msg]++
		last = line
		switch msg {
		case "code-mode cell finished":
			outcomes[fmt.Sprint(line["outcome"])]++
			for _, field := range []string{"session", "cell", "duration_ms", "tool_calls", "bytes_in", "bytes_out", "peak_heap_bytes"} {
				if _, ok := line[field]; !ok {
					t.Errorf("a cell's line lacks %s: %v", field, line)
				}
			}
			// Every cell took a runtime, which holds at least its memory image.
			if peak, _ := line["peak_heap_bytes"].(float64); peak <= 0 {
				t.Errorf("a cell's peak heap: %v, want more than 0: %v", line["peak_heap_bytes"], line)
			}
			if line["outcome"] == "terminated" && line["reason"] != "terminate" {
				t.Errorf("the terminated cell's reason: %v, want terminate", line["reason"])
			}
		case "code-mode tool call failed":
			if r := line["result"]; r != "error" && r != "timeout" {
				t.Errorf("a tool failure's result: %v", r)
			}
		}
		for _, secret := range []string{"boom", "the client refuses", "n1", "hi"} {
			if strings.Contains(sc.Text(), `"`+secret+`"`) || strings.Contains(sc.Text(), secret+`\n`) {
				t.Errorf("a log line carries a cell's or tool's data (%q): %s", secret, sc.Text())
			}
		}
	}
	wantCounts := map[string]int{
		"code-mode session opened":   2,
		"code-mode session closed":   2,
		"code-mode cell finished":    workloadCells(),
		"code-mode tool call failed": 3,
		"code-mode request refused":  grpcconv.MaxOpenAttempts + 1,
		"code-mode host drained":     1,
	}
	for msg, want := range wantCounts {
		if count[msg] != want {
			t.Errorf("%d lines %q, want %d", count[msg], msg, want)
		}
	}
	wantOutcomes := map[string]int{"ok": 8, "script_error": 2, "terminated": 1, "out_of_memory": 1}
	for o, want := range wantOutcomes {
		if outcomes[o] != want {
			t.Errorf("%d cells finished %s in the log, want %d", outcomes[o], o, want)
		}
	}
	if last == nil || last["msg"] != "code-mode host drained" {
		t.Errorf("the last log line: %v, want the drain's", last)
	}
}

// checkNamedMetricsExist checks that every codemode_* metric the operations guide and the
// Grafana dashboard name is one the host exports, so neither drifts from the code.
func checkNamedMetricsExist(t *testing.T, families map[string]*dto.MetricFamily) {
	t.Helper()
	for _, file := range []string{"../../docs/operations.md", "../../deploy/grafana/codemode.json"} {
		text, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		names := regexp.MustCompile(`codemode_[a-z_]+`).FindAllString(string(text), -1)
		if len(names) == 0 {
			t.Errorf("%s names no metric", file)
		}
		for _, name := range names {
			base := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(name, "_bucket"), "_sum"), "_count")
			if families[base] == nil {
				t.Errorf("%s names %s, which the host does not export", file, name)
			}
		}
	}
}
