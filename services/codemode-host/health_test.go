package main_test

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/codemode/codemodetest"
	"github.com/codemodehq/codemode/pkg/grpc/grpcclient"
)

// TestProbesOnEveryListener checks /healthz and /readyz on the gRPC listener (HTTP/1.1 and
// HTTP/2), the V1 WebSocket listener and the admin listener; 404 for unknown paths while gRPC
// over HTTP/1.1 keeps its 505; and, with a token, open probes while the admin paths need it.
func TestProbesOnEveryListener(t *testing.T) {
	const token = "0123456789abcdef-probes"
	h := startHost(t, []string{"CODEMODE_HOST_TOKEN=" + token}, "--listen", "grpc://127.0.0.1:0", "--listen", "ws://127.0.0.1:0", "--admin-listen", "http://127.0.0.1:0")
	addrs := h.addresses(3)
	grpcURL, wsURL, admin := addrs[0], "http://"+strings.TrimPrefix(addrs[1], "ws://"), addrs[2]
	for _, base := range []string{grpcURL, wsURL, admin} {
		for _, path := range []string{"/healthz", "/readyz"} {
			if resp := get(t, base+path, nil); resp.StatusCode != http.StatusOK || body(resp) != "ok\n" {
				t.Errorf("GET %s%s without a token: %d, want 200 ok", base, path, resp.StatusCode)
			}
		}
	}
	req, _ := http.NewRequest(http.MethodGet, grpcURL+"/readyz", nil)
	if resp := do(t, h2cClient(), req); resp.ProtoMajor != 2 || resp.StatusCode != http.StatusOK {
		t.Errorf("GET /readyz over h2c: %s %d, want HTTP/2 200", resp.Proto, resp.StatusCode)
	}
	auth := http.Header{"Authorization": {"Bearer " + token}}
	if resp := get(t, grpcURL+"/nothing-here", auth); resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET /nothing-here on the gRPC listener over HTTP/1.1: %d, want 404", resp.StatusCode)
	}
	grpcOverHTTP1, _ := http.NewRequest(http.MethodPost, grpcURL+"/codex.code_mode.v1.CodeModeHost/OpenSession", strings.NewReader("\x00\x00\x00\x00\x00"))
	grpcOverHTTP1.Header.Set("Content-Type", "application/grpc")
	grpcOverHTTP1.Header.Set("Authorization", "Bearer "+token)
	if resp := do(t, http.DefaultClient, grpcOverHTTP1); resp.StatusCode != http.StatusHTTPVersionNotSupported {
		t.Errorf("gRPC over HTTP/1.1: %d, want 505 as Codex's host answers", resp.StatusCode)
	}
	for _, path := range []string{"/metrics", "/debug/sessions", "/debug/pprof/"} {
		if resp := get(t, admin+path, nil); resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("GET %s without the token: %d, want 401", path, resp.StatusCode)
		}
		if resp := get(t, admin+path, auth); resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s with the token: %d, want 200", path, resp.StatusCode)
		}
	}
	if resp := get(t, admin+"/nothing-here", auth); resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET /nothing-here on the admin listener: %d, want 404", resp.StatusCode)
	}
	// pprof and /debug/sessions are the admin listener's only.
	if resp := get(t, grpcURL+"/debug/pprof/", auth); resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET /debug/pprof/ on the gRPC listener: %d, want 404", resp.StatusCode)
	}
}

// TestAdminListenOffLoopbackNeedsAToken checks that an admin listener reachable from the network
// is refused without a token (exit status 2), as the other listeners are.
func TestAdminListenOffLoopbackNeedsAToken(t *testing.T) {
	h := startHost(t, nil, "--listen", "grpc://127.0.0.1:0", "--admin-listen", "http://0.0.0.0:0")
	if code := h.exitCode(); code != 2 {
		t.Fatalf("exit status %d, want 2", code)
	}
	if want := "--admin-listen http://0.0.0.0:0 is not a loopback address"; !strings.Contains(h.stderrText(), want) {
		t.Fatalf("stderr %q lacks %q", h.stderrText(), want)
	}
}

// TestHAProxyStopsSendingNewSessionsToAFullHost runs two hosts with --max-sessions 1 behind the
// checked-in HAProxy configuration. Once a session fills its host, that host's /readyz answers 503,
// HAProxy sets it to NOLB, and a new session goes to the other host without the full one ever
// seeing it (its refusal counter stays 0), while the live session goes on there: its cell, held
// in a tool call across the change, completes, and a next cell runs on the same host.
func TestHAProxyStopsSendingNewSessionsToAFullHost(t *testing.T) {
	var grpcAddrs, admins []string
	for i := range 2 {
		h := startHost(t, nil, "--listen", "grpc://127.0.0.1:0", "--route-id", fmt.Sprintf("host%d", i+1),
			"--admin-listen", "http://127.0.0.1:0", "--max-sessions", "1")
		addrs := h.addresses(2)
		grpcAddrs = append(grpcAddrs, strings.TrimPrefix(addrs[0], "http://"))
		admins = append(admins, addrs[1])
	}
	px := startHAProxy(t, grpcAddrs...)
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	px.awaitStatus(ctx, "host1", "UP")
	px.awaitStatus(ctx, "host2", "UP")

	p, err := grpcclient.New(px.url, grpcclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	release := make(chan struct{})
	rec := codemodetest.NewRecorder()
	rec.Handle("hold", func(ctx context.Context, call codemode.NestedToolCall) (json.RawMessage, error) {
		select {
		case <-release:
			return json.RawMessage(`"released"`), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})
	live, err := p.CreateSession(ctx, rec, codemode.SessionCellExecutionLimits{})
	if err != nil {
		t.Fatal(err)
	}
	defer live.Shutdown(ctx)
	full, _ := grpcclient.Route(live)
	fullAdmin, other := admins[0], "host2"
	if full == "host2" {
		fullAdmin, other = admins[1], "host1"
	}
	hold := codemode.ToolDefinition{Name: "hold", ToolName: codemode.ToolName{Name: "hold"}, Kind: codemode.ToolKindFunction}
	forever := uint64(3_600_000)
	held, err := live.Execute(ctx, codemode.ExecuteRequest{ToolCallID: "held", Source: `text(await tools.hold({}))`, YieldTimeMs: &forever, EnabledTools: []codemode.ToolDefinition{hold}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rec.AwaitToolCall(ctx, "hold", 1); err != nil {
		t.Fatal(err)
	}

	px.awaitStatus(ctx, full, "NOLB")
	fresh, err := p.CreateSession(ctx, codemodetest.NewRecorder(), codemode.SessionCellExecutionLimits{})
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Shutdown(ctx)
	if route, _ := grpcclient.Route(fresh); route != other {
		t.Errorf("the new session went to %q, want %q (the full host is NOLB)", route, other)
	}
	if got := value(scrape(t, fullAdmin), "codemode_refusals_total", "reason", "too_many_sessions"); got != 0 {
		t.Errorf("the full host refused %v sessions: the proxy sent it a new one", got)
	}

	close(release)
	r, err := held.InitialResponse(ctx)
	if text, ok := onlyText(r); err != nil || !ok || text != "released" {
		t.Fatalf("the held cell on the full host: %+v, %v", r, err)
	}
	next, err := live.Execute(ctx, codemode.ExecuteRequest{ToolCallID: "next", Source: `text("still here")`, YieldTimeMs: &forever})
	if err != nil {
		t.Fatal(err)
	}
	if r, err := next.InitialResponse(ctx); err != nil || r.ErrorText != nil {
		t.Fatalf("a next cell of the live session: %+v, %v", r, err)
	}
	if route, _ := grpcclient.Route(live); route != full {
		t.Errorf("the live session moved to %q, want it kept on %q", route, full)
	}
	if err := live.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	px.awaitStatus(ctx, full, "UP")
}

// awaitStatus waits until HAProxy reports server (codemode_hosts/server) in status (UP, NOLB,
// DOWN…), as its health checks decide.
func (p *proxy) awaitStatus(ctx context.Context, server, status string) {
	p.t.Helper()
	for {
		got := p.serverStatus(server)
		if strings.HasPrefix(got, status) {
			return
		}
		select {
		case <-ctx.Done():
			p.t.Fatalf("HAProxy never reported %s %s (last: %q)", server, status, got)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// serverStatus reads a server's status column from HAProxy's "show stat"; "" while the proxy
// has not opened its admin socket yet.
func (p *proxy) serverStatus(server string) string {
	p.t.Helper()
	c, err := net.Dial("unix", p.admin)
	if err != nil {
		return "" // still starting
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(waitLimit))
	if _, err := io.WriteString(c, "show stat\n"); err != nil {
		p.t.Fatal(err)
	}
	out, err := io.ReadAll(c)
	if err != nil {
		p.t.Fatal(err)
	}
	records, err := csv.NewReader(strings.NewReader(strings.TrimPrefix(string(out), "# "))).ReadAll()
	if err != nil || len(records) == 0 {
		p.t.Fatalf("show stat: %q: %v", out, err)
	}
	col := map[string]int{}
	for i, name := range records[0] {
		col[name] = i
	}
	for _, r := range records[1:] {
		if r[col["pxname"]] == "codemode_hosts" && r[col["svname"]] == server {
			return r[col["status"]]
		}
	}
	return ""
}

// TestReadyzSaysBusyAtMaxActiveCells checks --max-active-cells: with its one cell live the host
// answers /readyz 503 (busy), refuses a second cell with RESOURCE_EXHAUSTED (counted as
// too_many_cells), and is ready again once the cell ended.
func TestReadyzSaysBusyAtMaxActiveCells(t *testing.T) {
	h := startHost(t, nil, "--listen", "grpc://127.0.0.1:0", "--admin-listen", "http://127.0.0.1:0", "--max-active-cells", "1")
	addrs := h.addresses(2)
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	p, err := grpcclient.New(addrs[0], grpcclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	s, err := p.CreateSession(ctx, codemodetest.NewRecorder(), codemode.SessionCellExecutionLimits{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown(ctx)
	zero := uint64(0)
	loop, err := s.Execute(ctx, codemode.ExecuteRequest{ToolCallID: "loop", Source: `while (true) {}`, YieldTimeMs: &zero})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := loop.InitialResponse(ctx); err != nil {
		t.Fatal(err)
	}
	if resp := get(t, addrs[1]+"/readyz", nil); resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body(resp), "busy: 1 cells live, --max-active-cells is 1") {
		t.Errorf("/readyz with the one cell live: %d, want 503 busy", resp.StatusCode)
	}
	if _, err := s.Execute(ctx, codemode.ExecuteRequest{ToolCallID: "second", Source: `text(1)`}); err == nil || !strings.Contains(err.Error(), "too many active cells") {
		t.Errorf("a second cell: %v, want too many active cells", err)
	}
	if got := value(scrape(t, addrs[1]), "codemode_refusals_total", "reason", "too_many_cells"); got != 1 {
		t.Errorf("too_many_cells refusals: %v, want 1", got)
	}
	if _, err := s.Terminate(ctx, loop.CellID); err != nil {
		t.Fatal(err)
	}
	scrapeUntil(ctx, t, addrs[1], func(f map[string]*dto.MetricFamily) bool { return value(f, "codemode_cells_live", "", "") == 0 })
	if resp := get(t, addrs[1]+"/readyz", nil); resp.StatusCode != http.StatusOK {
		t.Errorf("/readyz once the cell ended: %d, want 200", resp.StatusCode)
	}
}
