package modeltool

import (
	"encoding/json"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// ExecToolDescription returns the exec tool's description as a model sees it in a session whose
// nested tools, tools, are reachable only through exec (Codex's code-mode-only mode): the helper
// reference, then each tool's section with its TypeScript declaration.
func ExecToolDescription(tools []codemode.ToolDefinition) string {
	return buildExecToolDescription(codeModeOnly(tools))
}

// WaitToolDescription returns the wait tool's description.
func WaitToolDescription() string { return waitToolDescription }

// WaitToolParameters returns the JSON Schema of the wait tool's arguments object, with Codex's
// property descriptions: cell_id (required), yield_time_ms, max_tokens and terminate, and no
// other properties.
func WaitToolParameters() json.RawMessage { return json.RawMessage(waitParameters) }

// ModelToolsJSON returns the exec and wait tools in the Responses API's JSON shape, as a JSON
// array (exec first), for a code-mode-only session whose nested tools are tools.
func ModelToolsJSON(tools []codemode.ToolDefinition) ([]byte, error) {
	return json.Marshal([]any{execTool(codeModeOnly(tools)), waitTool()})
}

func codeModeOnly(tools []codemode.ToolDefinition) execDescriptionOptions {
	return execDescriptionOptions{EnabledTools: tools, CodeModeOnly: true}
}
