package exectools

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/jsruntime"
	"github.com/codemodehq/codemode/pkg/toolsources/toolprovider"
)

// hangGuard bounds every wait; nothing waits for it to pass.
const hangGuard = 5 * time.Minute

// codemodeBin is the real `codemode` binary, built once by TestMain.
var codemodeBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "exectools-bin")
	if err != nil {
		panic(err)
	}
	codemodeBin = filepath.Join(dir, "codemode")
	build := exec.Command("go", "build", "-o", codemodeBin, "../../../services/codemode")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		panic("building codemode: " + err.Error())
	}
	code := m.Run()
	os.RemoveAll(dir)
	if code == 0 {
		if err := goleak.Find(); err != nil {
			os.Stderr.WriteString("goleak: " + err.Error() + "\n")
			code = 1
		}
	}
	os.Exit(code)
}

// workspace is a root with two files, for the exec-server's --root.
func workspace(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range map[string]string{"a.txt": "alpha needle one\nbeta\n", "b.txt": "gamma\nneedle two\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// spawnStdio connects to `codemode exec-server --listen stdio --root root`.
func spawnStdio(t *testing.T, root string) *ToolSet {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	c, err := Spawn(ctx, []string{codemodeBin, "exec-server", "--listen", "stdio", "--root", root}, root)
	if err != nil {
		t.Fatal(err)
	}
	ts, err := NewToolSet(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ts.Close() })
	return ts
}

// dialWebSocket starts `codemode exec-server --listen ws://127.0.0.1:0 --root root` (run in
// root) and connects to the address it prints.
func dialWebSocket(t *testing.T, root string) *ToolSet {
	t.Helper()
	cmd := exec.Command(codemodeBin, "exec-server", "--listen", "ws://127.0.0.1:0", "--root", root)
	cmd.Dir = root
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		if err := cmd.Wait(); err != nil {
			t.Errorf("exec-server after SIGTERM: %v", err)
		}
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "ws://127.0.0.1:") {
		t.Fatalf("exec-server printed %q: %v", line, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	c, err := DialURL(ctx, strings.TrimSpace(line), "")
	if err != nil {
		t.Fatal(err)
	}
	ts, err := NewToolSet(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ts.Close() })
	return ts
}

// session runs cells on the in-process runtime with the tool set's tools.
func session(t *testing.T, ts *ToolSet) (codemode.Session, []codemode.ToolDefinition) {
	t.Helper()
	delegate, err := toolprovider.NewDelegate(func(context.Context, string, codemode.CellID, string) error { return nil }, ts)
	if err != nil {
		t.Fatal(err)
	}
	provider, err := jsruntime.NewProvider(jsruntime.Options{PoolSize: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = provider.Close() })
	s, err := provider.CreateSession(context.Background(), codemode.FromBlocking(delegate), codemode.SessionCellExecutionLimits{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Shutdown(context.Background()) })
	return s, delegate.Definitions()
}

func texts(r codemode.RuntimeResponse) string {
	var b strings.Builder
	for _, it := range r.ContentItems {
		if x, ok := it.(codemode.InputText); ok {
			b.WriteString(x.Text)
			b.WriteString("|")
		}
	}
	return b.String()
}

const lsReadGrep = `
const ls = await tools.exec__run({argv: ["ls"]});
text(ls.stdout.trim().split("\n").join(","));
const a = await tools.fs__read({path: "a.txt"});
const b = await tools.fs__read({path: "b.txt"});
text(JSON.stringify([a, b]));
const g = await tools.exec__run({argv: ["grep", "-n", "needle", "a.txt", "b.txt"]});
text(g.stdout + "exit " + g.exitCode);
const list = await tools.fs__list({path: "."});
text(list.map((e) => e.name + (e.isFile ? "" : "/")).join(","));
try {
  await tools.fs__read({path: "/etc/passwd"});
} catch (e) {
  text(String(e));
}
`

// TestCellRunsLsReadsAndGrepsThroughAnExecServer: a cell runs ls, reads two files and greps
// them through a real `codemode exec-server` process, over stdio and over WebSocket; a path
// outside the root is refused.
func TestCellRunsLsReadsAndGrepsThroughAnExecServer(t *testing.T) {
	for name, connect := range map[string]func(*testing.T, string) *ToolSet{"stdio": spawnStdio, "websocket": dialWebSocket} {
		t.Run(name, func(t *testing.T) {
			root := workspace(t)
			s, defs := session(t, connect(t, root))
			ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
			defer cancel()
			yield := uint64(600_000)
			cell, err := s.Execute(ctx, codemode.ExecuteRequest{ToolCallID: "call-1", Source: lsReadGrep, EnabledTools: defs, YieldTimeMs: &yield})
			if err != nil {
				t.Fatal(err)
			}
			r, err := cell.InitialResponse(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if r.Kind != codemode.Result || r.ErrorText != nil {
				t.Fatalf("%v %v: %s", r.Kind, r.ErrorText, texts(r))
			}
			real, _ := filepath.EvalSymlinks(root)
			want := `a.txt,b.txt|["alpha needle one\nbeta\n","gamma\nneedle two\n"]|a.txt:1:alpha needle one` + "\n" +
				`b.txt:2:needle two` + "\n" + `exit 0|a.txt,b.txt|access denied: /etc/passwd is outside the exec-server root ` + real + `|`
			if got := texts(r); got != want {
				t.Errorf("cell output\n got %q\nwant %q", got, want)
			}
		})
	}
}

// TestTerminatingACellKillsItsProcess: a process that ignores SIGINT and SIGTERM, started by a
// cell, ends when the cell is terminated. The process holds a FIFO's write end, so the test sees
// it start (a line) and end (EOF) as events.
func TestTerminatingACellKillsItsProcess(t *testing.T) {
	root := workspace(t)
	fifo := filepath.Join(root, "events")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	s, defs := session(t, spawnStdio(t, root))
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	src := `const p = tools.exec__run({argv: ["sh", "-c", "trap '' INT TERM; exec 3>\"$0\"; echo started >&3; exec sleep 100000", "events"]});
yield_control();
await p;
text("not reached");`
	yield := uint64(600_000)
	cell, err := s.Execute(ctx, codemode.ExecuteRequest{ToolCallID: "call-2", Source: src, EnabledTools: defs, YieldTimeMs: &yield})
	if err != nil {
		t.Fatal(err)
	}
	if r, err := cell.InitialResponse(ctx); err != nil || r.Kind != codemode.Yielded {
		t.Fatalf("initial response %v %v", r.Kind, err)
	}
	events := make(chan string, 2)
	go func() {
		f, err := os.Open(fifo) // blocks until the process opens the write end
		if err != nil {
			events <- "open: " + err.Error()
			return
		}
		defer f.Close()
		line, _ := bufio.NewReader(f).ReadString('\n')
		events <- line
		_, err = io.Copy(io.Discard, f) // EOF: every writer, the process, is gone
		events <- "eof " + errString(err)
	}()
	next := func() string {
		select {
		case e := <-events:
			return e
		case <-time.After(hangGuard):
			t.Fatal("no event")
			return ""
		}
	}
	if e := next(); e != "started\n" {
		t.Fatalf("first event %q", e)
	}
	out, err := s.Terminate(ctx, cell.CellID)
	if err != nil || out.Response.Kind != codemode.Terminated {
		t.Fatalf("terminate: %+v %v", out, err)
	}
	if e := next(); e != "eof <nil>" {
		t.Fatalf("after terminate: %q", e)
	}
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// TestAManifestReachesAnExecServerWithAToken: `codemode exec-server --token` refuses a client
// without the token (401) and serves the manifest's client, which sends the token held by the
// variable its token_env names; an unset variable is an error that says so.
func TestAManifestReachesAnExecServerWithAToken(t *testing.T) {
	root := t.TempDir()
	const token = "0123456789abcdef0123"
	cmd := exec.Command(codemodeBin, "exec-server", "--listen", "ws://127.0.0.1:0", "--root", root)
	cmd.Env = append(os.Environ(), "CODEMODE_EXEC_SERVER_TOKEN="+token)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Signal(syscall.SIGTERM); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	url := strings.TrimSpace(line)
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	if _, err := DialURL(ctx, url, ""); err == nil || !strings.Contains(err.Error(), "401") {
		t.Fatalf("without the token: %v, want 401", err)
	}
	manifest := filepath.Join(t.TempDir(), "tools.json")
	if err := os.WriteFile(manifest, []byte(`{"exec_server": {"url": "`+url+`", "token_env": "EXEC_TOKEN_FOR_TEST"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := FromManifest(ctx, manifest); err == nil || err.Error() != "token_env names $EXEC_TOKEN_FOR_TEST, which is empty or unset" {
		t.Fatalf("with the variable unset: %v", err)
	}
	t.Setenv("EXEC_TOKEN_FOR_TEST", token)
	ts, err := FromManifest(ctx, manifest)
	if err != nil {
		t.Fatalf("with the token: %v", err)
	}
	_ = ts.Close()
}
