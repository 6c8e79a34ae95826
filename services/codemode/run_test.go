package main

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// runCLI runs `codemode run [flags] -` with source on stdin.
func runCLI(t *testing.T, source string, flags ...string) cli {
	t.Helper()
	return runArgs(t, source, append(append([]string{"run"}, flags...), "-")...)
}

// runToEnd is runCLI for a cell the test expects to end: its yield time never elapses during a
// test, so the printed block is the cell's end, never a yield at the 10 s default that a loaded
// machine can reach first (docs/adr/0070-the-gate-under-load.md).
func runToEnd(t *testing.T, source string, flags ...string) cli {
	t.Helper()
	return runCLI(t, source, append([]string{"--yield", "600000"}, flags...)...)
}

func TestRunPrintsWhatTheModelSees(t *testing.T) {
	got := runToEnd(t, `text("hi"); text({a: 1});`)
	want := "Script completed\nWall time X.X seconds\nOutput:\nhi\n{\"a\":1}\n"
	if got.status != exitOK || normalize(got.stdout) != want {
		t.Fatalf("exit status %d, output:\n%q\nwant:\n%q", got.status, normalize(got.stdout), want)
	}
}

func TestRunReportsScriptErrorsWithExitStatus1(t *testing.T) {
	got := runToEnd(t, `text("before"); throw "boom";`)
	want := "Script failed\nWall time X.X seconds\nOutput:\nbefore\nScript error:\nboom\n"
	if got.status != exitFailed || normalize(got.stdout) != want {
		t.Fatalf("exit status %d, output:\n%q\nwant:\n%q", got.status, normalize(got.stdout), want)
	}
}

func TestRunCallsTheDemoToolsAndPrintsNotifications(t *testing.T) {
	got := runToEnd(t, `const r = await tools.echo({n: 2}); text(r.n); text(await tools.upper("abc")); notify("note");`)
	if got.status != exitOK || normalize(got.stdout) != "Script completed\nWall time X.X seconds\nOutput:\n2\nABC\n" {
		t.Fatalf("exit status %d, output %q", got.status, got.stdout)
	}
	if got.stderr != "notify (cell 1): note\n" {
		t.Fatalf("stderr %q", got.stderr)
	}
}

// A pragma's yield time applies (0: an empty yield before the script runs) and --wait waits for
// the rest; a cell that yields and is not waited on exits with status 3 and says why on stderr.
func TestRunHonoursThePragmaAndWaitsOnYieldedCells(t *testing.T) {
	src := "// @exec: {\"yield_time_ms\": 0}\ntext(\"first\"); text(\"second\");"
	got := runCLI(t, src, "--wait")
	want := "Script running with cell ID 1\nWall time X.X seconds\nOutput:\n" +
		"Script completed\nWall time X.X seconds\nOutput:\nfirst\nsecond\n"
	if got.status != exitOK || normalize(got.stdout) != want {
		t.Fatalf("exit status %d, output %q\nwant %q", got.status, normalize(got.stdout), want)
	}
	got = runCLI(t, src)
	if got.status != exitStillRunning || normalize(got.stdout) != "Script running with cell ID 1\nWall time X.X seconds\nOutput:\n" ||
		got.stderr != "codemode run: cell 1 is still running; codemode stops it on exit (--wait waits for it to finish)\n" {
		t.Fatalf("pragma yield_time_ms 0: exit status %d, stdout %q, stderr %q", got.status, got.stdout, got.stderr)
	}
}

func TestRunRejectsABadPragmaWithCodexText(t *testing.T) {
	got := runCLI(t, "// @exec: {\"foo\": 1}\ntext(1)")
	if got.status != exitFailed || got.stdout != "exec pragma only supports `yield_time_ms` and `max_output_tokens`; got `foo`\n" {
		t.Fatalf("exit status %d, output %q", got.status, got.stdout)
	}
}

func TestRunJSONPrintsRawContentItems(t *testing.T) {
	got := runToEnd(t, `text("x"); image("data:image/png;base64,AAAA")`, "--json")
	want := `[{"type":"input_text","text":"x"},{"type":"input_image","image_url":"data:image/png;base64,AAAA","detail":"high"}]` + "\n"
	if got.status != exitOK || got.stdout != want {
		t.Fatalf("exit status %d, output %q", got.status, got.stdout)
	}
}

// --repeat runs the file as successive cells of one session: stored values carry over.
func TestRunRepeatSharesStoredValuesAcrossCells(t *testing.T) {
	got := runToEnd(t, `const n = (load("n") ?? 0) + 1; store("n", n); text(n);`, "--repeat", "3")
	one := func(n string) string { return "Script completed\nWall time X.X seconds\nOutput:\n" + n + "\n" }
	if got.status != exitOK || normalize(got.stdout) != one("1")+one("2")+one("3") {
		t.Fatalf("exit status %d, output %q", got.status, normalize(got.stdout))
	}
	got = runToEnd(t, `const n = (load("n") ?? 0) + 1; store("n", n); if (n === 2) throw "second"; text(n);`, "--repeat", "3")
	if got.status != exitFailed || normalize(got.stdout) != one("1")+"Script failed\nWall time X.X seconds\nOutput:\nScript error:\nsecond\n" {
		t.Fatalf("a failing cell stops the repetition: exit status %d, output %q", got.status, normalize(got.stdout))
	}
}

func TestRunReportsAnUnreadableFile(t *testing.T) {
	got := runArgs(t, "", "run", "testdata/run/no-such-file.js")
	if got.status != exitUsage || got.stderr != "codemode run: reading the source: open testdata/run/no-such-file.js: no such file or directory\n" {
		t.Fatalf("exit status %d, stderr %q", got.status, got.stderr)
	}
}

// --wait prints the "Script running" block once, then only new output as the cell produces it
// (a wait that saw nothing prints nothing), then the final block when the state changes. The
// cell yields at once and the waits yield every 10 ms while it sleeps, so many waits see no
// output; where the scheduler puts "a" and "b" (a wait's output, or the final block's) is
// not asserted, only that each is printed once, in order, and no header is repeated.
func TestRunWaitPrintsOnlyNewOutput(t *testing.T) {
	src := "// @exec: {\"yield_time_ms\": 0}\n" +
		`const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
		await sleep(200); text("a"); await sleep(200); text("b"); await sleep(200);`
	got := runCLI(t, src, "--wait", "--yield", "10")
	running := "Script running with cell ID 1\nWall time X.X seconds\nOutput:\n"
	completed := "Script completed\nWall time X.X seconds\nOutput:\n"
	var valid []string
	for _, split := range []int{0, 2, 4} { // how much of "a\nb\n" comes before the final block
		valid = append(valid, running+"a\nb\n"[:split]+completed+"a\nb\n"[split:])
	}
	if got.status != exitOK || !slices.Contains(valid, normalize(got.stdout)) {
		t.Fatalf("exit status %d, output %q\nwant one of %q", got.status, normalize(got.stdout), valid)
	}
}

// With --json, --wait prints a line for the first and the last response, and one for each
// wait in between that saw output: never an empty [] while the cell runs.
func TestRunWaitJSONSkipsEmptyWaits(t *testing.T) {
	src := "// @exec: {\"yield_time_ms\": 0}\n" +
		`const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
		await sleep(200); text("a"); await sleep(200);`
	got := runCLI(t, src, "--wait", "--yield", "10", "--json")
	lines := strings.Split(strings.TrimSuffix(got.stdout, "\n"), "\n")
	a := `[{"type":"input_text","text":"a"}]`
	valid := [][]string{{"[]", a, "[]"}, {"[]", a}}
	if got.status != exitOK || !slices.ContainsFunc(valid, func(v []string) bool { return slices.Equal(v, lines) }) {
		t.Fatalf("exit status %d, lines %q\nwant one of %q", got.status, lines, valid)
	}
}

// runningHost is a host process (`codemode host`, the program codemode-host is) listening on
// gRPC and on a V1 WebSocket, with hostManifestFile's tool host_echo, which only it has.
type runningHost struct {
	grpcURL, wsURL string
}

// startRunningHost starts the host and reads the two URLs it prints; it is stopped (SIGTERM)
// when the test ends.
func startRunningHost(t *testing.T) runningHost {
	t.Helper()
	cmd := exec.Command(codemodeBinary(t), "host", "--tools", hostManifestFile(t),
		"--listen", "grpc://127.0.0.1:0", "--listen", "ws://127.0.0.1:0", "--log-level", "warn")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("host stderr:\n%s", stderr.String())
		}
	})
	lines := bufio.NewScanner(stdout)
	var urls []string
	for len(urls) < 2 && lines.Scan() {
		urls = append(urls, lines.Text())
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	if len(urls) < 2 || !strings.HasPrefix(urls[0], "http://") || !strings.HasPrefix(urls[1], "ws://") {
		t.Fatalf("the host printed %q, want its gRPC and WebSocket URLs", urls)
	}
	return runningHost{grpcURL: urls[0], wsURL: urls[1]}
}

// cliManifestFile writes a manifest with one tool, cli_echo (cat), which only the CLI has.
func cliManifestFile(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tools.json")
	manifest := `{"tools": [{"name": "cli_echo", "description": "Returns its input.", "command": ["cat"]}]}`
	if err := os.WriteFile(path, []byte(manifest), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// --host runs the cell on a running host, over gRPC (the URL the host prints, or grpc://) and
// over the V1 WebSocket. The cell calls host_echo, which only the host has (so the host ran
// it), and cli_echo from the CLI's --tools, which only the CLI has (so the host called back to
// the CLI, the client's delegate, for it); a notify() reaches the CLI's stderr.
func TestRunOnARunningHost(t *testing.T) {
	host := startRunningHost(t)
	src := `text((await tools.host_echo({word: "ran on the host"})).word);
		text((await tools.cli_echo({word: "served by the CLI"})).word);
		notify("from the host");`
	want := "Script completed\nWall time X.X seconds\nOutput:\nran on the host\nserved by the CLI\n"
	urls := []string{host.grpcURL, "grpc://" + strings.TrimPrefix(host.grpcURL, "http://"), host.wsURL}
	for _, url := range urls {
		got := runToEnd(t, src, "--host", url, "--tools", cliManifestFile(t))
		if got.status != exitOK || normalize(got.stdout) != want || got.stderr != "notify (cell 1): from the host\n" {
			t.Errorf("--host %s: exit status %d, stdout %q, stderr %q; want %q", url, got.status, normalize(got.stdout), got.stderr, want)
		}
	}
}

// signalWriter is a stdout that closes seen once what was written contains want.
type signalWriter struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	want string
	seen chan struct{}
}

// Write implements io.Writer.
func (w *signalWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	had := strings.Contains(w.buf.String(), w.want)
	w.buf.Write(p)
	if !had && strings.Contains(w.buf.String(), w.want) {
		close(w.seen)
	}
	return len(p), nil
}

func (w *signalWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// With --host and --wait, a cell that yields is followed on the host, and Ctrl-C terminates it
// there: the output is the host's "Script terminated", exit status 130.
func TestRunOnARunningHostInterrupted(t *testing.T) {
	host := startRunningHost(t)
	src := `text("started"); yield_control(); await new Promise((r) => setTimeout(r, 600000));`
	stdout := &signalWriter{want: "started\n", seen: make(chan struct{})}
	interrupts := make(chan os.Signal, 1)
	exited := make(chan int, 1)
	var stderr bytes.Buffer
	go func() {
		exited <- runWith([]string{"--host", host.grpcURL, "--wait", "-"}, strings.NewReader(src), stdout, &stderr, interrupts)
	}()
	select {
	case <-stdout.seen:
	case status := <-exited:
		t.Fatalf("exited with %d before the cell yielded: %q %q", status, stdout.String(), stderr.String())
	}
	interrupts <- os.Interrupt
	status := <-exited
	want := "Script running with cell ID 1\nWall time X.X seconds\nOutput:\nstarted\nScript terminated\nWall time X.X seconds\nOutput:\n"
	if status != exitInterrupted || normalize(stdout.String()) != want {
		t.Fatalf("exit status %d, stdout %q (stderr %q), want 130 and %q", status, normalize(stdout.String()), stderr.String(), want)
	}
}

// A --host URL no client speaks, or one the gRPC client refuses, is a wrong invocation, said
// before anything runs; a host that does not answer fails the run (status 1) and says where.
func TestRunHostURLErrors(t *testing.T) {
	for url, want := range map[string]string{
		"ftp://127.0.0.1:1":          "codemode run: --host ftp://127.0.0.1:1: use http://ADDR or grpc://ADDR (gRPC), unix:PATH (gRPC on a Unix socket) or ws://ADDR (V1 WebSocket), as codemode-host prints its listeners\n",
		"http://127.0.0.1:1/a/path":  "codemode run: --host http://127.0.0.1:1/a/path: gRPC code-mode endpoint must not include a path, query or fragment\n",
		"http://user:pw@127.0.0.1:1": "codemode run: --host http://user:pw@127.0.0.1:1: gRPC code-mode endpoint must not include credentials\n",
	} {
		got := runCLI(t, `text(1)`, "--host", url)
		if got.status != exitUsage || !strings.HasPrefix(got.stderr, want) {
			t.Errorf("--host %s: exit status %d, stderr %q; want 2 and %q", url, got.status, got.stderr, want)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String()
	_ = ln.Close()
	got := runCLI(t, `text(1)`, "--host", closed)
	if got.status != exitFailed || !strings.HasPrefix(got.stderr, "codemode run: opening a session on "+closed+": ") ||
		!strings.HasSuffix(got.stderr, "(is a Code Mode host listening there?)\n") {
		t.Errorf("--host %s (nothing listening): exit status %d, stderr %q", closed, got.status, got.stderr)
	}
}
