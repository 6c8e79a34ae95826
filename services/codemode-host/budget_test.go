package main_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"connectrpc.com/connect/v2"
	"connectrpc.com/connect/v2/connecthttp"

	pb "github.com/codemodehq/codemode/gen/go/pb/codex/code_mode/v1"
	"github.com/codemodehq/codemode/gen/go/pb/codex/code_mode/v1/code_modev1connect"
)

// Issue 39.2: the host's memory budget under the bombs that took a host to gigabytes. Each test
// starts a host with --memory-budget 512Mi (cells' heaps and stacks, their output and decompressed
// requests share 384 MiB of it), runs one kind of bomb from several sessions at once, and requires
// the host's resident memory to stay under 512 MiB throughout (sampled from /proc), the offending
// cells or requests to get the budget's errors, and a benign cell on another session its exact
// output.

const (
	// hostBudget is the --memory-budget of these tests, and the resident memory they allow.
	hostBudget = 512 << 20
	// spentText is what every budget error says: three quarters of hostBudget.
	spentText = "the code-mode host's memory budget of 402653184 bytes"
)

// startBudgetHost starts a host with the tests' budget on a gRPC listener and returns it, its
// URL and a client on a connection of its own.
func startBudgetHost(t *testing.T) (*hostProcess, string, code_modev1connect.CodeModeHostClient) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs memory bombs against a host")
	}
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("resident memory is read from /proc")
	}
	h := startHost(t, nil, "--listen", "grpc://127.0.0.1:0", "--memory-budget", "512Mi")
	url := h.addresses(1)[0]
	return h, url, newClient(url)
}

// newClient is a gRPC client on its own HTTP/2 connection.
func newClient(url string) code_modev1connect.CodeModeHostClient {
	return code_modev1connect.NewCodeModeHostClient(connect.NewClient(connecthttp.NewTransport(h2cClient(), url, connecthttp.WithGRPC(), connecthttp.WithReadMaxBytes(64<<20))))
}

// rssPeak samples a process's resident memory until stopped and keeps the largest.
type rssPeak struct {
	peak atomic.Int64
	stop chan struct{}
	done chan struct{}
}

// watchRSS starts sampling pid's VmRSS every millisecond. The interval paces the sampling only: no
// test waits on it, and a peak a slow machine misses can only make the reading lower, never fail a
// cell's result, which the tests assert from the host's answers.
func watchRSS(t *testing.T, pid int) *rssPeak {
	t.Helper()
	w := &rssPeak{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		for {
			if n := vmRSS(pid); n > w.peak.Load() {
				w.peak.Store(n)
			}
			select {
			case <-w.stop:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	t.Cleanup(func() { w.finish() })
	return w
}

// finish stops sampling and returns the peak.
func (w *rssPeak) finish() int64 {
	select {
	case <-w.stop:
	default:
		close(w.stop)
	}
	<-w.done
	return w.peak.Load()
}

// vmRSS is pid's resident memory in bytes (0 once it is gone).
func vmRSS(pid int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// checkPeak fails the test if the host's resident memory went past the budget.
func checkPeak(t *testing.T, what string, w *rssPeak) {
	t.Helper()
	peak := w.finish()
	t.Logf("%s: the host's resident memory peaked at %.0f MiB (budget %d MiB)", what, float64(peak)/(1<<20), hostBudget>>20)
	if peak >= hostBudget {
		t.Errorf("%s: the host's resident memory reached %d bytes, past its budget of %d", what, peak, hostBudget)
	}
}

// openSession opens a session with limits (nil for none) and returns its ID; it closes with ctx.
func openSession(ctx context.Context, host code_modev1connect.CodeModeHostClient, limits *pb.SessionCellExecutionLimits) (string, error) {
	lease, err := host.OpenSession(ctx, &pb.OpenSessionRequest{CellExecutionLimits: limits})
	if err != nil {
		return "", err
	}
	opened, err := lease.Receive()
	if err != nil {
		return "", err
	}
	return opened.GetOpened().GetSessionId(), nil
}

// budgetCell runs src as a cell of a new session on host and returns its texts and error text,
// following yields to the end.
func budgetCell(ctx context.Context, host code_modev1connect.CodeModeHostClient, limits *pb.SessionCellExecutionLimits, src string) (texts []string, errText string, err error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	session, err := openSession(ctx, host, limits)
	if err != nil {
		return nil, "", err
	}
	exec, err := host.Execute(ctx, &pb.ExecuteRequest{SessionId: session, ExecutionId: "run-1", ToolCallId: "call-1", Source: src})
	if err != nil {
		return nil, "", err
	}
	defer exec.Close()
	o, err := receiveOutcome(exec)
	if err != nil {
		return nil, "", err
	}
	return finalOutcome(ctx, host, session, o)
}

// receiveOutcome reads an Execute stream up to its outcome.
func receiveOutcome(exec code_modev1connect.CodeModeHostExecuteClientStream) (*pb.ExecutionOutcome, error) {
	for {
		ev, err := exec.Receive()
		if err != nil {
			return nil, err
		}
		if o := ev.GetOutcome(); o != nil {
			return o, nil
		}
	}
}

// finalOutcome follows a yielded outcome with Waits and returns the texts and error text of the
// cell's end.
func finalOutcome(ctx context.Context, host code_modev1connect.CodeModeHostClient, session string, o *pb.ExecutionOutcome) ([]string, string, error) {
	var texts []string
	for wait := 0; ; wait++ {
		for _, item := range o.GetContentItems() {
			texts = append(texts, item.GetText().GetText())
		}
		if o.GetYielded() == nil {
			break
		}
		resp, err := host.Wait(ctx, &pb.WaitRequest{SessionId: session, CellId: o.GetCellId(), WaitId: fmt.Sprintf("wait-%d", wait), YieldTimeMs: 60_000})
		if err != nil {
			return nil, "", err
		}
		o = resp.GetLiveCell()
	}
	if o.GetCompleted() == nil {
		return texts, "", fmt.Errorf("the cell did not complete: %v", o)
	}
	return texts, o.GetCompleted().GetErrorText(), nil
}

// checkBenign runs a small cell on a session of its own (and its own connection) and requires
// its exact output.
func checkBenign(ctx context.Context, t *testing.T, url, when string) {
	t.Helper()
	texts, errText, err := budgetCell(ctx, newClient(url), nil, `const a = []; for (let i = 0; i < 1000; i++) a.push({ i }); text(a.length * 6 * 7)`)
	if err != nil || errText != "" || len(texts) != 1 || texts[0] != "42000" {
		t.Errorf("a benign cell %s: %q, error %q, %v", when, texts, errText, err)
	}
}

// TestHeapBombsStayWithinTheMemoryBudget: six sessions that ask for a 4 GiB heap (lowered to the
// runtime's 512 MiB cap) run a heap bomb at once; before, they took a host to 2.99 GB. Each fails
// with the budget's text, the host stays under its budget, and benign cells on other sessions,
// during and after the bombs, give their exact output.
func TestHeapBombsStayWithinTheMemoryBudget(t *testing.T) {
	h, url, host := startBudgetHost(t)
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	checkBenign(ctx, t, url, "before the bombs")
	rss := watchRSS(t, h.cmd.Process.Pid)

	four := uint64(4 << 30)
	const bombs = 6
	errs := make([]string, bombs)
	var all sync.WaitGroup
	for i := range bombs {
		all.Go(func() {
			_, errText, err := budgetCell(ctx, host, &pb.SessionCellExecutionLimits{MaxHeapSizeBytes: &four},
				`const a = []; for (;;) a.push(new Uint8Array(1 << 20).fill(1));`)
			if err != nil {
				errText = err.Error()
			}
			errs[i] = errText
		})
	}
	checkBenign(ctx, t, url, "among the bombs")
	all.Wait()
	checkPeak(t, "6 heap bombs", rss)
	for i, e := range errs {
		if !strings.Contains(e, spentText+", shared by every cell, is spent; the cell could not grow its heap (its own limit is 536870912 bytes)") {
			t.Errorf("heap bomb %d ended with %q, want the budget's error", i, e)
		}
	}
	checkBenign(ctx, t, url, "after the bombs")
}

// TestStalledOutputsStayWithinTheMemoryBudget: sixteen sessions of a client that stops reading
// each run a cell that writes 48 MiB; before, the host held 3.2 GB for them. The host stays under
// its budget while the outcomes wait to be read; the cells the budget could not hold failed with
// its text, the others' 48 MiB arrive whole once the client reads; a benign cell on another
// session, meanwhile, gives its exact output.
func TestStalledOutputsStayWithinTheMemoryBudget(t *testing.T) {
	h, url, host := startBudgetHost(t)
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	rss := watchRSS(t, h.cmd.Process.Pid)

	const cells = 16
	streams := make([]code_modev1connect.CodeModeHostExecuteClientStream, cells)
	for i := range cells {
		session, err := openSession(ctx, host, nil)
		if err != nil {
			t.Fatal(err)
		}
		// The client reads nothing of the Execute stream until the end of the test.
		streams[i], err = host.Execute(ctx, &pb.ExecuteRequest{SessionId: session, ExecutionId: "run-1", ToolCallId: "call-1",
			Source: `text("x".repeat(48 << 20))`})
		if err != nil {
			t.Fatal(err)
		}
	}
	for range cells {
		h.awaitStderr("code-mode cell finished")
	}
	t.Logf("all 16 cells finished: resident %d MiB", vmRSS(h.cmd.Process.Pid)>>20)
	checkBenign(ctx, t, url, "while 16 outcomes wait to be read")
	checkPeak(t, "16 stalled 48 MiB outputs", rss)

	whole, refused := 0, 0
	for i, s := range streams {
		o, err := receiveOutcome(s)
		if err != nil {
			t.Fatalf("cell %d: %v", i, err)
		}
		c := o.GetCompleted()
		switch {
		case c.GetErrorText() == "" && len(o.GetContentItems()) == 1 && o.GetContentItems()[0].GetText().GetText() == strings.Repeat("x", 48<<20):
			whole++
		case strings.Contains(c.GetErrorText(), spentText):
			refused++
		default:
			t.Errorf("cell %d: error %.300q, %d items", i, c.GetErrorText(), len(o.GetContentItems()))
		}
		_ = s.Close()
	}
	t.Logf("%d cells delivered 48 MiB, %d were refused by the budget", whole, refused)
	if whole == 0 || refused == 0 {
		t.Errorf("%d cells delivered, %d refused: want some of each", whole, refused)
	}
}

// TestGzipBombsStayWithinTheMemoryBudget: sixteen requests at once, each a 1 MiB gzip of 1 GiB of
// zeros; before, each held ~250 MB on its way to its refusal and the host reached 2.16 GB. Each
// is refused RESOURCE_EXHAUSTED, the host stays under its budget, and a benign cell afterwards
// gives its exact output.
func TestGzipBombsStayWithinTheMemoryBudget(t *testing.T) {
	h, url, _ := startBudgetHost(t)
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	bomb := gzipBomb(t, 1<<30)
	t.Logf("the bomb: %d bytes of gzip, 1 GiB of zeros", len(bomb))
	rss := watchRSS(t, h.cmd.Process.Pid)

	const requests = 16
	answers := make([]string, requests)
	var all sync.WaitGroup
	for i := range requests {
		all.Go(func() { answers[i] = postCompressed(ctx, url, bomb) })
	}
	all.Wait()
	checkPeak(t, "16 gzip bombs", rss)
	for i, a := range answers {
		if !strings.Contains(a, "429") || !strings.Contains(a, "message is larger than configured max 67108864 once decompressed") {
			t.Errorf("gzip bomb %d: %s", i, a)
		}
	}
	checkBenign(ctx, t, url, "after the gzip bombs")
}

// gzipBomb is a gzip stream of n zero bytes.
func gzipBomb(t *testing.T, n int64) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 1<<20)
	for written := int64(0); written < n; written += int64(len(chunk)) {
		if _, err := w.Write(chunk); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// postCompressed posts body as a gzip-compressed Connect request (CloseSession, unary) and
// returns the status and the body, or the error.
func postCompressed(ctx context.Context, url string, body []byte) string {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url+"/codex.code_mode.v1.CodeModeHost/CloseSession", bytes.NewReader(body))
	if err != nil {
		return err.Error()
	}
	req.Header.Set("Content-Type", "application/proto")
	req.Header.Set("Content-Encoding", "gzip")
	resp, err := h2cClient().Do(req)
	if err != nil {
		return err.Error()
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil && !errors.Is(err, io.EOF) {
		return err.Error()
	}
	return fmt.Sprintf("%d %s", resp.StatusCode, b)
}

// overflowText starts the error text of a cell whose recursion met the stack limit (V8's text).
const overflowText = "RangeError: Maximum call stack size exceeded"

// TestRecursionBombsStayWithinTheMemoryBudget: eight sessions run unbounded recursion at once and
// a ninth catches the overflow twenty times in a loop. Each recursion holds wazero's native
// stacks, some 10 MB per 1,024 frames (docs/adr/0061-the-module-guards-its-stack.md); before they
// were charged to the budget, nine such cells took the host past it. Each bomb fails with V8's
// RangeError, the catching cell catches it every time and goes on, the host stays under its
// budget, and a benign cell on another session gives its exact output among and after them.
func TestRecursionBombsStayWithinTheMemoryBudget(t *testing.T) {
	h, url, host := startBudgetHost(t)
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	checkBenign(ctx, t, url, "before the bombs")
	rss := watchRSS(t, h.cmd.Process.Pid)

	const bombs = 8
	errs := make([]string, bombs)
	var caught []string
	var caughtErr string
	var all sync.WaitGroup
	for i := range bombs {
		all.Go(func() {
			_, errText, err := budgetCell(ctx, host, nil, `function f() { f() } f()`)
			if err != nil {
				errText = err.Error()
			}
			errs[i] = errText
		})
	}
	all.Go(func() {
		var err error
		caught, caughtErr, err = budgetCell(ctx, host, nil, `let n = 0;
			for (let i = 0; i < 20; i++) {
				try { (function g() { g() })() } catch (e) { if (e instanceof RangeError && e.message === "Maximum call stack size exceeded") n++ }
			}
			text(n)`)
		if err != nil {
			caughtErr = err.Error()
		}
	})
	checkBenign(ctx, t, url, "among the bombs")
	all.Wait()
	checkPeak(t, "8 recursion bombs and a cell catching 20 overflows", rss)
	// A bomb the budget stopped may have no frames: the stack hook that writes them (ADR 60) needs
	// a native stack the spent budget refuses too, and the error keeps its header (ADR 61).
	for i, e := range errs {
		if e != overflowText && !strings.HasPrefix(e, overflowText+"\n    at f (") {
			t.Errorf("recursion bomb %d ended with %.300q, want %q", i, e, overflowText)
		}
	}
	if caughtErr != "" || len(caught) != 1 || caught[0] != "20" {
		t.Errorf("the cell catching overflows: %q, error %.300q", caught, caughtErr)
	}
	checkBenign(ctx, t, url, "after the bombs")
}
