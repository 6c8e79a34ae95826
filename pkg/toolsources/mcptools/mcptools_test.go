package mcptools_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/jsruntime"
	"github.com/codemodehq/codemode/pkg/modeltool"
	"github.com/codemodehq/codemode/pkg/toolsources/mcptools"
	"github.com/codemodehq/codemode/pkg/toolsources/toolprovider"
)

// hangGuard bounds every wait of these tests: reaching it is a failure, never a measurement.
const hangGuard = 5 * time.Minute

// stdioServer is a manifest entry running the test binary as the MCP server named name, with
// extra fields appended (`, "timeout": "1s"`).
func stdioServer(name, extra string) string {
	command, _ := json.Marshal([]string{os.Args[0]})
	return `{"name": "` + name + `", "command": ` + string(command) + `, "env": {"set": {"` + testServerEnv + `": "stdio"}}` + extra + `}`
}

// openManifest writes a manifest of the servers and opens it as programs do; the sets are
// closed when the test ends.
func openManifest(t testing.TB, servers ...string) []toolprovider.ToolSet {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tools.json")
	if err := os.WriteFile(path, []byte(`{"mcp_servers": [`+strings.Join(servers, ", ")+`]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	sets, closeSets, err := mcptools.OpenManifest(ctx, path, mcptools.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := closeSets(); err != nil {
			t.Error(err)
		}
	})
	return sets
}

// cellOutcome is what a completed cell produced.
type cellOutcome struct {
	text   string // its text items, one per line
	items  []codemode.ContentItem
	failed string // the script's error text, "" when it succeeded
}

// runCell runs src as one cell of a fresh in-process session whose tools are the sets'.
func runCell(t testing.TB, sets []toolprovider.ToolSet, src string) cellOutcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	d, err := toolprovider.NewDelegate(nil, sets...)
	if err != nil {
		t.Fatal(err)
	}
	p, err := jsruntime.NewProvider(jsruntime.Options{PoolSize: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	s, err := p.CreateSession(ctx, codemode.FromBlocking(d), codemode.SessionCellExecutionLimits{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown(ctx)
	yield := uint64(hangGuard / time.Millisecond)
	cell, err := s.Execute(ctx, codemode.ExecuteRequest{ToolCallID: "call-1", Source: src, EnabledTools: d.Definitions(), YieldTimeMs: &yield})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := cell.InitialResponse(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Kind != codemode.Result {
		t.Fatalf("the cell ended with %v, want a result", resp.Kind)
	}
	out := cellOutcome{items: resp.ContentItems}
	var texts []string
	for _, item := range resp.ContentItems {
		if text, ok := item.(codemode.InputText); ok {
			texts = append(texts, text.Text)
		}
	}
	out.text = strings.Join(texts, "\n")
	if resp.ErrorText != nil {
		out.failed = *resp.ErrorText
	}
	return out
}

func wantText(t *testing.T, got cellOutcome, want string) {
	t.Helper()
	if got.failed != "" {
		t.Fatalf("the cell failed: %s\noutput: %s", got.failed, got.text)
	}
	if got.text != want {
		t.Fatalf("the cell printed:\n%s\nwant:\n%s", got.text, want)
	}
}

// Every tool a server lists becomes tools.mcp__{server}__{tool}, named, described and typed in
// Codex's form, which a model trained against Codex expects, and the exec tool's description
// shows its CallToolResult type with the shared MCP types.
func TestServerToolsBecomeNamespacedDefinitions(t *testing.T) {
	sets := openManifest(t, stdioServer("faulty", ""))
	if len(sets) != 2 {
		t.Fatalf("OpenManifest returned %d sets, want the command tools and the MCP tools", len(sets))
	}
	var echo *codemode.ToolDefinition
	defs := sets[1].Definitions()
	for i, def := range defs {
		if def.Name == "mcp__faulty__echo" {
			echo = &defs[i]
		}
	}
	if echo == nil {
		t.Fatalf("no mcp__faulty__echo among %v", defs)
	}
	if echo.ToolName.Name != "echo" || echo.ToolName.Namespace == nil || *echo.ToolName.Namespace != "mcp__faulty__" ||
		echo.ToolName.String() != "mcp__faulty__echo" || echo.Kind != codemode.ToolKindFunction ||
		echo.Description != "Echoes text, as structured content." {
		t.Errorf("echo's definition = %+v", echo)
	}
	description := modeltool.ExecToolDescription(defs)
	for _, want := range []string{
		"Shared MCP Types:\n```ts\n",
		"type CallToolResult<TStructured = { [key: string]: unknown }>",
		"### `mcp__faulty__echo`\nEchoes text, as structured content.\n\nexec tool declaration:\n```ts\n" +
			"declare const tools: { mcp__faulty__echo(args: {\n  // the text to echo\n  text: string;\n}): Promise<CallToolResult<{ length: number; text: string; }>>; };",
		"mcp__faulty__plain(args: {}): Promise<CallToolResult>;",
	} {
		if !strings.Contains(description, want) {
			t.Errorf("the exec description lacks %q:\n%s", want, description)
		}
	}
}

// Three calls at once through Promise.all, each a tools/call on the same server, each resolved
// with its own CallToolResult.
func TestCellCallsAnMCPToolThreeTimesWithPromiseAll(t *testing.T) {
	sets := openManifest(t, stdioServer("faulty", ""))
	got := runCell(t, sets, `
const results = await Promise.all(["a", "bb", "ccc"].map((text) => tools.mcp__faulty__echo({ text })));
for (const r of results) text(r.structuredContent.text + " " + r.structuredContent.length + " " + r.content[0].type + " " + ("isError" in r));
`)
	wantText(t, got, "a 1 text false\nbb 2 text false\nccc 3 text false")
}

// A result with structured content carries it beside the content blocks; one without has the
// blocks only, and an image block goes to image(), which takes raw MCP image blocks
// (docs/protocol/javascript.md#image).
func TestStructuredAndContentResults(t *testing.T) {
	sets := openManifest(t, stdioServer("faulty", ""))
	got := runCell(t, sets, `
const echoed = await tools.mcp__faulty__echo({ text: "hi" });
text(JSON.stringify(echoed));
const plain = await tools.mcp__faulty__plain();
text(JSON.stringify(plain));
const picture = await tools.mcp__faulty__image();
text(picture.content[0].type + " " + picture.content[0].mimeType);
image(picture.content[0]);
`)
	if got.failed != "" {
		t.Fatalf("the cell failed: %s", got.failed)
	}
	// The Go SDK's servers put their name in the result's _meta; it reaches the cell as sent.
	meta := `"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"faulty","version":"v1"}}`
	want := `{"content":[{"type":"text","text":"{\"length\":2,\"text\":\"hi\"}"}],"structuredContent":{"length":2,"text":"hi"},` + meta + `}` + "\n" +
		`{"content":[{"type":"text","text":"just text"}],` + meta + `}` + "\n" +
		"image image/png"
	if got.text != want {
		t.Fatalf("the cell printed:\n%s\nwant:\n%s", got.text, want)
	}
	var img *codemode.InputImage
	for _, item := range got.items {
		if i, ok := item.(codemode.InputImage); ok {
			img = &i
		}
	}
	if img == nil || !strings.HasPrefix(img.ImageURL, "data:image/png;base64,iVBORw0KGgo") {
		t.Fatalf("image items: %+v", got.items)
	}
}

// A result with isError rejects the promise with the result's text.
func TestIsErrorRejectsThePromiseWithItsText(t *testing.T) {
	sets := openManifest(t, stdioServer("faulty", ""))
	got := runCell(t, sets, `
try { await tools.mcp__faulty__fail(); text("resolved"); } catch (e) { text("caught: " + e); }
`)
	wantText(t, got, "caught: the note does not exist")
}

// A server that exits during a call fails that call with its exit status and last stderr; the
// next call starts it again (a new process).
func TestServerExitingMidCallIsRestartedByTheNextCall(t *testing.T) {
	sets := openManifest(t, stdioServer("faulty", ""))
	got := runCell(t, sets, `
const before = (await tools.mcp__faulty__pid()).structuredContent.pid;
try { await tools.mcp__faulty__crash(); text("resolved"); } catch (e) { text(e); }
const after = (await tools.mcp__faulty__pid()).structuredContent.pid;
text(before !== after ? "a new process" : "the same process");
`)
	wantText(t, got, "MCP server `faulty` exited during the call of `mcp__faulty__crash` (exit status 3); its stderr: crashing on purpose; the next call starts it again\n"+
		"a new process")
}

// A call past its server's timeout is rejected with a text naming the timeout, and the server
// sees the call cancelled (MCP's notifications/cancelled ends the handler's context).
func TestCallPastItsTimeoutIsCancelledOnTheServer(t *testing.T) {
	events := filepath.Join(t.TempDir(), "events")
	if err := syscall.Mkfifo(events, 0o600); err != nil {
		t.Fatal(err)
	}
	cancelled := make(chan string, 1)
	go func() {
		f, err := os.Open(events) // blocks until the server opens the write end
		if err != nil {
			cancelled <- err.Error()
			return
		}
		defer f.Close()
		line, _ := bufio.NewReader(f).ReadString('\n')
		cancelled <- line
	}()
	command, _ := json.Marshal([]string{os.Args[0]})
	server := `{"name": "faulty", "command": ` + string(command) + `, "timeout": "1s", "env": {"set": {"` +
		testServerEnv + `": "stdio", "` + testEventsEnv + `": ` + strconv.Quote(events) + `}}}`
	sets := openManifest(t, server)
	got := runCell(t, sets, `try { await tools.mcp__faulty__hang(); text("resolved"); } catch (e) { text(e); }`)
	wantText(t, got, "MCP tool `mcp__faulty__hang` timed out after 1s (its server's timeout) and was cancelled")
	// Only the hang call is bound by the 1 s timeout (it never returns on its own); the evidence
	// that the server saw MCP's cancellation is an event, however long it takes to arrive.
	select {
	case line := <-cancelled:
		if line != "cancelled\n" {
			t.Fatalf("the server reported %q, want a cancelled call", line)
		}
	case <-time.After(hangGuard):
		t.Fatal("the server never saw the call cancelled")
	}
}

// When the caller's context ends (the cell no longer needs the result), the call returns at
// once and the server sees the call cancelled.
func TestEndedContextCancelsTheCallOnTheServer(t *testing.T) {
	sets := openManifest(t, stdioServer("faulty", ""))
	ns := mcptools.Namespace("faulty")
	call := func(ctx context.Context, tool string) (json.RawMessage, error) {
		return sets[1].InvokeTool(ctx, codemode.NestedToolCall{ToolName: codemode.ToolName{Name: tool, Namespace: &ns}, ToolKind: codemode.ToolKindFunction})
	}
	guard, stop := context.WithTimeout(context.Background(), hangGuard)
	defer stop()
	hangCtx, cancel := context.WithCancel(guard)
	done := make(chan error, 1)
	go func() {
		_, err := call(hangCtx, "hang")
		done <- err
	}()
	if _, err := call(guard, "hanging"); err != nil { // returns once the server runs hang
		t.Fatal(err)
	}
	cancel()
	if err := <-done; err == nil {
		t.Fatal("the cancelled call succeeded")
	}
	seen, err := call(guard, "cancellations")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(seen), `"structuredContent":{"cancelled":1}`) {
		t.Fatalf("cancellations = %s", seen)
	}
}

// A 10 MiB result is delivered whole (the default max_result_bytes is 16 MiB; Codex hands code
// mode the raw MCP result, and only what the cell prints is cut to the model's budget).
func TestTenMiBResultIsDelivered(t *testing.T) {
	sets := openManifest(t, stdioServer("faulty", ""))
	got := runCell(t, sets, `
const r = await tools.mcp__faulty__big({ bytes: 10 * 1024 * 1024 });
text(r.content[0].text.length);
`)
	wantText(t, got, "10485760")
}

// A result larger than the server's max_result_bytes rejects the call with a text saying so;
// the server is stopped and the next call starts it again.
func TestResultPastMaxResultBytesIsRefused(t *testing.T) {
	sets := openManifest(t, stdioServer("faulty", `, "max_result_bytes": 1048576`))
	got := runCell(t, sets, `
try { await tools.mcp__faulty__big({ bytes: 2 * 1024 * 1024 }); text("resolved"); } catch (e) { text(e); }
const small = await tools.mcp__faulty__big({ bytes: 10 });
text(small.content[0].text);
`)
	wantText(t, got, "MCP server `faulty` sent a message larger than its max_result_bytes (1048576 bytes) during the call of `mcp__faulty__big`, and was stopped; the next call starts it again\n"+
		"xxxxxxxxxx")
}

// A streamable HTTP server on 127.0.0.1, with the manifest's headers on every request.
func TestStreamableHTTPServer(t *testing.T) {
	url := serveHTTP(t, "Authorization", "Bearer secret")
	sets := openManifest(t, `{"name": "remote", "url": "`+url+`", "headers": {"Authorization": "Bearer secret"}}`)
	got := runCell(t, sets, `
const rs = await Promise.all([tools.mcp__remote__echo({ text: "over" }), tools.mcp__remote__echo({ text: "http" })]);
text(rs.map((r) => r.structuredContent.text).join(" "));
try { await tools.mcp__remote__fail(); } catch (e) { text("caught: " + e); }
`)
	wantText(t, got, "over http\ncaught: the note does not exist")
}

// A server that does not start is refused when the manifest is opened, naming its place.
func TestServerThatDoesNotStartIsRefusedAtOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tools.json")
	url := serveHTTP(t, "Authorization", "Bearer secret")
	manifest := `{"mcp_servers": [{"name": "broken", "command": ["false"]}, {"name": "unauthorized", "url": "` + url + `"}]}`
	if err := os.WriteFile(path, []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	_, _, err := mcptools.OpenManifest(ctx, path, mcptools.Options{})
	if err == nil {
		t.Fatal("OpenManifest succeeded")
	}
	for _, want := range []string{
		path + ": /mcp_servers/0: MCP server `broken` did not start: ",
		"; it exited (exit status 1)",
		"\n/mcp_servers/1: MCP server `unauthorized` did not start: ",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}
