package modeltool_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/modeltool"
)

// NestedToolsReference is the tail of Codex's code-mode-only exec description, byte for byte,
// with and without an MCP-shaped tool; without tools it is empty.
func TestNestedToolsReferenceIsTheTailOfExecDescription(t *testing.T) {
	mcpOutput := json.RawMessage(`{"type":"object","properties":{"content":{"type":"array","items":{"type":"object"}},"isError":{"type":"boolean"},"_meta":{"type":"object"}}}`)
	plain := codemode.ToolDefinition{Name: "add", ToolName: codemode.ToolName{Name: "add"}, Description: "Adds.", Kind: codemode.ToolKindFunction,
		InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"number"}}}`)}
	mcpTool := codemode.ToolDefinition{Name: "mcp__notes__read", ToolName: codemode.ToolName{Name: "read"}, Description: "Reads a note.",
		Kind: codemode.ToolKindFunction, OutputSchema: mcpOutput}
	for _, tools := range [][]codemode.ToolDefinition{{plain}, {plain, mcpTool}} {
		ref := modeltool.NestedToolsReference(tools)
		if full := modeltool.ExecToolDescription(tools); !strings.HasSuffix(full, "\n\n"+ref) || strings.HasPrefix(ref, "\n") {
			t.Errorf("the reference is not the tail of the description:\n%s\n--- full:\n%s", ref, full)
		}
		if !strings.Contains(ref, "declare const tools: { add(args: { a?: number; }): Promise<unknown>; };") {
			t.Errorf("the reference lacks add's declaration:\n%s", ref)
		}
		if got, want := strings.Contains(ref, "Shared MCP Types:"), len(tools) == 2; got != want {
			t.Errorf("Shared MCP Types shown %v, want %v", got, want)
		}
	}
	if ref := modeltool.NestedToolsReference(nil); ref != "" {
		t.Errorf("without tools: %q", ref)
	}
}
