package main_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/codemode/codemodetest"
	"github.com/codemodehq/codemode/pkg/grpc/grpcclient"
	"github.com/codemodehq/codemode/pkg/testenv"
	"github.com/codemodehq/codemode/pkg/v1/v1client"
)

// Scale-out: several codemode-host processes behind a real HAProxy (deploy/haproxy/haproxy.cfg,
// HTTP/2 end to end), sessions kept on their host by the x-code-mode-route stick table.

// haproxyConfig is the checked-in proxy configuration the tests run.
var haproxyConfig = filepath.Join("..", "..", "deploy", "haproxy", "haproxy.cfg")

// proxy is a running HAProxy in front of hosts.
type proxy struct {
	t testing.TB
	// url is the proxy's gRPC endpoint, wsURL its V1 WebSocket endpoint ("" without).
	url, wsURL string
	// admin is the path of the admin socket.
	admin  string
	stderr *strings.Builder
	mu     *sync.Mutex
}

// startHAProxy runs haproxy in the foreground with the checked-in configuration in front of the
// hosts' gRPC addresses (host:port). See startHAProxyFor.
func startHAProxy(t testing.TB, hosts ...string) *proxy {
	t.Helper()
	return startHAProxyFor(t, hosts, nil)
}

// startHAProxyFor runs haproxy with a gRPC frontend for grpcHosts and a V1 WebSocket frontend for
// wsHosts (each only when given). Listening sockets are bound here, on ephemeral ports, and handed
// over as descriptors ("fd@3", "fd@4"): connections queue in their backlog until haproxy accepts
// them, so nothing waits for the proxy to come up.
func startHAProxyFor(t testing.TB, grpcHosts, wsHosts []string) *proxy {
	t.Helper()
	testenv.External(t, "HAProxy")
	bin, err := exec.LookPath("haproxy")
	if err != nil {
		testenv.SkipUnlessCI(t, "haproxy is not installed (make setup-system installs it)")
	}
	dir, err := os.MkdirTemp("", "haproxy-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	p := &proxy{t: t, admin: filepath.Join(dir, "admin.sock"), stderr: &strings.Builder{}, mu: &sync.Mutex{}}
	cmd := exec.Command(bin, "-db", "-f", haproxyConfig)
	cmd.Env = append(os.Environ(), "CODEMODE_HAPROXY_ADMIN="+p.admin)
	// listen binds a socket for the proxy and returns its address.
	listen := func(bindVar string) string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		f, err := ln.(*net.TCPListener).File()
		if err != nil {
			t.Fatal(err)
		}
		_ = ln.Close() // the duplicate in f keeps the socket listening
		cmd.ExtraFiles = append(cmd.ExtraFiles, f)
		cmd.Env = append(cmd.Env, fmt.Sprintf("%s=fd@%d", bindVar, 2+len(cmd.ExtraFiles)))
		return ln.Addr().String()
	}
	if len(grpcHosts) > 0 {
		p.url = "http://" + listen("CODEMODE_PROXY_BIND")
		for i, h := range grpcHosts {
			cmd.Env = append(cmd.Env, fmt.Sprintf("CODEMODE_HOST_%d=%s", i+1, h))
		}
	}
	if len(wsHosts) > 0 {
		p.wsURL = "ws://" + listen("CODEMODE_PROXY_WS_BIND")
		for i, h := range wsHosts {
			cmd.Env = append(cmd.Env, fmt.Sprintf("CODEMODE_WS_HOST_%d=%s", i+1, h))
		}
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for _, f := range cmd.ExtraFiles {
		_ = f.Close()
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			p.mu.Lock()
			p.stderr.WriteString(sc.Text() + "\n")
			p.mu.Unlock()
		}
		_ = cmd.Wait()
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-done
		if t.Failed() {
			p.mu.Lock()
			t.Logf("haproxy stderr:\n%s", p.stderr.String())
			p.mu.Unlock()
		}
	})
	return p
}

// command sends one command to the admin socket and returns the answer.
func (p *proxy) command(cmd string) string {
	p.t.Helper()
	c, err := net.Dial("unix", p.admin)
	if err != nil {
		p.t.Fatalf("haproxy admin socket: %v", err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(waitLimit))
	if _, err := io.WriteString(c, cmd+"\n"); err != nil {
		p.t.Fatal(err)
	}
	out, err := io.ReadAll(c)
	if err != nil {
		p.t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// grpcHosts starts n codemode-host processes with gRPC listeners and route IDs host1…hostN and
// returns them with their host:port addresses.
func grpcHosts(t *testing.T, n int, extra ...string) ([]*hostProcess, []string) {
	t.Helper()
	var hosts []*hostProcess
	var addrs []string
	for i := range n {
		args := append([]string{"--listen", "grpc://127.0.0.1:0", "--route-id", fmt.Sprintf("host%d", i+1)}, extra...)
		h := startHost(t, nil, args...)
		hosts = append(hosts, h)
	}
	for _, h := range hosts {
		addrs = append(addrs, strings.TrimPrefix(h.addresses(1)[0], "http://"))
	}
	return hosts, addrs
}

// scaleDelegate is a session's tool provider: tool "add" answers {"sum": n+1}; while a gate is
// set, each call first reports its arrival and waits for the gate to open.
type scaleDelegate struct {
	codemode.DiscardReports
	mu     sync.Mutex
	closed map[codemode.CellID]int
	gate   chan struct{}
	arrive chan<- struct{}
}

func (d *scaleDelegate) InvokeTool(ctx context.Context, call codemode.NestedToolCall) (json.RawMessage, error) {
	var in struct{ N int }
	if err := json.Unmarshal(call.Input, &in); err != nil {
		return nil, err
	}
	d.mu.Lock()
	gate, arrive := d.gate, d.arrive
	d.mu.Unlock()
	if gate != nil {
		arrive <- struct{}{}
		select {
		case <-gate:
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
	}
	return json.Marshal(map[string]int{"sum": in.N + 1})
}

func (d *scaleDelegate) Notify(context.Context, string, codemode.CellID, string) error { return nil }

func (d *scaleDelegate) CellClosed(cell codemode.CellID) {
	d.mu.Lock()
	d.closed[cell]++
	d.mu.Unlock()
}

func (d *scaleDelegate) setGate(gate chan struct{}, arrive chan<- struct{}) {
	d.mu.Lock()
	d.gate, d.arrive = gate, arrive
	d.mu.Unlock()
}

// scaleSession is one session of the test with what the test expects of it.
type scaleSession struct {
	s        codemode.Session
	d        *scaleDelegate
	n        int
	started  []codemode.CellID
	next     int
	route    string
	gen      int
	lastCell codemode.CellID
}

// cell runs the session's next tool-calling cell and checks its result.
func (ss *scaleSession) cell(ctx context.Context) error {
	ss.next++
	src := fmt.Sprintf(`const r = await tools.add({n: %d}); text(String(r.sum));`, ss.n*1000+ss.next)
	// A yield time that never elapses: 16 sessions at a time on three hosts behind a proxy is
	// load enough for a minute's yield to come before the cell's end (ADR 0070).
	yield := uint64(3_600_000)
	c, err := ss.s.Execute(ctx, codemode.ExecuteRequest{ToolCallID: fmt.Sprintf("call-%d", ss.next), Source: src, YieldTimeMs: &yield,
		EnabledTools: []codemode.ToolDefinition{{Name: "add", ToolName: codemode.ToolName{Name: "add"}, Kind: codemode.ToolKindFunction}}})
	if err != nil {
		return err
	}
	ss.started = append(ss.started, c.CellID)
	ss.lastCell = c.CellID
	r, err := c.InitialResponse(ctx)
	if err != nil {
		return err
	}
	want := fmt.Sprint(ss.n*1000 + ss.next + 1)
	if r.Kind != codemode.Result || r.ErrorText != nil || len(r.ContentItems) != 1 || r.ContentItems[0] != (codemode.InputText{Text: want}) {
		return fmt.Errorf("cell %s: %+v, want the result %s", c.CellID, r, want)
	}
	ss.route, _ = grpcclient.Route(ss.s)
	return nil
}

// wantCellID says which ID the session's last cell must have had.
func (ss *scaleSession) wantCellID(t *testing.T, want string) {
	t.Helper()
	if string(ss.lastCell) != want {
		t.Errorf("session %d (route %s): cell %q, want %q", ss.n, ss.route, ss.lastCell, want)
	}
}

// each runs f for every session, 16 at a time, and returns the errors by session.
func each(sessions []*scaleSession, f func(*scaleSession) error) []error {
	errs := make([]error, len(sessions))
	sem := make(chan struct{}, 16)
	var wg sync.WaitGroup
	for i, ss := range sessions {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			errs[i] = f(ss)
		}()
	}
	wg.Wait()
	return errs
}

// 100 sessions through HAProxy on 3 real hosts, tool calls answered by the Go client. One host
// stops answering (frozen, taken out of the proxy, then killed): its sessions find their route
// lost on their next request, reset to g2:, and go on elsewhere. Another host crashes with tool
// calls in flight: its sessions lose those cells and continue in their next generation. The
// surviving host's sessions never notice anything, and every cell is reported closed once.
func TestScaleOutBehindHAProxy(t *testing.T) {
	hosts, addrs := grpcHosts(t, 3)
	px := startHAProxy(t, addrs...)
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()

	p, err := grpcclient.New(px.url, grpcclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	const n = 100
	sessions := make([]*scaleSession, n)
	for i := range sessions {
		sessions[i] = &scaleSession{d: &scaleDelegate{closed: map[codemode.CellID]int{}}, n: i, gen: 1}
	}

	// 1. Open every session through the proxy and run a first cell.
	errs := each(sessions, func(ss *scaleSession) error {
		s, err := p.CreateSession(ctx, codemode.FromBlocking(ss.d), codemode.SessionCellExecutionLimits{})
		if err != nil {
			return err
		}
		ss.s = s
		return ss.cell(ctx)
	})
	failOn(t, "first cells", errs)
	byRoute := map[string][]*scaleSession{}
	for _, ss := range sessions {
		ss.wantCellID(t, "1")
		byRoute[ss.route] = append(byRoute[ss.route], ss)
	}
	for i := range hosts {
		if len(byRoute[fmt.Sprintf("host%d", i+1)]) == 0 {
			t.Fatalf("no session on host%d: sessions by route %v", i+1, counts(byRoute))
		}
	}
	if len(byRoute) != 3 {
		t.Fatalf("sessions by route %v, want host1, host2 and host3 only", counts(byRoute))
	}
	t.Logf("sessions by host: %v", counts(byRoute))

	// 2. host2 stops answering: frozen (its streams stay open, nothing answers), and the proxy
	// takes it out (as its failing health checks would). The next cell of each of its sessions
	// reaches another host, which says the route was lost: the session resets, and the cell
	// after that runs as g2:1. Every other session runs its second cell undisturbed.
	hosts[1].signal(syscall.SIGSTOP)
	if out := px.command("set server codemode_hosts/host2 state maint"); out != "" {
		t.Fatalf("haproxy admin: %q", out)
	}
	errs = each(sessions, func(ss *scaleSession) error {
		if ss.route != "host2" {
			return ss.cell(ctx)
		}
		err := ss.cell(ctx)
		if !errors.Is(err, grpcclient.ErrSessionReset) || err.Error() != "Stored values and running cells were lost" {
			return fmt.Errorf("the first request after host2 was lost: %v, want the reset", err)
		}
		ss.gen = 2
		return ss.cell(ctx)
	})
	failOn(t, "after host2 was lost", errs)
	for _, ss := range sessions {
		switch {
		case ss.gen == 2:
			ss.wantCellID(t, "g2:1")
			if ss.route != "host1" && ss.route != "host3" {
				t.Errorf("session %d reset onto %q, want a surviving host", ss.n, ss.route)
			}
		default:
			ss.wantCellID(t, "2")
		}
	}
	hosts[1].signal(syscall.SIGKILL)
	hosts[1].exitCode()

	// 3. host3 crashes while every session waits in a tool call. Sessions on host1 complete
	// their cells; sessions on host3 lose theirs (an error, no hang), and their next cell runs in
	// the next generation, on host1.
	gate := make(chan struct{})
	arrived := make(chan struct{}, n)
	for _, ss := range sessions {
		ss.d.setGate(gate, arrived)
	}
	type outcome struct {
		ss  *scaleSession
		err error
	}
	outcomes := make(chan outcome, n)
	for _, ss := range sessions {
		go func() { outcomes <- outcome{ss, ss.cell(ctx)} }()
	}
	for range n {
		select {
		case <-arrived:
		case <-time.After(waitLimit):
			t.Fatal("not every session's tool call arrived")
		}
	}
	onHost3 := map[*scaleSession]bool{}
	for _, ss := range sessions {
		onHost3[ss] = ss.route == "host3"
	}
	hosts[2].signal(syscall.SIGKILL)
	hosts[2].exitCode()
	close(gate)
	for range n {
		var o outcome
		select {
		case o = <-outcomes:
		case <-time.After(waitLimit):
			t.Fatal("a cell hung after host3 crashed")
		}
		switch {
		case onHost3[o.ss] && o.err == nil:
			t.Errorf("session %d on the crashed host3 completed its cell %s", o.ss.n, o.ss.lastCell)
		case !onHost3[o.ss] && o.err != nil:
			t.Errorf("session %d on host1 failed: %v", o.ss.n, o.err)
		}
	}
	for _, ss := range sessions {
		ss.d.setGate(nil, nil)
	}
	errs = each(sessions, func(ss *scaleSession) error {
		if onHost3[ss] {
			ss.gen++
		}
		return ss.cell(ctx)
	})
	failOn(t, "after host3 crashed", errs)
	for _, ss := range sessions {
		if ss.route != "host1" {
			t.Errorf("session %d on %q after the crash, want host1", ss.n, ss.route)
		}
		if onHost3[ss] {
			ss.wantCellID(t, fmt.Sprintf("g%d:1", ss.gen))
		}
	}

	// 4. Shut every session down: every cell that started was reported closed exactly once.
	errs = each(sessions, func(ss *scaleSession) error { return ss.s.Shutdown(ctx) })
	failOn(t, "shutdown", errs)
	for _, ss := range sessions {
		ss.d.mu.Lock()
		for _, cell := range ss.started {
			if got := ss.d.closed[cell]; got != 1 {
				t.Errorf("session %d: cell %s closed %d times, want once", ss.n, cell, got)
			}
		}
		if len(ss.d.closed) != len(ss.started) {
			t.Errorf("session %d: closures %v for the started cells %v", ss.n, ss.d.closed, ss.started)
		}
		ss.d.mu.Unlock()
	}
}

// failOn fails the test with the first errors of a phase.
func failOn(t *testing.T, phase string, errs []error) {
	t.Helper()
	var msgs []string
	for i, err := range errs {
		if err != nil {
			msgs = append(msgs, fmt.Sprintf("session %d: %v", i, err))
		}
	}
	if len(msgs) > 0 {
		t.Fatalf("%s: %d sessions failed, e.g. %s", phase, len(msgs), strings.Join(msgs[:min(len(msgs), 3)], "; "))
	}
}

func counts(byRoute map[string][]*scaleSession) map[string]int {
	out := map[string]int{}
	for route, ss := range byRoute {
		out[route] = len(ss)
	}
	return out
}

// V1 over WebSocket through the same proxy: a connection is sticky by nature (its sessions live
// in it), and the dual-websocket-v1 bulk socket, a second HTTP request, reaches the host that
// issued its token because the proxy hashes the client's address. The whole conformance suite
// runs through HAProxy on single and dual connections; a bulk socket sent elsewhere would fail
// the pairing (404) and every dual case with it.
func TestV1WebSocketsBehindHAProxy(t *testing.T) {
	var hosts []*hostProcess
	for range 3 {
		hosts = append(hosts, startHost(t, nil, "--listen", "ws://127.0.0.1:0"))
	}
	var addrs []string
	for _, h := range hosts {
		addrs = append(addrs, strings.TrimPrefix(h.addresses(1)[0], "ws://"))
	}
	px := startHAProxyFor(t, nil, addrs)
	for _, dual := range []bool{false, true} {
		name := map[bool]string{false: "WebSocket", true: "DualWebSocket"}[dual]
		t.Run(name, func(t *testing.T) {
			codemodetest.Run(t, func(t *testing.T) codemode.SessionProvider {
				p := v1client.NewWebSocketProvider(px.wsURL, dual, v1client.Options{})
				t.Cleanup(func() { _ = p.Close() })
				return p
			})
		})
	}
}
