package main_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/grpc/grpcclient"
	"github.com/codemodehq/codemode/pkg/testenv"
	"github.com/codemodehq/codemode/pkg/v1/v1client"
)

// The client's W3C trace context in the traced workload: the spans of the Execute it sends must
// join this trace, under this span.
const (
	clientTraceID     = "0af7651916cd43dd8448eb211c80319c"
	clientSpanID      = "b7ad6b7169203331"
	clientTraceparent = "00-" + clientTraceID + "-" + clientSpanID + "-01"
)

// traceDifferencesFile lists how the spans of codemode-host and Codex's host differ, and why.
const traceDifferencesFile = "testdata/codex-trace-differences.json"

// TestOTelTraceExporterSpanTree gives codemode-host and Codex's host the same
// --otel-trace-exporter, a real OTLP/HTTP receiver on 127.0.0.1, and drives the same gRPC
// workload through each (a cell calling a tool and notifying under the client's traceparent, a
// cell that yields and is waited for, one that is terminated, the session closed). On
// codemode-host it checks the span tree — the Execute RPC a child of the client's span, the cell
// under it, the tool call and notification under the cell — and that the ToolCall's traceparent
// is the tool call's span in the client's trace. On both hosts the tool owner gets a traceparent
// of the client's trace. Then it compares the two hosts' span names, kinds and attribute keys
// against testdata/codex-trace-differences.json: a difference not listed fails, and so does a
// listed one that no longer differs.
func TestOTelTraceExporterSpanTree(t *testing.T) {
	ours := traceHost(t, bin, func(spans []otlpSpan) bool { return true })
	ours.checkTree(t)

	codex := testenv.FindCodex(t)
	// Codex's host exports on its 5 s timer and not at exit: wait for the batch that holds the
	// session's close.
	theirs := traceHost(t, codex.Host, func(spans []otlpSpan) bool {
		return slices.ContainsFunc(spans, func(s otlpSpan) bool { return s.Name == "code_mode_host.grpc.close_session" })
	})
	for _, tp := range theirs.toolTraceparents {
		if !strings.HasPrefix(tp, "00-"+clientTraceID+"-") {
			t.Errorf("Codex's host: ToolCall traceparent %q is not in the client's trace %s", tp, clientTraceID)
		}
	}
	compareSpans(t, ours.spans, theirs.spans)
}

// tracedRun is what one host exported for the workload, and the traceparents its tool owner got.
type tracedRun struct {
	spans            []otlpSpan
	toolTraceparents []string
}

// traceHost runs the workload on the host at path with --otel-trace-exporter, stops it with
// SIGTERM once done(spans received) holds (codemode-host exports the rest at exit) and returns
// what the receiver got.
func traceHost(t *testing.T, path string, done func([]otlpSpan) bool) tracedRun {
	t.Helper()
	rec := newOTLPReceiver(t)
	h := startProcess(t, path, nil, "--listen", "grpc://127.0.0.1:0", "--otel-trace-exporter", rec.url())
	d := &traceDelegate{}
	runTracedWorkload(t, h.addresses(1)[0], d)
	if path == bin {
		h.signal(syscall.SIGTERM)
		if code := h.exitCode(); code != 0 {
			t.Fatalf("codemode-host exited %d", code)
		}
	}
	return tracedRun{spans: rec.await(t, done), toolTraceparents: d.traceparents()}
}

// runTracedWorkload drives one session through the Go client.
func runTracedWorkload(t *testing.T, url string, d *traceDelegate) {
	t.Helper()
	p, err := grpcclient.New(url, grpcclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	s, err := p.CreateSession(ctx, codemode.FromBlocking(d), codemode.SessionCellExecutionLimits{})
	if err != nil {
		t.Fatal(err)
	}
	echo := []codemode.ToolDefinition{{Name: "echo", ToolName: codemode.ToolName{Name: "echo"}, Kind: codemode.ToolKindFunction}}
	// long never elapses during the test: the cells it is given answer at their end (ADR 0070).
	long, zero := uint64(3_600_000), uint64(0)

	r := initial(ctx, t, s, grpcclient.WithTraceparent(ctx, clientTraceparent), codemode.ExecuteRequest{ToolCallID: "call-tool", EnabledTools: echo, YieldTimeMs: &long,
		Source: `notify("working"); text(JSON.stringify(await tools.echo({v: 1})))`})
	if r.Kind != codemode.Result || r.ErrorText != nil {
		t.Fatalf("the tool cell: %+v", r)
	}

	r = initial(ctx, t, s, ctx, codemode.ExecuteRequest{ToolCallID: "call-wait", YieldTimeMs: &zero,
		Source: `text(1); await new Promise(r => setTimeout(r, 50)); text(2)`})
	if out, err := s.Wait(ctx, codemode.WaitRequest{CellID: r.CellID, YieldTimeMs: long}); err != nil || out.Response.Kind != codemode.Result {
		t.Fatalf("waiting for the yielded cell: %+v, %v", out, err)
	}

	r = initial(ctx, t, s, ctx, codemode.ExecuteRequest{ToolCallID: "call-terminate", YieldTimeMs: &zero, Source: `await new Promise(() => {})`})
	if out, err := s.Terminate(ctx, r.CellID); err != nil || out.Response.Kind != codemode.Terminated {
		t.Fatalf("terminating the cell: %+v, %v", out, err)
	}
	if err := s.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
}

// initial executes req (with execCtx, which may carry a traceparent) and returns its first
// response.
func initial(ctx context.Context, t *testing.T, s codemode.Session, execCtx context.Context, req codemode.ExecuteRequest) codemode.RuntimeResponse {
	t.Helper()
	started, err := s.Execute(execCtx, req)
	if err != nil {
		t.Fatalf("%s: %v", req.ToolCallID, err)
	}
	r, err := started.InitialResponse(ctx)
	if err != nil {
		t.Fatalf("%s: %v", req.ToolCallID, err)
	}
	return r
}

// traceDelegate answers every tool call and keeps the traceparent each ToolCall carried.
type traceDelegate struct {
	codemode.DiscardReports
	mu  sync.Mutex
	tps []string
}

func (d *traceDelegate) InvokeTool(ctx context.Context, call codemode.NestedToolCall) (json.RawMessage, error) {
	d.mu.Lock()
	d.tps = append(d.tps, grpcclient.Traceparent(ctx))
	d.mu.Unlock()
	return json.RawMessage(`{"ok":true}`), nil
}

func (d *traceDelegate) Notify(context.Context, string, codemode.CellID, string) error { return nil }
func (d *traceDelegate) CellClosed(codemode.CellID)                                    {}

func (d *traceDelegate) traceparents() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.tps)
}

// checkTree checks codemode-host's span tree for the workload.
func (r tracedRun) checkTree(t *testing.T) {
	t.Helper()
	exec := r.one(t, "code_mode_host.grpc.execute", "call_id", "call-tool")
	if exec.TraceID != clientTraceID || exec.ParentSpanID != clientSpanID {
		t.Errorf("the Execute span is in trace %s under %s, want the client's %s under %s", exec.TraceID, exec.ParentSpanID, clientTraceID, clientSpanID)
	}
	cell := r.one(t, "code_mode.cell", "call_id", "call-tool")
	tool := r.one(t, "execute_tool echo", "gen_ai.tool.name", "echo")
	note := r.one(t, "code_mode.notify", "call_id", "call-tool")
	for _, c := range []struct {
		child, parent otlpSpan
	}{{cell, exec}, {tool, cell}, {note, cell}} {
		if c.child.ParentSpanID != c.parent.SpanID || c.child.TraceID != clientTraceID {
			t.Errorf("%s is under %s in trace %s, want under %s (%s) in the client's trace", c.child.Name, c.child.ParentSpanID, c.child.TraceID, c.parent.SpanID, c.parent.Name)
		}
	}
	want := map[string]string{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "echo", "gen_ai.tool.call.id": "tool-1", "cell.id": cell.attr("cell.id")}
	for k, v := range want {
		if got := tool.attr(k); got != v {
			t.Errorf("the tool call span's %s = %q, want %q", k, got, v)
		}
	}
	if got := cell.attr("code_mode.cell.outcome"); got != "ok" {
		t.Errorf("the tool cell's outcome = %q, want ok", got)
	}
	if got := r.one(t, "code_mode.cell", "call_id", "call-terminate").attr("code_mode.cell.outcome"); got != "terminated" {
		t.Errorf("the terminated cell's outcome = %q, want terminated", got)
	}
	wantTP := "00-" + clientTraceID + "-" + tool.SpanID + "-01"
	if !slices.Equal(r.toolTraceparents, []string{wantTP}) {
		t.Errorf("the tool owner got traceparents %q, want [%s] (the tool call's span)", r.toolTraceparents, wantTP)
	}
}

// one returns the one span named name whose attribute key is value.
func (r tracedRun) one(t *testing.T, name, key, value string) otlpSpan {
	t.Helper()
	var found []otlpSpan
	for _, s := range r.spans {
		if s.Name == name && s.attr(key) == value {
			found = append(found, s)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d spans %s with %s=%s, want 1; got spans %v", len(found), name, key, value, spanNames(r.spans))
	}
	return found[0]
}

// traceDifference is an entry of testdata/codex-trace-differences.json: a span name only one host
// exports (Only "codex" or "codemode"), or a span both export whose kind, or one of Codex's
// attribute keys, codemode's lacks (Aspect "kind" or "attribute KEY").
type traceDifference struct {
	Span   string `json:"span"`
	Only   string `json:"only,omitempty"`
	Aspect string `json:"aspect,omitempty"`
	Reason string `json:"reason"`
}

func (d traceDifference) key() string {
	if d.Only != "" {
		return d.Span + ": only on " + d.Only
	}
	return d.Span + ": " + d.Aspect
}

// codexBookkeeping are the attributes Codex's tracing crate adds to every span: where in its
// source the span was made and how long its future was polled.
var codexBookkeeping = []string{"code.file.path", "code.module.name", "code.line.number", "thread.id", "thread.name", "target", "busy_ns", "idle_ns"}

// compareSpans checks every difference between the hosts' spans against the listed ones.
func compareSpans(t *testing.T, ours, theirs []otlpSpan) {
	t.Helper()
	found := map[string]bool{}
	our, their := spansByName(ours), spansByName(theirs)
	for name := range our {
		if _, ok := their[name]; !ok {
			found[name+": only on codemode"] = true
		}
	}
	for name, ts := range their {
		mine, ok := our[name]
		if !ok {
			found[name+": only on codex"] = true
			continue
		}
		if mine[0].Kind != ts[0].Kind {
			found[name+": kind"] = true
		}
		for _, k := range attributeKeys(ts) {
			if !slices.Contains(codexBookkeeping, k) && !slices.Contains(attributeKeys(mine), k) {
				found[name+": attribute "+k] = true
			}
		}
	}
	listed := loadTraceDifferences(t)
	for _, k := range sortedKeys(found) {
		if _, ok := listed[k]; !ok {
			t.Errorf("the hosts' spans differ and %s does not list it: %s", traceDifferencesFile, k)
		}
	}
	for _, k := range sortedKeys(listed) {
		if !found[k] {
			t.Errorf("the hosts' spans agree now: remove from %s: %s", traceDifferencesFile, k)
		}
	}
	if t.Failed() {
		t.Logf("codemode-host's spans: %v\nCodex's host's spans: %v", spanNames(ours), spanNames(theirs))
	}
}

func loadTraceDifferences(t *testing.T) map[string]traceDifference {
	t.Helper()
	data, err := os.ReadFile(traceDifferencesFile)
	if err != nil {
		t.Fatal(err)
	}
	var list []traceDifference
	if err := json.Unmarshal(data, &list); err != nil {
		t.Fatalf("%s: %v", traceDifferencesFile, err)
	}
	out := map[string]traceDifference{}
	for _, d := range list {
		if d.Reason == "" || (d.Only == "") == (d.Aspect == "") {
			t.Fatalf("%s: %+v needs a reason and one of only or aspect", traceDifferencesFile, d)
		}
		out[d.key()] = d
	}
	return out
}

func spansByName(spans []otlpSpan) map[string][]otlpSpan {
	out := map[string][]otlpSpan{}
	for _, s := range spans {
		out[s.Name] = append(out[s.Name], s)
	}
	return out
}

// attributeKeys are the keys any of spans has, sorted.
func attributeKeys(spans []otlpSpan) []string {
	var keys []string
	for _, s := range spans {
		for _, a := range s.Attributes {
			if !slices.Contains(keys, a.Key) {
				keys = append(keys, a.Key)
			}
		}
	}
	sort.Strings(keys)
	return keys
}

func spanNames(spans []otlpSpan) []string {
	var names []string
	for _, s := range spans {
		names = append(names, s.Name)
	}
	return names
}

// TestOTelTraceV1Operations runs a cell through V1 on a WebSocket listener with
// --otel-trace-exporter: the execute operation is a span of Codex's family, the root of its trace
// (V1 carries no trace context), with the cell under it. The host exports at its exit.
func TestOTelTraceV1Operations(t *testing.T) {
	rec := newOTLPReceiver(t)
	h := startHost(t, nil, "--listen", "ws://127.0.0.1:0", "--otel-trace-exporter", rec.url())
	p := v1client.NewWebSocketProvider(h.addresses(1)[0], false, v1client.Options{})
	defer p.Close()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	s, err := p.CreateSession(ctx, codemode.FromBlocking(&traceDelegate{}), codemode.SessionCellExecutionLimits{})
	if err != nil {
		t.Fatal(err)
	}
	if r := initial(ctx, t, s, ctx, codemode.ExecuteRequest{ToolCallID: "call-v1", Source: `text(1)`}); r.Kind != codemode.Result {
		t.Fatalf("the cell: %+v", r)
	}
	if err := s.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	h.signal(syscall.SIGTERM)
	if code := h.exitCode(); code != 0 {
		t.Fatalf("codemode-host exited %d", code)
	}
	run := tracedRun{spans: rec.await(t, func(spans []otlpSpan) bool { return hasSpan(spans, "code_mode_host.v1.shutdown_session") })}
	exec := run.one(t, "code_mode_host.v1.execute", "call_id", "call-v1")
	cell := run.one(t, "code_mode.cell", "call_id", "call-v1")
	if exec.ParentSpanID != "" || cell.ParentSpanID != exec.SpanID || cell.TraceID != exec.TraceID {
		t.Errorf("execute %s under %q, cell under %s: want the execute a root and the cell its child", exec.SpanID, exec.ParentSpanID, cell.ParentSpanID)
	}
	run.one(t, "code_mode_host.v1.open_session", "session.id", exec.attr("session.id"))
}

// TestOTelTraceListenStreamsBatches connects a real WebSocket client to codemode-host's
// --otel-trace-listen (its URL read from the log, as from Codex's host) and to Codex's, runs a
// cell on each and reads the stream: binary messages, each an OTLP JSON export request, that
// bring the cell's spans (codemode-host's at its exit, after which it closes the stream).
func TestOTelTraceListenStreamsBatches(t *testing.T) {
	t.Run("codemode-host", func(t *testing.T) {
		h := startHost(t, nil, "--listen", "grpc://127.0.0.1:0", "--otel-trace-listen", "ws://127.0.0.1:0")
		url := h.addresses(1)[0]
		stream := dialTraceStream(t, h)
		runOneCell(t, url)
		h.signal(syscall.SIGTERM)
		spans := stream.readUntil(t, func(spans []otlpSpan) bool { return hasSpan(spans, "code_mode.cell") })
		if !hasSpan(spans, "code_mode_host.grpc.execute") {
			t.Errorf("the stream brought %v, want the Execute span too", spanNames(spans))
		}
		if err := stream.readEnd(t); websocket.CloseStatus(err) != websocket.StatusGoingAway {
			t.Errorf("after the last batch the stream ended with %v, want a close with 1001 going away", err)
		}
		if code := h.exitCode(); code != 0 {
			t.Fatalf("codemode-host exited %d", code)
		}
	})
	t.Run("codex", func(t *testing.T) {
		codex := testenv.FindCodex(t)
		h := startProcess(t, codex.Host, nil, "--listen", "grpc://127.0.0.1:0", "--otel-trace-listen", "ws://127.0.0.1:0")
		url := h.addresses(1)[0]
		stream := dialTraceStream(t, h)
		runOneCell(t, url)
		stream.readUntil(t, func(spans []otlpSpan) bool { return hasSpan(spans, "code_mode_host.grpc.execute") })
	})
}

// TestOTelTraceFlagsExcludeEachOther: both hosts refuse the two trace flags together with exit
// status 2, and codemode-host says why.
func TestOTelTraceFlagsExcludeEachOther(t *testing.T) {
	args := []string{"--listen", "grpc://127.0.0.1:0", "--otel-trace-listen", "ws://127.0.0.1:0", "--otel-trace-exporter", "http://127.0.0.1:4318/v1/traces"}
	h := startHost(t, nil, args...)
	if code := h.exitCode(); code != 2 || !strings.Contains(h.stderrText(), "--otel-trace-listen cannot be used with --otel-trace-exporter") {
		t.Errorf("codemode-host: exit %d, stderr %q; want 2 and the reason", code, h.stderrText())
	}
	codex := testenv.FindCodex(t)
	if code := startProcess(t, codex.Host, nil, args...).exitCode(); code != 2 {
		t.Errorf("Codex's host exited %d, want 2", code)
	}
}

// runOneCell runs text(1) in a session of the host at url and closes the session.
func runOneCell(t *testing.T, url string) {
	t.Helper()
	p, err := grpcclient.New(url, grpcclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	s, err := p.CreateSession(ctx, codemode.FromBlocking(&traceDelegate{}), codemode.SessionCellExecutionLimits{})
	if err != nil {
		t.Fatal(err)
	}
	if r := initial(ctx, t, s, ctx, codemode.ExecuteRequest{ToolCallID: "call-1", Source: `text(1)`}); r.Kind != codemode.Result {
		t.Fatalf("the cell: %+v", r)
	}
	if err := s.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
}

// traceStream is a WebSocket client of a host's --otel-trace-listen.
type traceStream struct {
	conn *websocket.Conn
	ctx  context.Context
}

// dialTraceStream connects to the stream whose URL h logged (Codex's host: "OTEL trace websocket
// listening on ws://ADDR"; codemode-host: "OTEL trace websocket listening" url=ws://ADDR).
func dialTraceStream(t *testing.T, h *hostProcess) *traceStream {
	t.Helper()
	line := h.awaitStderrLine("naming the trace stream's URL", func(l string) bool {
		return strings.Contains(l, "OTEL trace websocket listening") && strings.Contains(l, "ws://")
	})
	url := strings.Fields(line[strings.Index(line, "ws://"):])[0]
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	t.Cleanup(cancel)
	conn, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		t.Fatalf("dialing %s: %v", url, err)
	}
	t.Cleanup(func() { conn.CloseNow() })
	conn.SetReadLimit(64 << 20)
	return &traceStream{conn: conn, ctx: ctx}
}

// readUntil reads batches until the spans received hold what done asks for, checking that each
// is a binary message with an OTLP JSON export request.
func (s *traceStream) readUntil(t *testing.T, done func([]otlpSpan) bool) []otlpSpan {
	t.Helper()
	var spans []otlpSpan
	for !done(spans) {
		typ, data, err := s.conn.Read(s.ctx)
		if err != nil {
			t.Fatalf("reading the trace stream after %v: %v", spanNames(spans), err)
		}
		if typ != websocket.MessageBinary {
			t.Fatalf("a %v message, want binary", typ)
		}
		spans = append(spans, decodeOTLP(t, data)...)
	}
	return spans
}

// readEnd reads to the end of the stream and returns how it ended.
func (s *traceStream) readEnd(t *testing.T) error {
	t.Helper()
	for {
		if _, _, err := s.conn.Read(s.ctx); err != nil {
			return err
		}
	}
}

func hasSpan(spans []otlpSpan, name string) bool {
	return slices.ContainsFunc(spans, func(s otlpSpan) bool { return s.Name == name })
}

// otlpReceiver is an OTLP/HTTP JSON traces endpoint on 127.0.0.1 that keeps every span posted.
type otlpReceiver struct {
	srv *httptest.Server
	mu  sync.Mutex
	// spans are the spans received so far; posted is signalled after each request.
	spans  []otlpSpan
	posted chan struct{}
	errs   []string
}

func newOTLPReceiver(t *testing.T) *otlpReceiver {
	r := &otlpReceiver{posted: make(chan struct{}, 1)}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *otlpReceiver) url() string { return r.srv.URL + "/v1/traces" }

func (r *otlpReceiver) serve(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(req.Body)
	r.mu.Lock()
	switch {
	case err != nil:
		r.errs = append(r.errs, err.Error())
	case req.Method != http.MethodPost || req.URL.Path != "/v1/traces" || req.Header.Get("Content-Type") != "application/json":
		r.errs = append(r.errs, fmt.Sprintf("%s %s with Content-Type %q, want POST /v1/traces with application/json", req.Method, req.URL.Path, req.Header.Get("Content-Type")))
	default:
		var batch otlpTraces
		if err := json.Unmarshal(body, &batch); err != nil {
			r.errs = append(r.errs, fmt.Sprintf("a batch that is not OTLP JSON: %v", err))
		}
		r.spans = append(r.spans, batch.spans()...)
	}
	r.mu.Unlock()
	select {
	case r.posted <- struct{}{}:
	default:
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte("{}"))
}

// await waits until the spans received hold what done asks for, and returns them.
func (r *otlpReceiver) await(t *testing.T, done func([]otlpSpan) bool) []otlpSpan {
	t.Helper()
	guard := time.After(waitLimit)
	for {
		r.mu.Lock()
		spans, errs := slices.Clone(r.spans), slices.Clone(r.errs)
		r.mu.Unlock()
		if len(errs) > 0 {
			t.Fatalf("the receiver got bad requests: %q", errs)
		}
		if len(spans) > 0 && done(spans) {
			return spans
		}
		select {
		case <-r.posted:
		case <-guard:
			t.Fatalf("the receiver did not get the spans it waits for; it got %v", spanNames(spans))
		}
	}
}

// otlpTraces is an OTLP JSON export request, as much of it as the tests read.
type otlpTraces struct {
	ResourceSpans []struct {
		ScopeSpans []struct {
			Spans []otlpSpan `json:"spans"`
		} `json:"scopeSpans"`
	} `json:"resourceSpans"`
}

func (b otlpTraces) spans() []otlpSpan {
	var out []otlpSpan
	for _, rs := range b.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			out = append(out, ss.Spans...)
		}
	}
	return out
}

func decodeOTLP(t *testing.T, data []byte) []otlpSpan {
	t.Helper()
	var batch otlpTraces
	if err := json.Unmarshal(data, &batch); err != nil {
		t.Fatalf("a batch that is not OTLP JSON: %v", err)
	}
	return batch.spans()
}

// otlpSpan is a span of OTLP JSON (IDs in hex).
type otlpSpan struct {
	TraceID      string `json:"traceId"`
	SpanID       string `json:"spanId"`
	ParentSpanID string `json:"parentSpanId"`
	Name         string `json:"name"`
	Kind         int    `json:"kind"`
	Attributes   []struct {
		Key   string                     `json:"key"`
		Value map[string]json.RawMessage `json:"value"`
	} `json:"attributes"`
}

// attr is the value of attribute key as text (a string's contents, or the JSON of another
// value), "" when the span lacks it.
func (s otlpSpan) attr(key string) string {
	for _, a := range s.Attributes {
		if a.Key != key {
			continue
		}
		for _, v := range a.Value {
			var str string
			if json.Unmarshal(v, &str) == nil {
				return str
			}
			return string(v)
		}
	}
	return ""
}

// BenchmarkTracingOnAndOff runs a cell that starts and ends, and one that calls a tool of the
// client's (a round trip over gRPC), on codemode-host without a trace flag ("off") and with
// --otel-trace-exporter to a receiver on 127.0.0.1 ("on"), in the same run, so that their ratio
// is what tracing costs a client.
func BenchmarkTracingOnAndOff(b *testing.B) {
	echo := []codemode.ToolDefinition{{Name: "echo", ToolName: codemode.ToolName{Name: "echo"}, Kind: codemode.ToolKindFunction}}
	cells := []struct {
		name string
		req  codemode.ExecuteRequest
	}{
		{"cell", codemode.ExecuteRequest{ToolCallID: "call", Source: `text(1)`}},
		{"tool-round-trip", codemode.ExecuteRequest{ToolCallID: "call", EnabledTools: echo, Source: `await tools.echo({a: 1})`}},
	}
	for _, c := range cells {
		for _, mode := range []string{"off", "on"} {
			b.Run(c.name+"/"+mode, func(b *testing.B) {
				args := []string{"--listen", "grpc://127.0.0.1:0", "--log-level", "warn"}
				if mode == "on" {
					receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
						_, _ = io.Copy(io.Discard, r.Body)
					}))
					defer receiver.Close()
					args = append(args, "--otel-trace-exporter", receiver.URL+"/v1/traces")
				}
				h := startProcess(b, bin, nil, args...)
				line, err := h.stdout.ReadString('\n')
				if err != nil {
					b.Fatal(err)
				}
				p, err := grpcclient.New(strings.TrimSpace(line), grpcclient.Options{})
				if err != nil {
					b.Fatal(err)
				}
				defer p.Close()
				ctx := context.Background()
				s, err := p.CreateSession(ctx, codemode.FromBlocking(&traceDelegate{}), codemode.SessionCellExecutionLimits{})
				if err != nil {
					b.Fatal(err)
				}
				defer s.Shutdown(ctx)
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
