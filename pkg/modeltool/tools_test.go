package modeltool

import (
	"encoding/json"
	"testing"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// Codex: core wait_spec.rs create_wait_tool_matches_expected_spec.
func TestWaitToolMatchesCodexSpec(t *testing.T) {
	tool := waitTool()
	wantDescription := "Waits on a yielded `exec` cell and returns new output or completion.\n" +
		"- Use `wait` only after `exec` returns `Script running with cell ID ...`.\n" +
		"- `cell_id` identifies the running `exec` cell to resume.\n" +
		"- `yield_time_ms` controls how long to wait for more output before yielding again. Defaults to 10000 ms.\n" +
		"- `max_tokens` limits how much new output this wait call returns. Defaults to 10000 tokens.\n" +
		"- `terminate: true` stops the running cell; false or omitted waits for output.\n" +
		"- `wait` returns only the new output since the last yield, or the final completion or termination result for that cell.\n" +
		"- If the cell is still running, `wait` may yield again with the same `cell_id`.\n" +
		"- If the cell has already finished, `wait` returns the completed result and closes the cell."
	if tool.Name != "wait" || tool.Strict || tool.Description != wantDescription {
		t.Fatalf("got %q strict=%v\n%s", tool.Name, tool.Strict, tool.Description)
	}
	raw, err := json.Marshal(tool)
	if err != nil {
		t.Fatal(err)
	}
	wantJSON := `{"type":"function","name":"wait","description":` + string(mustMarshal(t, wantDescription)) +
		`,"strict":false,"parameters":{"type":"object","properties":{` +
		`"cell_id":{"type":"string","description":"Identifier of the running exec cell."},` +
		`"max_tokens":{"type":"number","description":"Output token budget for this wait call. Defaults to 10000 tokens."},` +
		`"terminate":{"type":"boolean","description":"True stops the running exec cell; false or omitted waits for output."},` +
		`"yield_time_ms":{"type":"number","description":"Wait before yielding more output. Defaults to 10000 ms."}},` +
		`"required":["cell_id"],"additionalProperties":false}}`
	if string(raw) != wantJSON {
		t.Fatalf("got  %s\nwant %s", raw, wantJSON)
	}
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// Codex: core execute_spec.rs create_code_mode_tool_matches_expected_spec (format part).
func TestExecToolIsAFreeformLarkTool(t *testing.T) {
	tool := execTool(execDescriptionOptions{})
	if tool.Name != codemode.PublicToolName {
		t.Errorf("name %q", tool.Name)
	}
	if tool.Description != buildExecToolDescription(execDescriptionOptions{}) {
		t.Error("description differs from buildExecToolDescription")
	}
	wantGrammar := "\nstart: pragma_source | plain_source\npragma_source: PRAGMA_LINE NEWLINE SOURCE\nplain_source: SOURCE\n\n" +
		"PRAGMA_LINE: /[ \\t]*\\/\\/ @exec:[^\\r\\n]*/\nNEWLINE: /\\r?\\n/\nSOURCE: /[\\s\\S]+/\n"
	if tool.Format != (grammarFormat{Type: "grammar", Syntax: "lark", Definition: wantGrammar}) {
		t.Errorf("format %+v", tool.Format)
	}
	raw, err := json.Marshal(tool)
	if err != nil {
		t.Fatal(err)
	}
	var decoded map[string]any
	if err := json.Unmarshal(raw, &decoded); err != nil {
		t.Fatal(err)
	}
	if decoded["type"] != "custom" || decoded["format"].(map[string]any)["syntax"] != "lark" {
		t.Errorf("wire shape %s", raw)
	}
}

func TestIsNestedTool(t *testing.T) {
	for name, want := range map[string]bool{"exec": false, "wait": false, "exec_command": true, "": true} {
		if got := isNestedTool(name); got != want {
			t.Errorf("isNestedTool(%q) = %v", name, got)
		}
	}
}
