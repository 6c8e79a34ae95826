package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemodehq/codemode/pkg/testenv"
)

// The tests here run the built codemode binary as `codemode mcp`, a separate process on real
// pipes and 127.0.0.1 sockets, driven by clients that share no code with the server: the MCP
// TypeScript SDK, the MCP conformance suite, and (for the fault case) the Go SDK's client.

// mcpWaitLimit bounds waits for events that must happen; it asserts no speed.
const mcpWaitLimit = 5 * time.Minute

var (
	builtOnce sync.Once
	builtBin  string
	builtErr  error
)

// TestMain removes the binary codemodeBinary built, if any.
func TestMain(m *testing.M) {
	code := m.Run()
	if builtBin != "" {
		_ = os.RemoveAll(filepath.Dir(builtBin))
	}
	os.Exit(code)
}

// codemodeBinary builds the codemode binary once per test process.
func codemodeBinary(t *testing.T) string {
	t.Helper()
	builtOnce.Do(func() {
		dir, err := os.MkdirTemp("", "codemode-mcp-test-")
		if err != nil {
			builtErr = err
			return
		}
		builtBin = filepath.Join(dir, "codemode")
		if out, err := exec.Command("go", "build", "-o", builtBin, ".").CombinedOutput(); err != nil {
			builtErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if builtErr != nil {
		t.Fatal(builtErr)
	}
	return builtBin
}

// nodeWith returns node and the repository's node_modules/.bin, skipping the test (failing it in
// CI) when node or the package that provides file under node_modules is missing.
func nodeWith(t *testing.T, file string) (node, bin string) {
	t.Helper()
	testenv.External(t, "node and the MCP TypeScript SDK")
	node, err := exec.LookPath("node")
	if err != nil {
		testenv.SkipUnlessCI(t, "node not on PATH")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "node_modules", file)); err != nil {
		testenv.SkipUnlessCI(t, "node_modules/"+file+" missing (run tools/setup.sh)")
	}
	return node, filepath.Join(root, "node_modules", ".bin")
}

// runNode runs node with args, failing the test with its output when it exits non-zero or
// hangs.
func runNode(t *testing.T, node string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), mcpWaitLimit)
	defer cancel()
	out, err := exec.CommandContext(ctx, node, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("node %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// startMCPListener starts `codemode mcp --listen 127.0.0.1:0` with extra args and returns the
// URL it printed. The process is interrupted at cleanup and must exit 0.
func startMCPListener(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(codemodeBinary(t), append([]string{"mcp", "--listen", "127.0.0.1:0"}, args...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case err := <-exited:
			if err != nil {
				t.Errorf("codemode mcp after SIGINT: %v\nstderr:\n%s", err, stderr.String())
			}
		case <-time.After(mcpWaitLimit):
			_ = cmd.Process.Kill()
			t.Errorf("codemode mcp did not exit after SIGINT")
		}
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	go func() {
		_, _ = io.Copy(io.Discard, stdout)
		exited <- cmd.Wait()
	}()
	if err != nil || !strings.HasPrefix(line, "http://127.0.0.1:") || !strings.HasSuffix(line, "/mcp\n") {
		t.Fatalf("codemode mcp printed %q (%v); stderr:\n%s", line, err, stderr.String())
	}
	return strings.TrimSpace(line)
}

// The MCP TypeScript SDK's client lists the tools (described for MCP clients), runs a cell that
// calls a tool three times with Promise.all (with progress), execs a cell that yields and waits
// on it, waits for a cell its session never started, and reads an error and an image result:
// over stdio (the client spawns codemode mcp) and streamable HTTP.
func TestMCPWithTheTypeScriptClient(t *testing.T) {
	node, _ := nodeWith(t, "@modelcontextprotocol/sdk/package.json")
	bin := codemodeBinary(t)
	script := filepath.Join("testdata", "mcp", "client.mjs")
	t.Run("stdio", func(t *testing.T) {
		if out := runNode(t, node, script, "stdio", bin, "mcp"); !strings.Contains(out, "stdio: 6 checks passed") {
			t.Errorf("client output:\n%s", out)
		}
	})
	t.Run("http", func(t *testing.T) {
		url := startMCPListener(t)
		if out := runNode(t, node, script, "http", url); !strings.Contains(out, "http: 6 checks passed") {
			t.Errorf("client output:\n%s", out)
		}
	})
}

// MCP both ways at once: the MCP TypeScript SDK's client drives `codemode mcp --tools M`, where
// M wraps an MCP server (examples/tools/mcp_notes, built here, over stdio): its cells call the
// wrapped server's tools three times with Promise.all, from a yielded cell followed by wait, and
// see an isError result as a rejected promise. Over stdio and streamable HTTP.
func TestMCPWrappedServerWithTheTypeScriptClient(t *testing.T) {
	node, _ := nodeWith(t, "@modelcontextprotocol/sdk/package.json")
	bin := codemodeBinary(t)
	dir := t.TempDir()
	notes := filepath.Join(dir, "mcp_notes")
	if out, err := exec.Command("go", "build", "-o", notes, "../../examples/tools/mcp_notes").CombinedOutput(); err != nil {
		t.Fatalf("go build mcp_notes: %v\n%s", err, out)
	}
	if err := os.Mkdir(filepath.Join(dir, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"a.txt": "alpha\n", "b.txt": "beta\n"} {
		if err := os.WriteFile(filepath.Join(dir, "data", name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	manifest := filepath.Join(dir, "tools.json")
	body := fmt.Sprintf(`{"mcp_servers": [{"name": "notes", "command": [%q]}]}`, notes)
	if err := os.WriteFile(manifest, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join("testdata", "mcp", "wrapped.mjs")
	t.Run("stdio", func(t *testing.T) {
		if out := runNode(t, node, script, "stdio", bin, "mcp", "--tools", manifest); !strings.Contains(out, "stdio: 4 checks passed") {
			t.Errorf("client output:\n%s", out)
		}
	})
	t.Run("http", func(t *testing.T) {
		url := startMCPListener(t, "--tools", manifest)
		if out := runNode(t, node, script, "http", url); !strings.Contains(out, "http: 4 checks passed") {
			t.Errorf("client output:\n%s", out)
		}
	})
}

// The MCP conformance suite's server scenarios against `codemode mcp --listen`: every scenario
// passes except those of testdata/mcp/conformance-baseline.yml (fixtures of the suite's
// reference server that a Code Mode server does not have), and each of those still fails.
func TestMCPConformanceSuite(t *testing.T) {
	node, bin := nodeWith(t, "@modelcontextprotocol/conformance/package.json")
	url := startMCPListener(t)
	baseline, err := filepath.Abs(filepath.Join("testdata", "mcp", "conformance-baseline.yml"))
	if err != nil {
		t.Fatal(err)
	}
	out := runNode(t, node, filepath.Join(bin, "conformance"), "server", "--url", url,
		"--expected-failures", baseline, "--output-dir", t.TempDir())
	if !strings.Contains(out, "Baseline check passed") {
		t.Errorf("conformance output:\n%s", out)
	}
}

// When the stdio client goes away (stdin closed) while a cell waits on a tool command, the
// cell is terminated, the command's process is killed, and codemode mcp exits 0.
func TestMCPClientGoneKillsTheRunningToolAndExits(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pid.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	// hang writes its process ID to the FIFO (exec keeps it), then sleeps far past the test.
	manifest := `{"tools": [{"name": "hang", "description": "Reports its PID, then sleeps.",
		"command": ["sh", "-c", "echo $$ > pid.fifo; exec sleep 86400"],
		"env": {"pass": ["PATH"]}, "timeout": "24h"}]}`
	if err := os.WriteFile(filepath.Join(dir, "tools.json"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	p := startMCPOverStdio(t, context.Background(), "--tools", filepath.Join(dir, "tools.json"))
	defer func() { _ = p.cmd.Process.Kill() }()
	cmd, stdin, stderr, client := p.cmd, p.stdin, p.stderr, p.client
	called := make(chan error, 1)
	go func() {
		_, err := client.CallTool(context.Background(), &mcp.CallToolParams{Name: "exec", Arguments: map[string]any{"code": "await tools.hang({})"}})
		called <- err
	}()
	pid := readPID(t, fifo) // blocks until the tool's process has started
	_ = stdin.Close()       // the client goes away: EOF on codemode's stdin
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("codemode mcp: %v\nstderr:\n%s", err, stderr.String())
		}
	case <-time.After(mcpWaitLimit):
		t.Fatalf("codemode mcp did not exit after stdin closed; stderr:\n%s", stderr.String())
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("the tool's process %d outlived codemode mcp (kill -0: %v)", pid, err)
	}
	if err := <-called; err == nil {
		t.Error("the pending exec returned no error after the connection closed")
	}
	_ = client.Close()
}

// mcpProcess is `codemode mcp` running as a child, with an MCP client on its stdio.
type mcpProcess struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr *strings.Builder
	client *mcp.ClientSession
}

// startMCPOverStdio starts `codemode mcp args...` and connects an MCP client to its stdio;
// stopping the process is the caller's.
func startMCPOverStdio(t *testing.T, ctx context.Context, args ...string) *mcpProcess {
	t.Helper()
	p := &mcpProcess{cmd: exec.Command(codemodeBinary(t), append([]string{"mcp"}, args...)...), stderr: &strings.Builder{}}
	p.cmd.Stderr = p.stderr
	stdin, err := p.cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p.stdin = stdin
	p.client, err = mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).
		Connect(ctx, &mcp.IOTransport{Reader: stdout, Writer: stdin}, nil)
	if err != nil {
		_ = p.cmd.Process.Kill()
		t.Fatalf("connect: %v\nstderr:\n%s", err, p.stderr.String())
	}
	return p
}

// readPID reads a process ID from the FIFO at path, opening it (which waits for a writer) in a
// goroutine so that a tool that never starts fails the test instead of hanging it.
func readPID(t *testing.T, path string) int {
	t.Helper()
	type read struct {
		pid int
		err error
	}
	done := make(chan read, 1)
	go func() {
		b, err := os.ReadFile(path)
		if err != nil {
			done <- read{err: err}
			return
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		done <- read{pid, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			t.Fatal(r.err)
		}
		return r.pid
	case <-time.After(mcpWaitLimit):
		t.Fatal("the tool never wrote its PID")
	}
	return 0
}
