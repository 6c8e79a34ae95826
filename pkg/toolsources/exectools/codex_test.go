package exectools

import (
	"context"
	"encoding/base64"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	wire "github.com/codemodehq/codemode/gen/go/execserverwire"
	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/execserver/execrpc"
	"github.com/codemodehq/codemode/pkg/testenv"
)

// execServers are the two exec-servers the client is proved against: Codex's own
// (`codex exec-server --listen stdio`, the pinned release) and codemode's, run the same way.
func execServers(t *testing.T) map[string][]string {
	t.Helper()
	codex := testenv.FindCodex(t)
	// Codex keeps its state in CODEX_HOME; the spawned server inherits this one.
	t.Setenv("CODEX_HOME", t.TempDir())
	return map[string][]string{
		"codex":    {codex.Agent, "exec-server", "--listen", "stdio"},
		"codemode": {codemodeBin, "exec-server", "--listen", "stdio"},
	}
}

func spawnServer(t *testing.T, argv []string, dir string) *Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	c, err := Spawn(ctx, argv, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// wantRPCError requires an *execrpc.Error with Codex's code, text and (when not empty) data.
func wantRPCError(t *testing.T, what string, err error, code int64, text, data string) {
	t.Helper()
	var e *execrpc.Error
	if !errors.As(err, &e) || e.Code != code || e.Message != text || (data != "" && string(e.Data) != data) {
		t.Errorf("%s: %v (data %s), want %q (%d) %s", what, err, errData(err), text, code, data)
	}
}

func errData(err error) string {
	var e *execrpc.Error
	if errors.As(err, &e) {
		return string(e.Data)
	}
	return ""
}

// TestClientAgainstBothExecServers drives every client method against Codex's exec-server and
// codemode's, and requires the same answers, Codex's error texts included.
func TestClientAgainstBothExecServers(t *testing.T) {
	for name, argv := range execServers(t) {
		t.Run(name, func(t *testing.T) {
			dir := workspace(t)
			c := spawnServer(t, argv, dir)
			ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
			defer cancel()
			t.Run("initialize describes the environment", func(t *testing.T) {
				info := c.Info()
				if info == nil || info.Shell.Path == "" || info.Cwd == nil || info.ProviderId == nil || info.Capabilities == nil {
					t.Fatalf("environmentInfo %+v", info)
				}
				if name == "codemode" && (*info.Capabilities != (wire.EnvironmentCapabilities{}) || info.ExecutorVersion != "0.0.0") {
					t.Errorf("codemode claims %+v, version %s", *info.Capabilities, info.ExecutorVersion)
				}
			})
			t.Run("run", func(t *testing.T) {
				r, err := c.Run(ctx, []string{"sh", "-c", "printf out; printf err >&2; exit 3"}, dir)
				if err != nil || r != (Result{Stdout: "out", Stderr: "err", ExitCode: 3}) {
					t.Errorf("%+v, %v", r, err)
				}
			})
			t.Run("stdin, read and terminate", func(t *testing.T) { stdinReadTerminate(ctx, t, c, dir) })
			t.Run("interrupt", func(t *testing.T) {
				p, err := c.Start(ctx, StartOptions{Argv: []string{"sleep", "1000"}, Cwd: dir})
				if err != nil {
					t.Fatal(err)
				}
				if err := p.Interrupt(ctx); err != nil {
					t.Fatal(err)
				}
				if r, err := p.Wait(ctx); err != nil || r.ExitCode != 130 {
					t.Errorf("%+v, %v", r, err)
				}
			})
			t.Run("files", func(t *testing.T) {
				path := filepath.Join(dir, "written.txt")
				if err := c.WriteFile(ctx, path, []byte("data\n")); err != nil {
					t.Fatal(err)
				}
				if got, err := c.ReadFile(ctx, path); err != nil || string(got) != "data\n" {
					t.Errorf("read back %q, %v", got, err)
				}
				entries, err := c.ReadDirectory(ctx, dir)
				var names []string
				for _, e := range entries {
					names = append(names, e.FileName)
				}
				if err != nil || len(names) != 3 || !strings.Contains(","+strings.Join(names, ",")+",", ",written.txt,") {
					t.Errorf("listing %v, %v", names, err)
				}
			})
			t.Run("errors", func(t *testing.T) {
				_, err := c.ReadFile(ctx, filepath.Join(dir, "missing"))
				wantRPCError(t, "missing file", err, -32004, "No such file or directory (os error 2)", "")
				_, err = c.ReadFile(ctx, dir)
				wantRPCError(t, "directory", err, -32600, "path `"+dir+"` is not a file", "")
				_, err = c.Run(ctx, []string{filepath.Join(dir, "no-such-program")}, dir)
				wantRPCError(t, "missing program", err, -32603, "No such file or directory (os error 2)", `{"kind":"spawnNotFound"}`)
				_, err = c.Run(ctx, []string{filepath.Join(dir, "a.txt")}, dir)
				wantRPCError(t, "not executable", err, -32603, "Permission denied (os error 13)", `{"kind":"spawnPermissionDenied"}`)
				_, err = c.peer.Call(ctx, "bogus/x", nil)
				wantRPCError(t, "unknown method", err, -32601, "exec-server stub does not implement `bogus/x` yet", "")
				_, err = c.peer.Call(ctx, "initialize", []byte(`{"clientName":"again"}`))
				wantRPCError(t, "second initialize", err, -32600, "initialize may only be sent once per connection", "")
			})
		})
	}
}

// stdinReadTerminate pipes a line through cat, reads it back with process/read (the server
// waits for it), then terminates cat.
func stdinReadTerminate(ctx context.Context, t *testing.T, c *Client, dir string) {
	p, err := c.Start(ctx, StartOptions{Argv: []string{"cat"}, Cwd: dir, Stdin: true})
	if err != nil {
		t.Fatal(err)
	}
	if status, err := p.Write(ctx, []byte("hello\n")); err != nil || status != "accepted" {
		t.Fatalf("write %q, %v", status, err)
	}
	var got string
	after := uint64(0)
	for got != "hello\n" {
		r, err := p.Read(ctx, after, 600_000)
		if err != nil {
			t.Fatal(err)
		}
		for _, ch := range r.Chunks {
			got += string(mustBase64(t, ch.Chunk))
		}
		after = r.NextSeq - 1
		if r.Closed {
			t.Fatalf("cat closed after %q", got)
		}
	}
	if running, err := p.Terminate(ctx); err != nil || !running {
		t.Errorf("terminate: running %v, %v", running, err)
	}
	r, err := p.Wait(ctx)
	if err != nil || r.ExitCode != 137 || r.Stdout != "hello\n" {
		t.Errorf("%+v, %v", r, err)
	}
	_, err = p.Write(ctx, []byte("late"))
	wantRPCError(t, "write after the end", err, -32603, "failed to write to process stdin", "")
}

// TestCellUsesCodexExecServer: a cell lists, reads and runs through Codex's own exec-server.
func TestCellUsesCodexExecServer(t *testing.T) {
	argv := execServers(t)["codex"]
	dir := workspace(t)
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	c := spawnServer(t, argv, dir)
	ts, err := NewToolSet(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	s, defs := session(t, ts)
	yield := uint64(600_000)
	src := `
const list = await tools.fs__list({path: "."});
text(list.map((e) => e.name).join(","));
text(await tools.fs__read({path: "a.txt"}));
const g = await tools.exec__run({argv: ["grep", "-c", "needle", "a.txt", "b.txt"]});
text(g.stdout + "exit " + g.exitCode);
try { await tools.fs__read({path: "missing.txt"}); } catch (e) { text(String(e)); }
`
	cell, err := s.Execute(ctx, codemode.ExecuteRequest{ToolCallID: "call-1", Source: src, EnabledTools: defs, YieldTimeMs: &yield})
	if err != nil {
		t.Fatal(err)
	}
	r, err := cell.InitialResponse(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := "a.txt,b.txt|alpha needle one\nbeta\n|a.txt:1\nb.txt:1\nexit 0|No such file or directory (os error 2)|"
	if got := texts(r); r.Kind != codemode.Result || got != want {
		t.Errorf("%v: %q\nwant %q", r.Kind, got, want)
	}
}

func mustBase64(t *testing.T, s string) []byte {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
