package main_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"

	pb "github.com/codemodehq/codemode/gen/go/pb/codex/code_mode/v1"
	"github.com/codemodehq/codemode/pkg/testenv"
)

// gRPC server reflection on the TCP gRPC listener, driven by buf curl (pinned in go.tools.mod)
// WITHOUT --schema: everything it knows of CodeModeHost it learns from the running host.

// codeModeHostMethods are CodeModeHost's methods as buf curl lists them, from the generated
// descriptor (the proto the host serves).
func codeModeHostMethods() []string {
	service := pb.File_codex_code_mode_v1_code_mode_proto.Services().ByName("CodeModeHost")
	var names []string
	for i := range service.Methods().Len() {
		names = append(names, string(service.FullName())+"/"+string(service.Methods().Get(i).Name()))
	}
	return names
}

// bufCurlNoSchema runs `buf curl --http2-prior-knowledge args...` with no schema (reflection
// only) and returns its stdout, its stderr and its exit status. It skips (fails in CI) without
// the go command or the pinned buf.
func bufCurlNoSchema(t *testing.T, args ...string) (stdout, stderr string, status int) {
	t.Helper()
	testenv.External(t, "buf curl")
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	goCmd, err := exec.LookPath("go")
	if err != nil {
		testenv.SkipUnlessCI(t, "buf curl needs the go command: "+err.Error())
	}
	probe := exec.Command(goCmd, "tool", "-modfile=go.tools.mod", "-n", "buf")
	probe.Dir = root
	if out, err := probe.CombinedOutput(); err != nil {
		testenv.SkipUnlessCI(t, "the pinned buf is not available (make tools builds it): "+strings.TrimSpace(string(out)))
	}
	cmd := exec.Command(goCmd, append([]string{"tool", "-modfile=go.tools.mod", "buf", "curl", "--http2-prior-knowledge"}, args...)...)
	cmd.Dir = root
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		status = exit.ExitCode()
	default:
		t.Fatalf("buf curl %v: %v", args, err)
	}
	return out.String(), errOut.String(), status
}

// connectError is how buf curl prints an RPC's error.
type connectError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// TestBufCurlWithoutSchemaThroughReflection: on a host listening on grpc://, buf curl without
// --schema lists CodeModeHost's methods and calls two of them, over reflection v1 and over
// v1alpha (older tools ask only for it), in the gRPC and Connect protocols.
func TestBufCurlWithoutSchemaThroughReflection(t *testing.T) {
	url := startHost(t, nil, "--listen", "grpc://127.0.0.1:0").addresses(1)[0]
	for _, reflect := range []string{"grpc-v1", "grpc-v1alpha"} {
		t.Run(reflect, func(t *testing.T) {
			out, stderr, status := bufCurlNoSchema(t, "--reflect-protocol", reflect, "--list-services", url)
			if status != 0 {
				t.Fatalf("--list-services: exit status %d\n%s", status, stderr)
			}
			services := strings.Fields(out)
			for _, want := range []string{"codex.code_mode.v1.CodeModeHost", "grpc.reflection.v1.ServerReflection", "grpc.reflection.v1alpha.ServerReflection"} {
				if !slices.Contains(services, want) {
					t.Errorf("--list-services printed %q, without %s", services, want)
				}
			}

			out, stderr, status = bufCurlNoSchema(t, "--reflect-protocol", reflect, "--list-methods", url)
			if status != 0 {
				t.Fatalf("--list-methods: exit status %d\n%s", status, stderr)
			}
			listed := strings.Fields(out)
			for _, want := range codeModeHostMethods() {
				if !slices.Contains(listed, want) {
					t.Errorf("--list-methods printed %q, without %s", listed, want)
				}
			}

			// Unary calls whose answers need no session: the request and error shapes both
			// come from reflection alone.
			expectRPCError(t, "unimplemented", "process metrics are unsupported",
				"--reflect-protocol", reflect, "--protocol", "grpc", url+"/codex.code_mode.v1.CodeModeHost/GetProcessMetrics")
			const unknown = "7d3c0a8e-9b1f-4f7e-8a55-0c2b1d9e6f01"
			expectRPCError(t, "not_found", "unknown code-mode session "+unknown,
				"--reflect-protocol", reflect, "-d", `{"sessionId":"`+unknown+`"}`, url+"/codex.code_mode.v1.CodeModeHost/CloseSession")
		})
	}
}

// expectRPCError runs buf curl with args and checks the RPC's error code and message.
func expectRPCError(t *testing.T, code, message string, args ...string) {
	t.Helper()
	out, stderr, status := bufCurlNoSchema(t, args...)
	var got connectError
	// buf curl prints an RPC's error as JSON on stderr and exits non-zero.
	if err := json.Unmarshal([]byte(stderr), &got); err != nil {
		t.Fatalf("buf curl %v: exit status %d, output %q (%v)\nstderr:\n%s", args, status, out, err, stderr)
	}
	if got.Code != code || got.Message != message || status == 0 {
		t.Errorf("buf curl %v: %+v (exit status %d), want %s %q", args, got, status, code, message)
	}
}

// TestReflectionNeedsTheToken: with a token, reflection is an RPC like any other: without the
// token it is refused with UNAUTHENTICATED (grpc-status 16) and buf curl lists nothing; with it
// (sent to reflection too, --reflect-header) buf curl lists the methods.
func TestReflectionNeedsTheToken(t *testing.T) {
	url := startHost(t, []string{"CODEMODE_HOST_TOKEN=s3cret"}, "--listen", "grpc://127.0.0.1:0").addresses(1)[0]
	if resp := reflectOverGRPC(t, h2cClient(), url); resp.grpcStatus != "16" || bytes.Contains(resp.body, []byte("CodeModeHost")) {
		t.Errorf("reflection without the token: %+v; want grpc-status 16 (unauthenticated) and no services", resp)
	}
	// buf curl words UNAUTHENTICATED as advice about its own registry's token; only the
	// failure matters here.
	out, stderr, status := bufCurlNoSchema(t, "--list-methods", url)
	if status == 0 || strings.Contains(out, "CodeModeHost") {
		t.Errorf("buf curl without the token: exit status %d, stdout %q, stderr %q; want a failure", status, out, stderr)
	}
	out, stderr, status = bufCurlNoSchema(t, "-H", "Authorization: Bearer s3cret", "--reflect-header", "*", "--list-methods", url)
	if status != 0 || !strings.Contains(out, "codex.code_mode.v1.CodeModeHost/Execute") {
		t.Errorf("with the token: exit status %d, stdout %q, stderr %q; want the methods", status, out, stderr)
	}
}

// listServicesRequest is one gRPC message, ServerReflectionRequest{list_services: ""}, in its
// 5-byte envelope: field 7 (list_services), wire type 2, length 0.
var listServicesRequest = []byte{0, 0, 0, 0, 2, 0x3a, 0x00}

// reflectionAnswer is the HTTP answer to listServicesRequest.
type reflectionAnswer struct {
	httpStatus int
	grpcStatus string
	body       []byte
}

// reflectOverGRPC posts listServicesRequest to reflection v1 through c and returns the answer.
func reflectOverGRPC(t *testing.T, c *http.Client, baseURL string) reflectionAnswer {
	t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, baseURL+"/grpc.reflection.v1.ServerReflection/ServerReflectionInfo", bytes.NewReader(listServicesRequest))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/grpc")
	req.Header.Set("TE", "trailers")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	grpcStatus := resp.Trailer.Get("Grpc-Status")
	if grpcStatus == "" { // a trailers-only answer carries it in the headers
		grpcStatus = resp.Header.Get("Grpc-Status")
	}
	return reflectionAnswer{httpStatus: resp.StatusCode, grpcStatus: grpcStatus, body: body}
}

// TestReflectionOnlyOnTheTCPListener: the same reflection request answers on grpc:// and finds
// no such route on grpc+stdio:// (HTTP 404, which gRPC clients read as UNIMPLEMENTED), where
// Codex spawns the host and its own host serves CodeModeHost alone.
func TestReflectionOnlyOnTheTCPListener(t *testing.T) {
	url := startHost(t, nil, "--listen", "grpc://127.0.0.1:0").addresses(1)[0]
	if resp := reflectOverGRPC(t, h2cClient(), url); resp.grpcStatus != "0" || !bytes.Contains(resp.body, []byte("codex.code_mode.v1.CodeModeHost")) {
		t.Errorf("grpc://: %+v; want grpc-status 0 and the service listed", resp)
	}

	h := startHost(t, nil, "--listen", "grpc+stdio://")
	t.Cleanup(func() { _ = h.stdin.Close() })
	protocols := new(http.Protocols)
	protocols.SetUnencryptedHTTP2(true)
	tr := &http.Transport{Protocols: protocols, DialContext: func(context.Context, string, string) (net.Conn, error) {
		return &pipeConn{ReadCloser: h.rawStdout, WriteCloser: h.stdin}, nil
	}}
	t.Cleanup(tr.CloseIdleConnections)
	if resp := reflectOverGRPC(t, &http.Client{Transport: tr}, "http://code-mode-host"); resp.httpStatus != http.StatusNotFound || bytes.Contains(resp.body, []byte("CodeModeHost")) {
		t.Errorf("grpc+stdio://: %+v; want HTTP 404 and no services", resp)
	}
}

// updateGRPCByHand rewrites the outputs of docs/grpc-by-hand.md with what its commands print.
var updateGRPCByHand = flag.Bool("update-grpc-by-hand", false, "rewrite the outputs shown in docs/grpc-by-hand.md with what its commands print now")

// docBlock is one ```sh block of a document and the ```text block right after it, if any: the
// output the block prints.
type docBlock struct {
	script    string
	output    string
	hasOutput bool
}

// shellBlocks reads the ```sh blocks of a Markdown document and their outputs.
func shellBlocks(t *testing.T, path string) []docBlock {
	t.Helper()
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var blocks []docBlock
	var fence string // the open fence's language, "" outside one
	var body strings.Builder
	blankSinceBlock := true // only blank lines since the last sh block closed
	for line := range strings.Lines(string(doc)) {
		trimmed := strings.TrimSuffix(line, "\n")
		switch {
		case fence == "" && strings.HasPrefix(trimmed, "```"):
			fence = strings.TrimPrefix(trimmed, "```")
			body.Reset()
		case fence != "" && trimmed == "```":
			switch {
			case fence == "sh":
				blocks = append(blocks, docBlock{script: body.String()})
				blankSinceBlock = true
			case fence == "text" && blankSinceBlock && len(blocks) > 0 && !blocks[len(blocks)-1].hasOutput:
				blocks[len(blocks)-1].output, blocks[len(blocks)-1].hasOutput = body.String(), true
				blankSinceBlock = false
			default:
				blankSinceBlock = false
			}
			fence = ""
		case fence != "":
			body.WriteString(line)
		case strings.TrimSpace(trimmed) != "":
			blankSinceBlock = false
		}
	}
	return blocks
}

// docVolatile matches what differs between runs of a document's commands: random UUIDs and the
// host's measured durations.
var docVolatile = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|("codeModeHostDurationNs": ?")[0-9]+"`)

// normalizeDocOutput replaces what differs between runs with placeholders, and compacts every
// line that is JSON (after an "end of stream: " prefix): Go's protobuf JSON encoder puts spaces
// into its compact output at random, on purpose, so that nobody depends on its exact bytes.
func normalizeDocOutput(s string) string {
	lines := strings.SplitAfter(s, "\n")
	for i, line := range lines {
		prefix, rest := "", line
		if after, ok := strings.CutPrefix(line, "end of stream: "); ok {
			prefix, rest = "end of stream: ", after
		}
		var compact bytes.Buffer
		if strings.HasPrefix(rest, "{") && json.Compact(&compact, []byte(rest)) == nil {
			lines[i] = prefix + compact.String() + "\n"
		}
	}
	return docVolatile.ReplaceAllStringFunc(strings.Join(lines, ""), func(m string) string {
		if strings.HasPrefix(m, `"`) {
			return m[:strings.Index(m, `": `)+len(`": `)] + `"N"`
		}
		return "UUID"
	})
}

// TestGRPCByHandDoc runs the ```sh blocks of docs/grpc-by-hand.md in order, in one bash, in an
// empty directory, with the built codemode-host and the pinned buf on PATH (the address 8766 is
// replaced by a free port), and compares each block's output with the ```text block after it,
// UUIDs and durations aside.
func TestGRPCByHandDoc(t *testing.T) {
	testenv.External(t, "buf curl, curl and bash")
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	tools := map[string]string{}
	for _, name := range []string{"bash", "curl", "go"} {
		path, err := exec.LookPath(name)
		if err != nil {
			testenv.SkipUnlessCI(t, "the walkthrough needs "+name+": "+err.Error())
		}
		tools[name] = path
	}
	probe := exec.Command(tools["go"], "tool", "-modfile=go.tools.mod", "-n", "buf")
	probe.Dir = root
	bufPath, err := probe.Output()
	if err != nil {
		testenv.SkipUnlessCI(t, "the pinned buf is not available (make tools builds it): "+err.Error())
	}
	binDir := t.TempDir()
	for name, target := range map[string]string{"buf": strings.TrimSpace(string(bufPath)), "codemode-host": bin} {
		if err := os.Symlink(target, filepath.Join(binDir, name)); err != nil {
			t.Fatal(err)
		}
	}
	addr := freeAddress(t)

	docPath := filepath.Join(root, "docs", "grpc-by-hand.md")
	blocks := shellBlocks(t, docPath)
	const marker = "@@@ end of block @@@"
	var script strings.Builder
	for _, b := range blocks {
		script.WriteString(strings.ReplaceAll(b.script, "127.0.0.1:8766", addr))
		script.WriteString("echo '" + marker + "'\n")
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, tools["bash"], "-c", script.String())
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// The host and the streams run in the background: a failure must not leave them behind.
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	t.Cleanup(func() {
		if cmd.Process != nil {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		}
	})
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the walkthrough's commands: %v\nstdout:\n%s\nstderr:\n%s", err, out, stderr.String())
	}
	outputs := strings.Split(strings.ReplaceAll(string(out), addr, "127.0.0.1:8766"), marker+"\n")
	if len(outputs) != len(blocks)+1 {
		t.Fatalf("%d block outputs for %d blocks:\n%s\nstderr:\n%s", len(outputs)-1, len(blocks), out, stderr.String())
	}
	if *updateGRPCByHand {
		rewriteOutputs(t, docPath, blocks, outputs)
		return
	}
	for i, b := range blocks {
		if b.hasOutput && normalizeDocOutput(outputs[i]) != normalizeDocOutput(b.output) {
			t.Errorf("block %d:\n%s\nprinted:\n%s\nthe document says:\n%s", i+1, b.script, outputs[i], b.output)
		}
	}
	if t.Failed() {
		t.Logf("stderr:\n%s", stderr.String())
	}
}

// rewriteOutputs replaces each output block of the document at path with what its block printed.
func rewriteOutputs(t *testing.T, path string, blocks []docBlock, outputs []string) {
	t.Helper()
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	at := 0
	for i, b := range blocks {
		at += strings.Index(text[at:], "```sh\n"+b.script+"```\n") + len("```sh\n"+b.script+"```\n")
		if !b.hasOutput {
			continue
		}
		old := "```text\n" + b.output + "```\n"
		start := at + strings.Index(text[at:], old)
		text = text[:start] + "```text\n" + outputs[i] + "```\n" + text[start+len(old):]
		at = start
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// freeAddress returns a 127.0.0.1 address nothing listens on (the port the system just gave
// out and took back).
func freeAddress(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// TestReflectionStreamEndsAtShutdown: a client keeps a reflection stream open (as grpcui does)
// when the host is told to stop. The stream ends with UNAVAILABLE and the host drains cleanly
// (exit status 0), instead of waiting for the stream until its drain bound (10 minutes here)
// and exiting with "connections were cut".
func TestReflectionStreamEndsAtShutdown(t *testing.T) {
	h := startHost(t, nil, "--listen", "grpc://127.0.0.1:0", "--drain-timeout", "10m")
	url := h.addresses(1)[0]
	requests, send := io.Pipe()
	defer send.Close()
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, url+"/grpc.reflection.v1.ServerReflection/ServerReflectionInfo", requests)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/grpc")
	req.Header.Set("TE", "trailers")
	go func() { _, _ = send.Write(listServicesRequest) }()
	resp, err := h2cClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	header := make([]byte, 5)
	if _, err := io.ReadFull(resp.Body, header); err != nil {
		t.Fatalf("reading the answer to list_services: %v", err)
	}
	answer := make([]byte, int(header[1])<<24|int(header[2])<<16|int(header[3])<<8|int(header[4]))
	if _, err := io.ReadFull(resp.Body, answer); err != nil || !bytes.Contains(answer, []byte("codex.code_mode.v1.CodeModeHost")) {
		t.Fatalf("answer %q (%v), want the services", answer, err)
	}

	h.signal(syscall.SIGTERM) // the stream stays open: the client sends nothing more
	if code := h.exitCode(); code != 0 {
		t.Fatalf("exit status %d with a reflection stream open, want 0 (a clean drain)", code)
	}
	if rest, err := io.ReadAll(resp.Body); err != nil || len(rest) != 0 {
		t.Fatalf("after the stream: %q, %v", rest, err)
	}
	if got := resp.Trailer.Get("Grpc-Status"); got != "14" {
		t.Errorf("the stream ended with grpc-status %q (%s), want 14 (unavailable)", got, resp.Trailer.Get("Grpc-Message"))
	}
}
