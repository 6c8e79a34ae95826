package mcptools

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// Namespace is the ToolName namespace of a server's tools, "mcp__{server}__": the one Codex gives
// MCP tools, so a script written for Codex finds them under the same names.
func Namespace(server string) string { return "mcp__" + server + "__" }

// definition is what cells see of a server's tool, in the shape Codex's parse_mcp_tool gives it,
// which models trained against Codex read: named mcp__{server}__{tool}, the server's description,
// its input schema (with an empty "properties" added when an object schema has none, since the
// OpenAI API refuses an object schema without it), and as output schema MCP's CallToolResult
// around the tool's outputSchema ({} without one), which the exec tool's description renders as
// CallToolResult<…>.
func definition(server string, tool *mcp.Tool) (codemode.ToolDefinition, error) {
	ns := Namespace(server)
	input, err := inputSchema(tool.InputSchema)
	if err != nil {
		return codemode.ToolDefinition{}, fmt.Errorf("tool %q has an input schema codemode cannot read: %w", tool.Name, err)
	}
	structured := json.RawMessage("{}")
	if tool.OutputSchema != nil {
		if structured, err = json.Marshal(tool.OutputSchema); err != nil {
			return codemode.ToolDefinition{}, fmt.Errorf("tool %q has an output schema codemode cannot read: %w", tool.Name, err)
		}
	}
	return codemode.ToolDefinition{
		Name:         ns + tool.Name,
		ToolName:     codemode.ToolName{Name: tool.Name, Namespace: &ns},
		Description:  tool.Description,
		Kind:         codemode.ToolKindFunction,
		InputSchema:  input,
		OutputSchema: CallToolResultSchema(structured),
	}, nil
}

// inputSchema is the tool's input schema as JSON, with "properties": {} added to an object
// schema that has none (or null): the OpenAI API requires "properties" of an object schema, and a
// tool the model cannot be shown is no use.
func inputSchema(schema any) (json.RawMessage, error) {
	if schema == nil {
		return json.RawMessage(`{"type":"object","properties":{}}`), nil
	}
	raw, err := json.Marshal(schema)
	if err != nil {
		return nil, err
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil {
		return raw, nil // not an object: leave it to the runtime's schema compiler
	}
	if p, ok := fields["properties"]; ok && string(p) != "null" {
		return raw, nil
	}
	fields["properties"] = json.RawMessage("{}")
	return json.Marshal(fields)
}

// CallToolResultSchema wraps a tool's structured-content schema in MCP's CallToolResult, the
// output schema Codex's mcp_call_tool_result_output_schema gives an MCP tool, which the exec
// description shows a model trained against Codex: content (an array of objects, required),
// structuredContent, isError (a boolean) and _meta (an object), nothing else.
func CallToolResultSchema(structuredContent json.RawMessage) json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"content":{"type":"array","items":{"type":"object"}},` +
		`"structuredContent":` + string(structuredContent) + `,` +
		`"isError":{"type":"boolean"},` +
		`"_meta":{"type":"object"}},` +
		`"required":["content"],"additionalProperties":false}`)
}

// callToolResult is the JSON a cell's promise resolves with: MCP's CallToolResult in the shape
// Codex gives code mode (content always, the rest when present), which the exec description
// declares and scripts written for Codex read.
type callToolResult struct {
	Content           []mcp.Content `json:"content"`
	StructuredContent any           `json:"structuredContent,omitempty"`
	IsError           bool          `json:"isError,omitempty"`
	Meta              mcp.Meta      `json:"_meta,omitempty"`
}

// result turns a tools/call result into what the cell gets: the CallToolResult as JSON, or,
// when the server set isError, an error with the result's text.
func (s *server) result(global string, res *mcp.CallToolResult) (json.RawMessage, error) {
	if res.IsError {
		return nil, fmt.Errorf("%s", errorText(global, res))
	}
	content := res.Content
	if content == nil {
		content = []mcp.Content{}
	}
	out, err := json.Marshal(callToolResult{Content: content, StructuredContent: res.StructuredContent, Meta: res.Meta})
	if err != nil {
		return nil, fmt.Errorf("MCP tool `%s` returned a result codemode cannot encode: %w", global, err)
	}
	if len(out) > s.spec.MaxResultBytes {
		return nil, fmt.Errorf("MCP tool `%s` returned a result of %d bytes, more than its server's max_result_bytes (%d)", global, len(out), s.spec.MaxResultBytes)
	}
	return out, nil
}

// errorText is the text an isError result rejects its promise with: its text blocks, one per
// line; without any, the content as JSON.
func errorText(global string, res *mcp.CallToolResult) string {
	var texts []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			texts = append(texts, t.Text)
		}
	}
	if text := strings.TrimSpace(strings.Join(texts, "\n")); text != "" {
		return text
	}
	raw, _ := json.Marshal(res.Content)
	return fmt.Sprintf("MCP tool `%s` failed (isError) with no text: %s", global, raw)
}
