package mcpserver_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/jsruntime"
	"github.com/codemodehq/codemode/pkg/mcpserver"
	"github.com/codemodehq/codemode/pkg/modeltool"
	"github.com/codemodehq/codemode/pkg/toolsources/toolprovider"
)

// These tests drive the server with the Go SDK's own client over its in-memory transport (a
// net.Pipe): real MCP messages, the real runtime, tools implemented in the test.

// waitLimit bounds waits for events that must happen; it asserts no speed.
const waitLimit = 2 * time.Minute

// testTools are the tools of the tests: add (sums a and b), gate (returns once the test opens
// it, or fails when the cell no longer needs it) and hang (never returns; reports its start and
// its cancellation).
type testTools struct {
	gate     chan struct{}
	started  chan struct{}
	canceled chan struct{}
	once     sync.Once
}

func newTestTools() *testTools {
	return &testTools{gate: make(chan struct{}), started: make(chan struct{}, 100), canceled: make(chan struct{}, 100)}
}

func (*testTools) Definitions() []codemode.ToolDefinition {
	object := json.RawMessage(`{"type":"object"}`)
	return []codemode.ToolDefinition{
		{Name: "add", ToolName: codemode.ToolName{Name: "add"}, Kind: codemode.ToolKindFunction, Description: "Adds a and b.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}`)},
		{Name: "gate", ToolName: codemode.ToolName{Name: "gate"}, Kind: codemode.ToolKindFunction, Description: "Waits for the test.", InputSchema: object},
		{Name: "hang", ToolName: codemode.ToolName{Name: "hang"}, Kind: codemode.ToolKindFunction, Description: "Never returns.", InputSchema: object},
	}
}

func (tt *testTools) InvokeTool(ctx context.Context, call codemode.NestedToolCall) (json.RawMessage, error) {
	switch call.ToolName.Name {
	case "add":
		var in struct{ A, B float64 }
		if err := json.Unmarshal(call.Input, &in); err != nil {
			return nil, err
		}
		return json.Marshal(in.A + in.B)
	case "gate":
		select {
		case <-tt.gate:
			return json.RawMessage(`"open"`), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	tt.started <- struct{}{}
	<-ctx.Done()
	tt.canceled <- struct{}{}
	return nil, ctx.Err()
}

func (tt *testTools) open() { tt.once.Do(func() { close(tt.gate) }) }

// fixture is a server with one connected client session.
type fixture struct {
	tools    *testTools
	srv      *mcpserver.Server
	client   *mcp.ClientSession
	served   chan error
	progress chan *mcp.ProgressNotificationParams
}

func start(t *testing.T) *fixture {
	t.Helper()
	provider, err := jsruntime.NewProvider(jsruntime.Options{PoolSize: -1})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{tools: newTestTools(), served: make(chan error, 1),
		progress: make(chan *mcp.ProgressNotificationParams, 100)}
	f.srv, err = mcpserver.New(mcpserver.Options{Provider: provider, ToolSets: []toolprovider.ToolSet{f.tools}})
	if err != nil {
		t.Fatal(err)
	}
	serverSide, clientSide := mcp.NewInMemoryTransports()
	go func() { f.served <- f.srv.ServeTransport(context.Background(), serverSide) }()
	f.client = f.dial(t, clientSide)
	t.Cleanup(func() {
		f.tools.open()
		_ = f.client.Close()
		select {
		case <-f.served:
		case <-time.After(waitLimit):
			t.Error("ServeTransport did not return after the client closed")
		}
		_ = f.srv.Close()
		provider.Close()
	})
	return f
}

// dial connects a client to transport, its progress notifications going to f.progress.
func (f *fixture) dial(t *testing.T, transport mcp.Transport) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			f.progress <- r.Params
		},
	})
	cs, err := client.Connect(context.Background(), transport, nil)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// connect opens another client session on f's server: a fixture sharing its server and tools,
// closed at cleanup.
func (f *fixture) connect(t *testing.T) *fixture {
	t.Helper()
	serverSide, clientSide := mcp.NewInMemoryTransports()
	other := &fixture{tools: f.tools, srv: f.srv, served: make(chan error, 1), progress: f.progress}
	go func() { other.served <- f.srv.ServeTransport(context.Background(), serverSide) }()
	other.client = other.dial(t, clientSide)
	t.Cleanup(func() {
		_ = other.client.Close()
		select {
		case <-other.served:
		case <-time.After(waitLimit):
			t.Error("ServeTransport did not return after the second client closed")
		}
	})
	return other
}

// call calls a tool and returns its result's text (texts joined) and error flag.
func (f *fixture) call(t *testing.T, params *mcp.CallToolParams) (string, bool, *mcp.CallToolResult) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	res, err := f.client.CallTool(ctx, params)
	if err != nil {
		t.Fatalf("%s: %v", params.Name, err)
	}
	var texts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			texts = append(texts, tc.Text)
		}
	}
	return wallTime.ReplaceAllString(strings.Join(texts, "|"), "Wall time X seconds"), res.IsError, res
}

var wallTime = regexp.MustCompile(`Wall time \d+\.\d seconds`)

func exec(code string) *mcp.CallToolParams {
	return &mcp.CallToolParams{Name: "exec", Arguments: map[string]any{"code": code}}
}

// execToEnd is exec for a cell the test expects to end: its yield time never elapses during a
// test, so the answer is the cell's end, never a yield at the 10 s default that a loaded machine
// can reach first (docs/adr/0070-the-gate-under-load.md).
func execToEnd(code string) *mcp.CallToolParams {
	return &mcp.CallToolParams{Name: "exec", Arguments: map[string]any{"code": code, "yield_time_ms": 600000}}
}

// exec and wait are described for MCP clients, not as Codex describes them to its model: the
// engine is QuickJS, notify() is progress, cells belong to the MCP session. The tools are shown in
// the form a model reads in Codex's exec description (modeltool.NestedToolsReference, TypeScript
// declarations included), and wait's parameters are Codex's, so a model uses them unchanged.
func TestListsExecAndWaitWithMCPDescriptions(t *testing.T) {
	f := start(t)
	res, err := f.client.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) != 2 || res.Tools[0].Name != "exec" || res.Tools[1].Name != "wait" {
		t.Fatalf("tools %+v", res.Tools)
	}
	exec, wait := res.Tools[0].Description, res.Tools[1].Description
	if want := "\n\nTools:\n\n" + modeltool.NestedToolsReference(f.tools.Definitions()); !strings.HasSuffix(exec, want) {
		t.Errorf("exec description does not end with the tools' reference:\n%s\nwant the suffix:\n%s", exec, want)
	}
	for _, want := range []string{
		"declare const tools: { add(args: { a: number; b: number; }): Promise<unknown>; };",
		"QuickJS-ng engine compiled to WebAssembly",
		"MCP progress notification (`notifications/progress` with the text as its `message`)",
		"Each MCP session has its own stored values and its own cells.",
		"`yield_time_ms` (default 10000 ms)",
	} {
		if !strings.Contains(exec, want) {
			t.Errorf("exec description lacks %q:\n%s", want, exec)
		}
	}
	// What Codex tells its own model and an MCP client must not be told.
	for _, codexOnly := range []string{"V8", "isolate", "exec_command", "custom_tool_call_output"} {
		if strings.Contains(exec, codexOnly) || strings.Contains(wait, codexOnly) {
			t.Errorf("a description mentions Codex's %q", codexOnly)
		}
	}
	if exec == modeltool.ExecToolDescription(f.tools.Definitions()) || wait == modeltool.WaitToolDescription() {
		t.Error("a description is Codex's")
	}
	for _, want := range []string{"Cells belong to the MCP session whose `exec` started them", "`progressToken`", "(default 10000 ms)"} {
		if !strings.Contains(wait, want) {
			t.Errorf("wait description lacks %q:\n%s", want, wait)
		}
	}
	schema, _ := json.Marshal(res.Tools[1].InputSchema)
	var got, want any
	_ = json.Unmarshal(schema, &got)
	_ = json.Unmarshal(modeltool.WaitToolParameters(), &want)
	if gotJSON, wantJSON := mustJSON(got), mustJSON(want); gotJSON != wantJSON {
		t.Errorf("wait schema %s, want %s", gotJSON, wantJSON)
	}
}

// Every global exec's description names is a global of the cell, and the APIs it says are
// missing are missing: the description is checked against the engine it describes.
func TestExecDescriptionTellsTheTruth(t *testing.T) {
	f := start(t)
	res, err := f.client.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	description := res.Tools[0].Description
	globalsStart, toolsStart := strings.Index(description, "\nGlobals:\n"), strings.Index(description, "\nTools:\n")
	if globalsStart < 0 || toolsStart < globalsStart {
		t.Fatalf("no Globals section before the Tools section:\n%s", description)
	}
	var named []string
	for _, m := range globalName.FindAllStringSubmatch(description[globalsStart:toolsStart], -1) {
		named = append(named, m[1])
	}
	if len(named) < 15 { // the 16 globals but `tools`, which the introduction presents
		t.Fatalf("the Globals section names %d globals: %q", len(named), named)
	}
	absent := []string{"console", "fetch", "setInterval"}
	for _, name := range absent {
		if !strings.Contains(description, "`"+name+"`") {
			t.Errorf("the description does not say %s is missing", name)
		}
	}
	code := "const named = " + mustJSON(named) + ", absent = " + mustJSON(absent) + ";\n" +
		`text(named.filter((n) => typeof globalThis[n] === "undefined").join(",") + "|" + absent.filter((n) => typeof globalThis[n] !== "undefined").join(","));`
	if text, _, _ := f.call(t, execToEnd(code)); text != "Script completed\nWall time X seconds\nOutput:\n||" {
		t.Errorf("globals named but missing | said missing but present: %q", text)
	}
}

// globalName matches a global the Globals section introduces: "- `name(", "and `name(",
// "; `name(" or "- `name`:".
var globalName = regexp.MustCompile("(?m)(?:^- |and |; )`([A-Za-z_]+)(?:\\(|`:)")

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestExecRunsToolsConcurrently(t *testing.T) {
	f := start(t)
	text, isError, _ := f.call(t, execToEnd(`const r = await Promise.all([1, 2, 3].map((a) => tools.add({a, b: 10})));
text(r.join(","));`))
	if want := "Script completed\nWall time X seconds\nOutput:\n|11,12,13"; text != want || isError {
		t.Errorf("got %q (isError %v), want %q", text, isError, want)
	}
}

func TestExecThatYieldsThenWait(t *testing.T) {
	f := start(t)
	text, isError, _ := f.call(t, exec(`text("before"); yield_control(); text(await tools.gate({})); text("after");`))
	if want := "Script running with cell ID 1\nWall time X seconds\nOutput:\n|before"; text != want || isError {
		t.Fatalf("exec: %q (isError %v), want %q", text, isError, want)
	}
	f.tools.open()
	text, isError, _ = f.call(t, &mcp.CallToolParams{Name: "wait", Arguments: map[string]any{"cell_id": "1", "yield_time_ms": 600000}})
	if want := "Script completed\nWall time X seconds\nOutput:\n|open|after"; text != want || isError {
		t.Errorf("wait: %q (isError %v), want %q", text, isError, want)
	}
	text, isError, _ = f.call(t, &mcp.CallToolParams{Name: "wait", Arguments: map[string]any{"cell_id": "1"}})
	if !strings.HasPrefix(text, "Script failed\n") || !strings.Contains(text, "Script error:\nexec cell 1 not found in this MCP session: it has ended") || !isError {
		t.Errorf("wait on a finished cell: %q (isError %v)", text, isError)
	}
}

// Cells belong to the MCP session that started them: a second client session's wait for the
// first one's running cell is told so (and does not touch it), the first session's wait still
// finishes the cell, and a wait for a cell no session started says the same.
func TestWaitFromAnotherSessionSaysCellsArePerSession(t *testing.T) {
	f := start(t)
	text, isError, _ := f.call(t, exec(`text("before"); yield_control(); text(await tools.gate({}));`))
	if !strings.HasPrefix(text, "Script running with cell ID 1\n") || isError {
		t.Fatalf("exec: %q (isError %v)", text, isError)
	}
	other := f.connect(t)
	for _, args := range []map[string]any{{"cell_id": "1"}, {"cell_id": "1", "terminate": true}, {"cell_id": "7"}} {
		id := args["cell_id"].(string)
		text, isError, _ = other.call(t, &mcp.CallToolParams{Name: "wait", Arguments: args})
		want := "Script failed\nWall time X seconds\nOutput:\n|Script error:\nexec cell " + id + " not found in this MCP session: " +
			"cells belong to the MCP session whose exec started them, and no exec of this session started cell " + id +
			" (a new connection, or another client, is a new MCP session with cells of its own). " +
			"Pass the cell_id of a `Script running with cell ID N` answer of this session."
		if text != want || !isError {
			t.Errorf("another session's wait %v: %q (isError %v), want %q", args, text, isError, want)
		}
	}
	f.tools.open()
	text, isError, _ = f.call(t, &mcp.CallToolParams{Name: "wait", Arguments: map[string]any{"cell_id": "1", "yield_time_ms": 600000}})
	if want := "Script completed\nWall time X seconds\nOutput:\n|open"; text != want || isError {
		t.Errorf("the first session's wait: %q (isError %v), want %q", text, isError, want)
	}
}

func TestWaitTerminates(t *testing.T) {
	f := start(t)
	text, _, _ := f.call(t, exec(`// @exec: {"yield_time_ms": 0}
text("x"); await tools.hang({});`))
	if !strings.HasPrefix(text, "Script running with cell ID 1\n") {
		t.Fatalf("exec: %q", text)
	}
	text, isError, _ := f.call(t, &mcp.CallToolParams{Name: "wait", Arguments: map[string]any{"cell_id": "1", "terminate": true}})
	if !strings.HasPrefix(text, "Script terminated\n") || isError {
		t.Errorf("wait terminate: %q (isError %v)", text, isError)
	}
}

func TestFailedScriptIsAnErrorResult(t *testing.T) {
	f := start(t)
	text, isError, _ := f.call(t, execToEnd(`text("partial"); throw "boom";`))
	if want := "Script failed\nWall time X seconds\nOutput:\n|partial|Script error:\nboom"; text != want || !isError {
		t.Errorf("got %q (isError %v), want %q", text, isError, want)
	}
}

func TestRefusedArguments(t *testing.T) {
	f := start(t)
	for _, c := range []struct {
		params *mcp.CallToolParams
		want   string
	}{
		{exec("   "), "exec expects raw JavaScript source text (non-empty)."},
		{exec("// @exec: {\"x\": 1}\ntext(1)"), "exec pragma only supports `yield_time_ms` and `max_output_tokens`; got `x`"},
		{&mcp.CallToolParams{Name: "exec", Arguments: map[string]any{"source": "text(1)"}}, `unknown field "source"`},
		{&mcp.CallToolParams{Name: "exec", Arguments: map[string]any{}}, "string member `code`"},
		{&mcp.CallToolParams{Name: "wait", Arguments: map[string]any{}}, "failed to parse function arguments: missing field `cell_id`"},
	} {
		text, isError, _ := f.call(t, c.params)
		if !strings.Contains(text, c.want) || !isError {
			t.Errorf("%s %v: %q (isError %v), want it to contain %q", c.params.Name, c.params.Arguments, text, isError, c.want)
		}
	}
}

func TestArgumentsOverrideThePragma(t *testing.T) {
	f := start(t)
	params := &mcp.CallToolParams{Name: "exec", Arguments: map[string]any{
		"code":              "// @exec: {\"yield_time_ms\": 0, \"max_output_tokens\": 1000}\ntext(\"0123456789\".repeat(10)); yield_control(); await tools.gate({});",
		"yield_time_ms":     600000,
		"max_output_tokens": 5,
	}}
	text, _, _ := f.call(t, params)
	if !strings.HasPrefix(text, "Script running with cell ID 1\n") || !strings.Contains(text, "Warning: truncated output") {
		t.Errorf("got %q", text)
	}
}

func TestImagesAreImageContent(t *testing.T) {
	f := start(t)
	_, _, res := f.call(t, execToEnd(`image("data:image/png;base64,iVBORw0KGgo=", "low"); text("done")`))
	if len(res.Content) != 3 {
		t.Fatalf("content %+v", res.Content)
	}
	img, ok := res.Content[1].(*mcp.ImageContent)
	if !ok || img.MIMEType != "image/png" || string(img.Data) != "\x89PNG\r\n\x1a\n" || img.Meta["codex/imageDetail"] != "low" {
		t.Errorf("image %#v", res.Content[1])
	}
}

// A request with a progress token hears of each nested tool call that returns and of each
// notify() text while the cell runs.
func TestProgressNotifications(t *testing.T) {
	f := start(t)
	params := execToEnd(`notify("starting"); await Promise.all([tools.add({a: 1, b: 1}), tools.add({a: 2, b: 2}), tools.add({a: 3, b: 3})]); text("ok")`)
	params.SetProgressToken("p1")
	text, _, _ := f.call(t, params)
	if !strings.HasSuffix(text, "|ok") {
		t.Fatalf("exec: %q", text)
	}
	var messages []string
	for range 4 {
		select {
		case p := <-f.progress:
			if p.ProgressToken != "p1" || p.Progress != float64(len(messages)+1) {
				t.Errorf("progress %+v", p)
			}
			messages = append(messages, p.Message)
		case <-time.After(waitLimit):
			t.Fatalf("progress so far: %q", messages)
		}
	}
	// notify() is delivered on its own goroutine: its place among the calls varies.
	slices.Sort(messages)
	if want := "starting|tool add returned|tool add returned|tool add returned"; strings.Join(messages, "|") != want {
		t.Errorf("progress messages %q, want %q", messages, want)
	}
}

// When the client goes away with a cell running, the cell is terminated (its tool call is
// cancelled), the session is closed, and no goroutine is left behind.
func TestDisconnectTerminatesTheCellAndLeaksNothing(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	provider, err := jsruntime.NewProvider(jsruntime.Options{PoolSize: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer provider.Close()
	tools := newTestTools()
	srv, err := mcpserver.New(mcpserver.Options{Provider: provider, ToolSets: []toolprovider.ToolSet{tools}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	// A pipe of our own, so the client end can be dropped (the client's Close would first wait
	// for its pending call).
	serverEnd, clientEnd := net.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- srv.ServeTransport(context.Background(), &mcp.IOTransport{Reader: serverEnd, Writer: serverEnd})
	}()
	client, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), &mcp.IOTransport{Reader: clientEnd, Writer: clientEnd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	called := make(chan error, 1)
	go func() {
		_, err := client.CallTool(context.Background(), exec(`await tools.hang({})`))
		called <- err
	}()
	select {
	case <-tools.started:
	case <-time.After(waitLimit):
		t.Fatal("the cell did not call hang")
	}
	_ = clientEnd.Close() // the client goes away
	select {
	case <-tools.canceled:
	case <-time.After(waitLimit):
		t.Fatal("the tool call was not cancelled")
	}
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("ServeTransport: %v", err)
		}
	case <-time.After(waitLimit):
		t.Fatal("ServeTransport did not return")
	}
	if err := <-called; err == nil {
		t.Error("the pending call returned no error; want the closed connection's")
	}
	_ = client.Close()
}

// httpFixture serves a server's streamable HTTP handler on 127.0.0.1.
func httpFixture(t *testing.T, opts mcpserver.HTTPOptions) (*testTools, string) {
	t.Helper()
	provider, err := jsruntime.NewProvider(jsruntime.Options{PoolSize: -1})
	if err != nil {
		t.Fatal(err)
	}
	tools := newTestTools()
	srv, err := mcpserver.New(mcpserver.Options{Provider: provider, ToolSets: []toolprovider.ToolSet{tools}})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.HTTPHandler(opts))
	t.Cleanup(func() {
		tools.open()
		_ = srv.Close()
		hs.Close()
		provider.Close()
	})
	return tools, hs.URL
}

// Deleting an HTTP session (DELETE with its Mcp-Session-Id) terminates its running cell at
// once, though the cell's exec is still waiting for its 10-minute yield.
func TestDeletingAnHTTPSessionTerminatesItsCell(t *testing.T) {
	tools, url := httpFixture(t, mcpserver.HTTPOptions{})
	client, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	called := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, _ := client.CallTool(context.Background(), &mcp.CallToolParams{Name: "exec",
			Arguments: map[string]any{"code": "await tools.hang({})", "yield_time_ms": 600000}})
		called <- res
	}()
	select {
	case <-tools.started:
	case <-time.After(waitLimit):
		t.Fatal("the cell did not call hang")
	}
	req, _ := http.NewRequest(http.MethodDelete, url, nil)
	req.Header.Set("Mcp-Session-Id", client.ID())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Errorf("DELETE: %s", resp.Status)
	}
	select {
	case <-tools.canceled:
	case <-time.After(waitLimit):
		t.Fatal("the tool call was not cancelled")
	}
}

// With a token, a request without it is refused with 401.
func TestHTTPTokenIsRequired(t *testing.T) {
	_, url := httpFixture(t, mcpserver.HTTPOptions{Token: "s3cret"})
	_, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err == nil || !strings.Contains(err.Error(), "Unauthorized") {
		t.Errorf("connect without the token: %v", err)
	}
	withToken := &http.Client{Transport: bearer{"s3cret"}}
	client, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: withToken}, nil)
	if err != nil {
		t.Fatalf("connect with the token: %v", err)
	}
	_ = client.Close()
}

// bearer adds Authorization: Bearer token to each request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}
