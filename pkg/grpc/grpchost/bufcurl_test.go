package grpchost_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/codemodehq/codemode/pkg/grpc/grpchost"
	"github.com/codemodehq/codemode/pkg/testenv"
)

// A client nobody here wrote: buf curl, pinned in go.tools.mod, drives the host over gRPC with
// HTTP/2 prior knowledge: it opens a session, subscribes, executes a cell that calls a tool,
// completes the call and reads the outcome. Its gRPC stack and JSON mapping are buf's, so this
// checks our wire against an independent implementation of the protocol.

// repoRoot is the module root, where buf.yaml and go.tools.mod live.
func repoRoot(t *testing.T) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..")
}

// bufCurl returns a command running buf curl through the pinned tool, or skips (fails in CI)
// when the go command or the compiled tool is unavailable.
func bufCurl(t *testing.T, ctx context.Context, args ...string) *exec.Cmd {
	t.Helper()
	testenv.External(t, "buf curl")
	root := repoRoot(t)
	goCmd, err := exec.LookPath("go")
	if err != nil {
		testenv.SkipUnlessCI(t, "buf curl needs the go command: "+err.Error())
	}
	probe := exec.CommandContext(ctx, goCmd, "tool", "-modfile=go.tools.mod", "-n", "buf")
	probe.Dir = root
	if out, err := probe.CombinedOutput(); err != nil {
		testenv.SkipUnlessCI(t, "the pinned buf is not available (make tools builds it): "+strings.TrimSpace(string(out)))
	}
	full := append([]string{"tool", "-modfile=go.tools.mod", "buf", "curl", "--schema", ".", "--protocol", "grpc", "--http2-prior-knowledge", "--emit-defaults"}, args...)
	cmd := exec.CommandContext(ctx, goCmd, full...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "BUF_LOG_FORMAT=text")
	return cmd
}

// curlStream is a running buf curl of a server-streaming RPC whose response messages are read as
// they arrive.
type curlStream struct {
	cmd      *exec.Cmd
	messages *json.Decoder
	headers  chan struct{}
	stderr   *bytes.Buffer
}

// startCurlStream starts a streaming call; headers is closed when buf curl reports the response
// headers (verbose mode prints them to stderr as they arrive).
func startCurlStream(t *testing.T, ctx context.Context, url, method, data string) *curlStream {
	t.Helper()
	cmd := bufCurl(t, ctx, "-v", "-d", data, url+"/codex.code_mode.v1.CodeModeHost/"+method)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &curlStream{cmd: cmd, messages: json.NewDecoder(stdout), headers: make(chan struct{}), stderr: new(bytes.Buffer)}
	go func() {
		scanner := bufio.NewScanner(stderr)
		signalled := false
		for scanner.Scan() {
			line := scanner.Text()
			s.stderr.WriteString(line + "\n")
			if !signalled && strings.Contains(line, "< ") && strings.Contains(strings.ToLower(line), "content-type") {
				signalled = true
				close(s.headers)
			}
		}
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return s
}

// next decodes the next response message into v.
func (s *curlStream) next(t *testing.T, v any) {
	t.Helper()
	if err := s.messages.Decode(v); err != nil {
		t.Fatalf("buf curl stream: %v\nstderr:\n%s", err, s.stderr)
	}
}

// curlUnary runs a unary call and decodes its response.
func curlUnary(t *testing.T, ctx context.Context, url, method, data string, v any) {
	t.Helper()
	cmd := bufCurl(t, ctx, "-d", data, url+"/codex.code_mode.v1.CodeModeHost/"+method)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("buf curl %s: %v\n%s", method, err, stderr.String())
	}
	if err := json.Unmarshal(out, v); err != nil && !errors.Is(err, io.EOF) {
		t.Fatalf("buf curl %s output %q: %v", method, out, err)
	}
}

func TestBufCurlDrivesTheHost(t *testing.T) {
	srv := startServer(t, newJSProvider(t), grpchost.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 4*testTimeout)
	defer cancel()

	lease := startCurlStream(t, ctx, srv.url, "OpenSession", `{}`)
	var opened struct {
		Opened struct {
			SessionID string `json:"sessionId"`
		} `json:"opened"`
	}
	lease.next(t, &opened)
	session := opened.Opened.SessionID
	if session == "" {
		t.Fatal("the first lease event is not opened")
	}

	sub := startCurlStream(t, ctx, srv.url, "SubscribeToToolCalls", `{"sessionId":"`+session+`"}`)
	select {
	case <-sub.headers:
	case <-ctx.Done():
		t.Fatalf("the subscription's response headers never came:\n%s", sub.stderr)
	}

	execute := startCurlStream(t, ctx, srv.url, "Execute", `{"sessionId":"`+session+`","executionId":"curl-execution","toolCallId":"curl-call",`+
		`"source":"const r = await tools.echo({ from: \"buf curl\" }); text(r.reply);","yieldTimeMs":"60000",`+
		`"enabledTools":[{"name":"echo","toolName":{"name":"echo"},"kind":"TOOL_KIND_FUNCTION"}]}`)
	var started struct {
		Started struct {
			ExecutionID string `json:"executionId"`
			CellID      string `json:"cellId"`
		} `json:"started"`
	}
	execute.next(t, &started)
	if started.Started.ExecutionID != "curl-execution" || started.Started.CellID != "1" {
		t.Fatalf("started %+v", started)
	}

	var call struct {
		SessionID    string `json:"sessionId"`
		ExecutionID  string `json:"executionId"`
		InvocationID string `json:"invocationId"`
		InputJSON    []byte `json:"inputJson"`
		Sequence     string `json:"sequence"`
		ToolKind     string `json:"toolKind"`
	}
	sub.next(t, &call)
	if call.SessionID != session || call.ExecutionID != "curl-execution" || call.Sequence != "1" || call.ToolKind != "TOOL_KIND_FUNCTION" ||
		string(call.InputJSON) != `{"from":"buf curl"}` {
		t.Fatalf("tool call %+v (input %s)", call, call.InputJSON)
	}

	output, _ := json.Marshal([]byte(`{"reply":"hello from buf curl"}`))
	var completed map[string]any
	curlUnary(t, ctx, srv.url, "CompleteToolCall", `{"sessionId":"`+session+`","invocationId":"`+call.InvocationID+`","succeeded":{"outputJson":`+string(output)+`}}`, &completed)

	var outcome struct {
		Outcome struct {
			CellID       string `json:"cellId"`
			ContentItems []struct {
				Text struct {
					Text string `json:"text"`
				} `json:"text"`
			} `json:"contentItems"`
			Completed *struct{} `json:"completed"`
			Duration  string    `json:"codeModeHostDurationNs"`
		} `json:"outcome"`
	}
	execute.next(t, &outcome)
	o := outcome.Outcome
	if o.CellID != "1" || o.Completed == nil || len(o.ContentItems) != 1 || o.ContentItems[0].Text.Text != "hello from buf curl" || o.Duration == "" || o.Duration == "0" {
		t.Fatalf("outcome %+v", o)
	}
	var closed struct {
		CellClosed struct {
			ExecutionID string `json:"executionId"`
			Final       string `json:"finalToolCallSequence"`
		} `json:"cellClosed"`
	}
	lease.next(t, &closed)
	if closed.CellClosed.ExecutionID != "curl-execution" || closed.CellClosed.Final != "1" {
		t.Fatalf("lease event %+v", closed)
	}
	curlUnary(t, ctx, srv.url, "CloseSession", `{"sessionId":"`+session+`"}`, &completed)
}
