package modeltool

import (
	"strings"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// NestedToolsReference returns the part of exec's description that presents the nested tools,
// exactly as ExecToolDescription ends with it: "Shared MCP Types:" (once, when a tool returns an
// MCP CallToolResult), then one section per tool with its description and TypeScript
// declaration, separated by blank lines; "" without tools. Front ends that write their own
// helper reference for exec (codemode mcp) append it, so their models read the tools in the
// form Codex's exec description gives them.
func NestedToolsReference(tools []codemode.ToolDefinition) string {
	var sections []string
	if anyMCPTool(tools) {
		sections = append(sections, "Shared MCP Types:\n```ts\n"+mcpTypeScriptPreamble+"\n```")
	}
	if len(tools) > 0 {
		sections = append(sections, nestedToolReference(tools, nil))
	}
	return strings.Join(sections, "\n\n")
}
