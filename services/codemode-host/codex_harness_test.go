package main_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/codemodehq/codemode/pkg/testenv"
	"github.com/codemodehq/codemode/pkg/testenv/fakemodel"
)

// The real Codex agent (the pinned @openai/codex) driven offline by a scripted model, on Codex's
// own host and on codemode-host, in the three ways Codex reaches a host.

// agentMode is how Codex reaches its code-mode host.
type agentMode string

const (
	// execGRPCStdio: `codex exec`, default features: the host spawned with --listen
	// grpc+stdio://.
	execGRPCStdio agentMode = "exec-grpc-stdio"
	// execV1Stdio: `codex exec` with code_mode_host_grpc off: the host spawned with no
	// arguments, V1 on stdio.
	execV1Stdio agentMode = "exec-v1-stdio"
	// appServerRemote: `codex app-server --code-mode-host http://…` against a host started
	// with --listen grpc://127.0.0.1:0.
	appServerRemote agentMode = "app-server-remote-grpc"
)

var agentModes = []agentMode{execGRPCStdio, execV1Stdio, appServerRemote}

// agentHost is whose host Codex uses.
type agentHost string

const (
	codexHost    agentHost = "codex"
	codemodeHost agentHost = "codemode"
)

// agentRun is one turn of the agent: the scripted model's replies, and what the model was sent
// back for each tool call (the outputs of the exec and wait calls, in order).
type agentRun struct {
	outputs []json.RawMessage
	stderr  string
}

// runAgent runs one Codex turn in mode on host with the model's replies script (a closing
// assistant message is added) and returns the tool outputs the model received.
func runAgent(t *testing.T, mode agentMode, host agentHost, script ...fakemodel.Reply) agentRun {
	t.Helper()
	codex := testenv.FindCodex(t)
	model, err := fakemodel.Start(append(script, fakemodel.Say("done"))...)
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	home := t.TempDir()
	var features []string
	if mode == execV1Stdio {
		features = append(features, "code_mode_host_grpc = false")
	}
	if err := fakemodel.WriteHome(home, model.URL, features...); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	work := t.TempDir()
	var stderr string
	switch mode {
	case appServerRemote:
		stderr = runAppServer(ctx, t, codex, host, home, work)
	default:
		stderr = runExec(ctx, t, codex, host, home, work)
	}
	if err := model.Err(); err != nil {
		t.Fatalf("%s on %s's host: the model: %v\nCodex's stderr:\n%s", mode, host, err, stderr)
	}
	return agentRun{outputs: toolOutputs(t, model.Requests(), script), stderr: stderr}
}

// runExec runs `codex exec` once and returns its output.
func runExec(ctx context.Context, t *testing.T, codex testenv.Codex, host agentHost, home, work string) string {
	t.Helper()
	agent := codex.Agent
	if host == codemodeHost {
		agent = agentBesideCodemodeHost(t, codex)
	}
	cmd := exec.CommandContext(ctx, agent, "exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", "run the script")
	cmd.Dir, cmd.Env = work, fakemodel.Env(home)
	cmd.Stdin = strings.NewReader("")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("codex exec on %s's host: %v\n%s", host, err, out)
	}
	return string(out)
}

// agentBesideCodemodeHost returns a `codex` whose directory holds codemode-host as
// codex-code-mode-host, which is where Codex looks for its host: a hard link of the real
// binary (Codex resolves its own path, so a symlink to codex would find Codex's host), and a
// symlink to codemode-host.
func agentBesideCodemodeHost(t *testing.T, codex testenv.Codex) string {
	t.Helper()
	dir, err := linkDir(codex.Agent)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	agent := filepath.Join(dir, "codex")
	if err := os.Link(codex.Agent, agent); err != nil {
		t.Fatalf("hard link of codex: %v", err)
	}
	if err := os.Symlink(bin, filepath.Join(dir, "codex-code-mode-host")); err != nil {
		t.Fatal(err)
	}
	return agent
}

// linkDir is a new directory on the file system of target, so that target can be hard linked
// into it: the test's temporary directory when it is, else one beside the node_modules package.
func linkDir(target string) (string, error) {
	dir, err := os.MkdirTemp("", "codex-beside-codemode-")
	if err != nil {
		return "", err
	}
	probe := filepath.Join(dir, "probe")
	if err := os.Link(target, probe); err == nil {
		return dir, os.Remove(probe)
	} else if !errors.Is(err, syscall.EXDEV) {
		_ = os.RemoveAll(dir)
		return "", fmt.Errorf("hard link of codex: %w", err)
	}
	_ = os.RemoveAll(dir)
	return os.MkdirTemp(filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(target)))), ".codemode-links-")
}

// runAppServer starts a host on 127.0.0.1 and `codex app-server --code-mode-host URL`, runs one
// turn over its JSON-RPC lines, and returns the app-server's stderr.
func runAppServer(ctx context.Context, t *testing.T, codex testenv.Codex, host agentHost, home, work string) string {
	t.Helper()
	hostBin := codex.Host
	if host == codemodeHost {
		hostBin = bin
	}
	url := startGRPCHost(t, hostBin)
	cmd := exec.CommandContext(ctx, codex.Agent, "app-server", "--code-mode-host", url)
	cmd.Dir, cmd.Env = work, fakemodel.Env(home)
	app := startCmd(t, cmd)
	rpc := &jsonRPCLines{t: t, w: app.stdin, r: app.stdout}
	rpc.call("initialize", map[string]any{"clientInfo": map[string]any{"name": "codemode-test", "version": "0"}})
	rpc.notify("initialized")
	thread := rpc.call("thread/start", map[string]any{"cwd": work, "approvalPolicy": "never", "sandbox": "danger-full-access"})
	var started struct {
		Thread struct {
			ID string `json:"id"`
		} `json:"thread"`
	}
	if err := json.Unmarshal(thread, &started); err != nil || started.Thread.ID == "" {
		t.Fatalf("thread/start answered %s (%v)", thread, err)
	}
	rpc.call("turn/start", map[string]any{"threadId": started.Thread.ID, "input": []map[string]any{{"type": "text", "text": "run the script"}}})
	rpc.awaitNotification("turn/completed")
	_ = app.stdin.Close()
	<-app.exited
	return app.stderrText()
}

// startGRPCHost starts hostBin with --listen grpc://127.0.0.1:0 and returns the URL it prints;
// the host is killed at cleanup.
func startGRPCHost(t *testing.T, hostBin string) string {
	t.Helper()
	url := startProcess(t, hostBin, nil, "--listen", "grpc://127.0.0.1:0").addresses(1)[0]
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("%s printed %q, want http://127.0.0.1:PORT", hostBin, url)
	}
	return url
}

// jsonRPCLines is the client side of Codex app-server's JSON-RPC over lines.
type jsonRPCLines struct {
	t    *testing.T
	w    io.Writer
	r    *bufio.Reader
	next int
}

type rpcMessage struct {
	ID     *int            `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

func (c *jsonRPCLines) send(v any) {
	c.t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		c.t.Fatal(err)
	}
	if _, err := c.w.Write(append(b, '\n')); err != nil {
		c.t.Fatalf("writing to codex app-server: %v", err)
	}
}

// read returns the next message; a request of the server's (an approval) fails the test.
func (c *jsonRPCLines) read() rpcMessage {
	c.t.Helper()
	line, err := c.r.ReadBytes('\n')
	if err != nil {
		c.t.Fatalf("reading codex app-server: %v", err)
	}
	var m rpcMessage
	if err := json.Unmarshal(line, &m); err != nil {
		c.t.Fatalf("codex app-server wrote %q: %v", line, err)
	}
	if m.ID != nil && m.Method != "" {
		c.t.Fatalf("codex app-server asked %s: %s", m.Method, line)
	}
	return m
}

// call sends a request and returns its result, skipping notifications.
func (c *jsonRPCLines) call(method string, params any) json.RawMessage {
	c.t.Helper()
	c.next++
	id := c.next
	c.send(map[string]any{"id": id, "method": method, "params": params})
	for {
		m := c.read()
		if m.ID == nil || *m.ID != id {
			continue
		}
		if m.Error != nil {
			c.t.Fatalf("%s failed: %s", method, m.Error)
		}
		return m.Result
	}
}

func (c *jsonRPCLines) notify(method string) {
	c.t.Helper()
	c.send(map[string]any{"method": method})
}

func (c *jsonRPCLines) awaitNotification(method string) {
	c.t.Helper()
	deadline := time.Now().Add(waitLimit)
	for time.Now().Before(deadline) {
		if m := c.read(); m.Method == method {
			return
		}
	}
	c.t.Fatalf("codex app-server sent no %s", method)
}

// toolOutputs returns, for each tool call of the script, the output the model was sent for it
// (from the request after the reply that made the call).
func toolOutputs(t *testing.T, requests []json.RawMessage, script []fakemodel.Reply) []json.RawMessage {
	t.Helper()
	var out []json.RawMessage
	for i, reply := range script {
		callID, _ := reply[0]["call_id"].(string)
		if i+1 >= len(requests) {
			t.Fatalf("the model got %d requests; no answer to call %s", len(requests), callID)
		}
		out = append(out, outputFor(t, requests[i+1], callID))
	}
	return out
}

// outputFor finds the output of callID among a request's input items.
func outputFor(t *testing.T, request json.RawMessage, callID string) json.RawMessage {
	t.Helper()
	var body struct {
		Input []struct {
			Type   string          `json:"type"`
			CallID string          `json:"call_id"`
			Output json.RawMessage `json:"output"`
		} `json:"input"`
	}
	if err := json.Unmarshal(request, &body); err != nil {
		t.Fatal(err)
	}
	for _, item := range body.Input {
		if item.CallID == callID && strings.HasSuffix(item.Type, "_call_output") {
			return normalizeOutput(item.Output)
		}
	}
	t.Fatalf("no output for call %s in %s", callID, request)
	return nil
}

// What differs between two runs of the same turn on the same host: the wall time, and the
// random chunk IDs and timings of exec_command's answers.
var (
	wallTime     = regexp.MustCompile(`Wall time [0-9.]+ seconds`)
	chunkID      = regexp.MustCompile(`\\"chunk_id\\":\\"[0-9a-f]+\\"`)
	execWallTime = regexp.MustCompile(`\\"wall_time_seconds\\":[0-9.e-]+`)
)

// normalizeOutput removes the values that differ between runs.
func normalizeOutput(out json.RawMessage) json.RawMessage {
	s := wallTime.ReplaceAllString(string(out), "Wall time N seconds")
	s = chunkID.ReplaceAllString(s, `\"chunk_id\":\"C\"`)
	return json.RawMessage(execWallTime.ReplaceAllString(s, `\"wall_time_seconds\":0`))
}
