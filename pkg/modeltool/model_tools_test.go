package modeltool

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// The exported views of the model's tools are the internal ones, in code-mode-only form.
func TestModelToolsExportsAreTheCodeModeOnlyTools(t *testing.T) {
	tools := []codemode.ToolDefinition{{Name: "foo", ToolName: codemode.ToolName{Name: "foo"}, Description: "bar", Kind: codemode.ToolKindFunction}}
	opts := execDescriptionOptions{EnabledTools: tools, CodeModeOnly: true}
	got := ExecToolDescription(tools)
	if got != buildExecToolDescription(opts) || !strings.HasSuffix(got, "declare const tools: { foo(args: unknown): Promise<unknown>; };\n```") {
		t.Errorf("ExecToolDescription:\n%s", got)
	}
	if WaitToolDescription() != waitTool().Description {
		t.Error("WaitToolDescription differs from the wait tool's")
	}
	raw, err := ModelToolsJSON(tools)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal([]any{execTool(opts), waitTool()})
	if string(raw) != string(want) {
		t.Errorf("ModelToolsJSON:\n%s\nwant:\n%s", raw, want)
	}
}
