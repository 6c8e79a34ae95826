package toolprovider

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// call invokes the provider's tool name (a function tool unless kind says otherwise).
func call(t *testing.T, p *Provider, name string, input string) (string, error) {
	t.Helper()
	return callKind(t, p, name, codemode.ToolKindFunction, input)
}

func callKind(t *testing.T, p *Provider, name string, k codemode.ToolKind, input string) (string, error) {
	t.Helper()
	var raw json.RawMessage
	if input != "" {
		raw = json.RawMessage(input)
	}
	out, err := p.InvokeTool(context.Background(), codemode.NestedToolCall{
		CellID: "1", RuntimeToolCallID: "tool-1", ToolName: codemode.ToolName{Name: name}, ToolKind: k, Input: raw,
	})
	return string(out), err
}

// echoed is what the echo helper reports.
type echoed struct {
	Stdin string   `json:"stdin"`
	Env   []string `json:"env"`
	Dir   string   `json:"dir"`
}

func callEcho(t *testing.T, p *Provider, name string, k codemode.ToolKind, input string) echoed {
	t.Helper()
	out, err := callKind(t, p, name, k, input)
	if err != nil {
		t.Fatal(err)
	}
	var e echoed
	if err := json.Unmarshal([]byte(out), &e); err != nil {
		t.Fatalf("echo printed %q: %v", out, err)
	}
	return e
}

// The input reaches stdin as one line of JSON (a function tool's absent input as {}), and the
// one JSON value on stdout comes back as the result.
func TestInvokeWritesTheInputOnStdinAndReturnsStdout(t *testing.T) {
	p := loadTools(t, helperTool("echo", "echo", nil), helperTool("shout", "echo", map[string]any{"kind": "freeform"}))
	if e := callEcho(t, p, "echo", codemode.ToolKindFunction, ` {"n": 1} `); e.Stdin != "{\"n\": 1}\n" {
		t.Errorf("stdin %q", e.Stdin)
	}
	if e := callEcho(t, p, "echo", codemode.ToolKindFunction, ""); e.Stdin != "{}\n" {
		t.Errorf("stdin of a call without input %q", e.Stdin)
	}
	if e := callEcho(t, p, "shout", codemode.ToolKindFreeform, `"hi"`); e.Stdin != "\"hi\"\n" {
		t.Errorf("freeform stdin %q", e.Stdin)
	}
}

// The command's environment is exactly what the manifest lists: passed variables that are set,
// and fixed ones. Nothing else of codemode's environment leaks in.
func TestInvokeGivesTheCommandOnlyTheManifestsEnvironment(t *testing.T) {
	t.Setenv("CODEMODE_TEST_PASSED", "passed value")
	t.Setenv("CODEMODE_TEST_SECRET", "must not leak")
	p := loadTools(t, helperTool("echo", "echo", map[string]any{
		"pass": []string{"CODEMODE_TEST_PASSED", "CODEMODE_TEST_UNSET_VARIABLE"},
		"set":  map[string]string{"FIXED": "fixed value"},
	}))
	e := callEcho(t, p, "echo", codemode.ToolKindFunction, "")
	slices.Sort(e.Env)
	want := []string{"CODEMODE_TEST_PASSED=passed value", "FIXED=fixed value", helperEnv + "=echo"}
	if !slices.Equal(e.Env, want) {
		t.Errorf("environment %q, want %q", e.Env, want)
	}
}

// env.pass copies variables that are set and skips those that are not; env.set adds fixed ones,
// sorted.
func TestEnvironmentIsBuiltFromTheManifestOnly(t *testing.T) {
	t.Setenv("CODEMODE_TEST_PASSED", "passed value")
	env, problems := environment(envSpec{
		Pass: []string{"CODEMODE_TEST_PASSED", "CODEMODE_TEST_UNSET_VARIABLE"},
		Set:  map[string]string{"B": "2", "A": "1"},
	}, "/tools/0/env")
	want := []string{"CODEMODE_TEST_PASSED=passed value", "A=1", "B=2"}
	if len(problems) > 0 || !slices.Equal(env, want) {
		t.Errorf("environment %q (problems %v), want %q", env, problems, want)
	}
	if env, _ := environment(envSpec{}, ""); env == nil || len(env) != 0 {
		t.Errorf("an empty environment is %#v: nil would make exec pass codemode's own", env)
	}
}

func TestInvokeRejectsWithStderrOnAFailure(t *testing.T) {
	p := loadTools(t, helperTool("fail", "fail", nil), helperTool("quiet", "fail-quiet", nil))
	if _, err := call(t, p, "fail", ""); err == nil || err.Error() != "tool `fail` failed (exit status 3): something broke" {
		t.Errorf("error %v", err)
	}
	if _, err := call(t, p, "quiet", ""); err == nil || err.Error() != "tool `quiet` failed (exit status 3) and printed nothing on stderr" {
		t.Errorf("error %v", err)
	}
}

// A failure's stderr is bounded: its first and last 2 KiB are kept.
func TestInvokeBoundsTheStderrOfAFailure(t *testing.T) {
	p := loadTools(t, helperTool("noisy", "noisy-fail", nil))
	_, err := call(t, p, "noisy", "")
	if err == nil {
		t.Fatal("no error")
	}
	half := maxStderrBytes / 2
	want := "tool `noisy` failed (exit status 1): BEGIN" + strings.Repeat(".", half-len("BEGIN")) +
		"\n… 95904 bytes omitted …\n" + strings.Repeat(".", half-len("END")) + "END"
	if err.Error() != want {
		t.Errorf("error of %d bytes:\n%.200s…", len(err.Error()), err.Error())
	}
}

func TestInvokeRefusesStdoutThatIsNotOneJSONValue(t *testing.T) {
	printing := func(name, out string) map[string]any {
		return helperTool(name, "print", map[string]any{"set": map[string]string{"HELPER_OUT": out}})
	}
	p := loadTools(t, printing("nothing", " \n"), printing("text", "hello"), printing("two", `{"a":1} {"b":2}`),
		printing("one", "\n  {\"a\": [1, 2]}\n\n"))
	cases := map[string]string{
		"nothing": "tool `nothing` printed nothing on stdout; a tool prints its result there as JSON",
		"text":    "tool `text` printed invalid JSON on stdout: invalid character 'h' looking for beginning of value",
		"two":     "tool `two` printed invalid JSON on stdout: more than one JSON value",
	}
	for name, want := range cases {
		if _, err := call(t, p, name, ""); err == nil || err.Error() != want {
			t.Errorf("%s: error %v\nwant %s", name, err, want)
		}
	}
	if out, err := call(t, p, "one", ""); err != nil || out != `{"a": [1, 2]}` {
		t.Errorf("one: %q, %v", out, err)
	}
}

func TestInvokeChecksTheResultAgainstTheOutputSchema(t *testing.T) {
	schema := json.RawMessage(`{"type": "object", "properties": {"count": {"type": "integer"}}, "required": ["count"]}`)
	p := loadTools(t,
		helperTool("good", "print", map[string]any{"output_schema": schema, "set": map[string]string{"HELPER_OUT": `{"count": 3}`}}),
		helperTool("bad", "print", map[string]any{"output_schema": schema, "set": map[string]string{"HELPER_OUT": `{"count": "3"}`}}),
		helperTool("empty", "print", map[string]any{"output_schema": schema, "set": map[string]string{"HELPER_OUT": `[]`}}),
	)
	if out, err := call(t, p, "good", ""); err != nil || out != `{"count": 3}` {
		t.Errorf("good: %q, %v", out, err)
	}
	if _, err := call(t, p, "bad", ""); err == nil || err.Error() != "tool `bad` result does not match its output_schema: at '/count': got string, want integer" {
		t.Errorf("bad: %v", err)
	}
	if _, err := call(t, p, "empty", ""); err == nil || err.Error() != "tool `empty` result does not match its output_schema: at '/': got array, want object" {
		t.Errorf("empty: %v", err)
	}
}

// A command that prints more than max_output_bytes is killed, and the call says why.
func TestInvokeKillsACommandThatPrintsTooMuch(t *testing.T) {
	p := loadTools(t, helperTool("flood", "flood", map[string]any{"max_output_bytes": 10000}))
	_, err := call(t, p, "flood", "")
	if !errors.Is(err, ErrOutputTooLarge) || err.Error() != "tool `flood` printed too much on stdout (more than 10000 bytes) and was killed" {
		t.Errorf("error %v", err)
	}
}

// The input rules are Codex's, with its texts: function tools take an object, freeform tools a
// string; a call to a tool the provider does not have, or with the wrong kind, is not enabled.
// The input schema is enforced too, in pkg/jsruntime's words.
func TestInvokeAppliesCodexsInputRules(t *testing.T) {
	p := loadTools(t, helperTool("fn", "echo", map[string]any{"input_schema": json.RawMessage(`{"type": "object", "properties": {"n": {"type": "integer"}}}`)}),
		helperTool("free", "echo", map[string]any{"kind": "freeform"}))
	cases := []struct {
		name  string
		kind  codemode.ToolKind
		input string
		want  string
	}{
		{"fn", codemode.ToolKindFunction, `"text"`, "tool `fn` expects a JSON object for arguments"},
		{"fn", codemode.ToolKindFunction, `[1]`, "tool `fn` expects a JSON object for arguments"},
		{"fn", codemode.ToolKindFunction, `{"n": "one"}`, "tool `fn` input does not match its input_schema: at '/n': got string, want integer"},
		{"free", codemode.ToolKindFreeform, `{"a": 1}`, "tool `free` expects a string input"},
		{"free", codemode.ToolKindFreeform, "", "tool `free` expects a string input"},
		{"free", codemode.ToolKindFunction, `{}`, "code-mode tool free is not enabled for this execution"},
		{"nosuch", codemode.ToolKindFunction, `{}`, "code-mode tool nosuch is not enabled for this execution"},
	}
	for _, c := range cases {
		if _, err := callKind(t, p, c.name, c.kind, c.input); err == nil || err.Error() != c.want {
			t.Errorf("%s(%s): error %v, want %s", c.name, c.input, err, c.want)
		}
	}
}

// Calls name a namespaced tool by its namespace and name; the default namespace's aliases (none,
// "" and "functions") all reach a tool without one.
func TestInvokeFindsToolsByNamespace(t *testing.T) {
	p := loadTools(t, helperTool("find", "echo", map[string]any{"namespace": "files__"}), helperTool("plain", "echo", nil))
	ns := func(s string) *string { return &s }
	for _, name := range []codemode.ToolName{{Name: "find", Namespace: ns("files__")}, {Name: "plain"}, {Name: "plain", Namespace: ns("")}, {Name: "plain", Namespace: ns("functions")}} {
		if _, err := p.InvokeTool(context.Background(), codemode.NestedToolCall{ToolName: name, ToolKind: codemode.ToolKindFunction}); err != nil {
			t.Errorf("%v: %v", name, err)
		}
	}
	if _, err := p.InvokeTool(context.Background(), codemode.NestedToolCall{ToolName: codemode.ToolName{Name: "find"}, ToolKind: codemode.ToolKindFunction}); err == nil ||
		err.Error() != "code-mode tool find is not enabled for this execution" {
		t.Errorf("find without its namespace: %v", err)
	}
}

func TestWorkingDirectoryIsTheManifestsOrDir(t *testing.T) {
	base := t.TempDir()
	if err := os.Mkdir(filepath.Join(base, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(map[string]any{"tools": []any{helperTool("here", "echo", nil), helperTool("there", "echo", map[string]any{"dir": "sub"})}})
	path := filepath.Join(base, "tools.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if dir := callEcho(t, p, "here", codemode.ToolKindFunction, "").Dir; dir != base {
		t.Errorf("here ran in %s, want %s", dir, base)
	}
	if dir := callEcho(t, p, "there", codemode.ToolKindFunction, "").Dir; dir != filepath.Join(base, "sub") {
		t.Errorf("there ran in %s, want %s/sub", dir, base)
	}
}
