package modeltool

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/codemodehq/codemode/pkg/codemode"
)

func plainName(name string) codemode.ToolName { return codemode.ToolName{Name: name} }

func namespacedName(namespace, name string) codemode.ToolName {
	return codemode.ToolName{Name: name, Namespace: &namespace}
}

// mcpCallToolResultSchema wraps a structuredContent schema in an MCP CallToolResult schema.
func mcpCallToolResultSchema(structured string) json.RawMessage {
	return json.RawMessage(`{
		"type": "object",
		"properties": {
			"content": {"type": "array", "items": {"type": "object"}},
			"structuredContent": ` + structured + `,
			"isError": {"type": "boolean"},
			"_meta": {"type": "object"}
		},
		"required": ["content"],
		"additionalProperties": false
	}`)
}

const emptyClosedObject = `{"type": "object", "properties": {}, "additionalProperties": false}`

func mustContain(t *testing.T, text, fragment string) {
	t.Helper()
	if !strings.Contains(text, fragment) {
		t.Errorf("missing %q in:\n%s", fragment, text)
	}
}

// Codex: description.rs normalize_identifier_rewrites_invalid_characters.
func TestNormalizeIdentifierRewritesInvalidCharacters(t *testing.T) {
	cases := map[string]string{
		"mcp__ologs__get_profile": "mcp__ologs__get_profile",
		"hidden-dynamic-tool":     "hidden_dynamic_tool",
		"":                        "_",
		"9lives":                  "_lives",
		"$ok_9":                   "$ok_9",
		"a.b c":                   "a_b_c",
		"héllo":                   "h_llo",
		"日本":                      "__",
	}
	for in, want := range cases {
		if got := NormalizeIdentifier(in); got != want {
			t.Errorf("NormalizeIdentifier(%q) = %q, want %q", in, got, want)
		}
	}
}

// Codex: description.rs augment_tool_definition_appends_typed_declaration.
func TestAugmentToolDefinitionAppendsTypedDeclaration(t *testing.T) {
	def := augmentToolDefinition(codemode.ToolDefinition{
		Name:         "hidden_dynamic_tool",
		ToolName:     plainName("hidden_dynamic_tool"),
		Description:  "Test tool",
		Kind:         codemode.ToolKindFunction,
		InputSchema:  json.RawMessage(`{"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"], "additionalProperties": false}`),
		OutputSchema: json.RawMessage(`{"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}`),
	})
	want := "Test tool\n\nexec tool declaration:\n```ts\n" +
		"declare const tools: { hidden_dynamic_tool(args: { city: string; }): Promise<{ ok: boolean; }>; };\n```"
	if def.Description != want {
		t.Fatalf("got:\n%s\nwant:\n%s", def.Description, want)
	}
}

// Codex: description.rs augment_tool_definition_includes_property_descriptions_as_comments.
func TestAugmentToolDefinitionIncludesPropertyDescriptionsAsComments(t *testing.T) {
	def := augmentToolDefinition(codemode.ToolDefinition{
		Name:        "weather_tool",
		ToolName:    plainName("weather_tool"),
		Description: "Weather tool",
		Kind:        codemode.ToolKindFunction,
		InputSchema: json.RawMessage(`{"type": "object", "properties": {"weather": {
			"type": "array",
			"description": "look up weather for a given list of locations",
			"items": {"type": "object", "properties": {"location": {"type": "string"}}, "required": ["location"]}
		}}, "required": ["weather"]}`),
		OutputSchema: json.RawMessage(`{"type": "object", "properties": {"forecast": {
			"type": "string", "description": "human readable weather forecast"
		}}, "required": ["forecast"]}`),
	})
	mustContain(t, def.Description, `weather_tool(args: {
  // look up weather for a given list of locations
  weather: Array<{ location: string; }>;
}): Promise<{
  // human readable weather forecast
  forecast: string;
}>;`)
}

// Codex: description.rs code_mode_types_structured_content_result_refs.
func TestCodeModeTypesStructuredContentResultRefs(t *testing.T) {
	def := augmentToolDefinition(codemode.ToolDefinition{
		Name:        "mcp__sample__search",
		ToolName:    namespacedName("mcp__sample__", "search"),
		Description: "Search",
		Kind:        codemode.ToolKindFunction,
		InputSchema: json.RawMessage(emptyClosedObject),
		OutputSchema: mcpCallToolResultSchema(`{
			"type": "object",
			"properties": {"results": {"type": "array", "items": {"$ref": "#/definitions/Result~1item~0v1"}}},
			"required": ["results"],
			"additionalProperties": false,
			"definitions": {"Result/item~v1": {
				"type": "object",
				"properties": {"id": {"type": "string"}, "score": {"type": "number"}},
				"required": ["id", "score"],
				"additionalProperties": false
			}}
		}`),
	})
	mustContain(t, def.Description,
		"mcp__sample__search(args: {}): Promise<CallToolResult<{ results: Array<{ id: string; score: number; }>; }>>;")
}

func TestAugmentToolDefinitionKinds(t *testing.T) {
	exec := codemode.ToolDefinition{Name: "exec", Description: "unchanged", Kind: codemode.ToolKindFreeform}
	if got := augmentToolDefinition(exec).Description; got != "unchanged" {
		t.Errorf("exec itself was augmented: %q", got)
	}
	cases := []struct {
		def  codemode.ToolDefinition
		want string
	}{
		{codemode.ToolDefinition{Name: "apply-patch", Kind: codemode.ToolKindFreeform, Description: "Patch"},
			"apply_patch(input: string): Promise<unknown>;"},
		{codemode.ToolDefinition{Name: "no_schema", Kind: codemode.ToolKindFunction},
			"no_schema(args: unknown): Promise<unknown>;"},
		{codemode.ToolDefinition{Name: "mcp_no_structured", Kind: codemode.ToolKindFunction,
			OutputSchema: json.RawMessage(`{"properties": {"content": {"type": "array", "items": {"type": "object"}},
				"isError": {"type": "boolean"}, "_meta": {"type": "object"}}}`)},
			"mcp_no_structured(args: unknown): Promise<CallToolResult>;"},
	}
	for _, tc := range cases {
		if got := toolDeclaration(tc.def); got != tc.want {
			t.Errorf("toolDeclaration(%s) = %q, want %q", tc.def.Name, got, tc.want)
		}
	}
}

// Codex: description.rs code_mode_only_description_includes_nested_tools.
func TestCodeModeOnlyDescriptionIncludesNestedTools(t *testing.T) {
	description := buildExecToolDescription(execDescriptionOptions{
		EnabledTools: []codemode.ToolDefinition{{
			Name: "foo", ToolName: plainName("foo"), Description: "bar", Kind: codemode.ToolKindFunction,
		}},
		CodeModeOnly: true,
	})
	mustContain(t, description, "### `foo`\nbar")
	if strings.Contains(description, "do not attempt to use any other tools directly") {
		t.Error("description tells the model to avoid other tools")
	}
	wantTail := "\n\n### `foo`\nbar\n\nexec tool declaration:\n```ts\ndeclare const tools: { foo(args: unknown): Promise<unknown>; };\n```"
	if !strings.HasSuffix(description, wantTail) {
		t.Errorf("description does not end with the tool section:\n%s", description)
	}
}

// Codex: description.rs exec_description_mentions_timeout_helpers.
func TestExecDescriptionMentionsTimeoutHelpers(t *testing.T) {
	description := buildExecToolDescription(execDescriptionOptions{})
	mustContain(t, description, "`audio(audioUrlOrItem:")
	mustContain(t, description, "`setTimeout(callback: () => void, delayMs?: number)`")
	mustContain(t, description, "`clearTimeout(timeoutId?: number)`")
}

// Codex: description.rs code_mode_only_description_groups_namespace_instructions_once.
func TestCodeModeOnlyDescriptionGroupsNamespaceInstructionsOnce(t *testing.T) {
	tool := func(name, description string) codemode.ToolDefinition {
		return codemode.ToolDefinition{
			Name: "mcp__sample__" + name, ToolName: namespacedName("mcp__sample__", name),
			Description: description, Kind: codemode.ToolKindFunction,
			InputSchema: json.RawMessage(emptyClosedObject), OutputSchema: mcpCallToolResultSchema(emptyClosedObject),
		}
	}
	description := buildExecToolDescription(execDescriptionOptions{
		EnabledTools: []codemode.ToolDefinition{tool("alpha", "First tool"), tool("beta", "Second tool")},
		Namespaces: map[string]toolNamespaceDescription{
			"mcp__sample__": {Name: "mcp__sample", Description: "Shared namespace guidance."},
		},
		CodeModeOnly: true,
	})
	if n := strings.Count(description, "## mcp__sample"); n != 1 {
		t.Errorf("namespace heading appears %d times", n)
	}
	mustContain(t, description, "## mcp__sample\nShared namespace guidance.")
	mustContain(t, description, "declare const tools: { mcp__sample__alpha(args: {}): Promise<CallToolResult<{}>>; };")
	mustContain(t, description, "declare const tools: { mcp__sample__beta(args: {}): Promise<CallToolResult<{}>>; };")
	mustContain(t, description, "```\n\n## mcp__sample\nShared namespace guidance.\n\n### `mcp__sample__alpha`\nFirst tool\n\n")
}

// Codex: description.rs code_mode_only_description_omits_empty_namespace_sections.
func TestCodeModeOnlyDescriptionOmitsEmptyNamespaceSections(t *testing.T) {
	description := buildExecToolDescription(execDescriptionOptions{
		EnabledTools: []codemode.ToolDefinition{{
			Name: "mcp__sample__alpha", ToolName: namespacedName("mcp__sample__", "alpha"),
			Description: "First tool", Kind: codemode.ToolKindFunction,
			InputSchema: json.RawMessage(emptyClosedObject), OutputSchema: mcpCallToolResultSchema(emptyClosedObject),
		}},
		Namespaces:   map[string]toolNamespaceDescription{"mcp__sample__": {Name: "mcp__sample", Description: "  "}},
		CodeModeOnly: true,
	})
	if strings.Contains(description, "## mcp__sample") {
		t.Error("empty namespace section rendered")
	}
	mustContain(t, description, "### `mcp__sample__alpha`")
}

func TestCodeModeOnlyDescriptionRepeatsNamespaceAfterAnInterruption(t *testing.T) {
	ns := func(name string) codemode.ToolDefinition {
		return codemode.ToolDefinition{Name: "mcp__a__" + name, ToolName: namespacedName("mcp__a__", name), Description: name}
	}
	description := buildExecToolDescription(execDescriptionOptions{
		EnabledTools: []codemode.ToolDefinition{ns("one"), {Name: "plain-tool", ToolName: plainName("plain-tool"), Description: "p"}, ns("two")},
		Namespaces:   map[string]toolNamespaceDescription{"mcp__a__": {Name: "mcp__a", Description: "A tools."}},
		CodeModeOnly: true,
	})
	if n := strings.Count(description, "## mcp__a\nA tools."); n != 2 {
		t.Errorf("namespace section appears %d times, want 2 (one per run)", n)
	}
	mustContain(t, description, "### `plain_tool` (`plain-tool`)\np\n\nexec tool declaration:")
}

// Codex: description.rs code_mode_only_description_renders_shared_mcp_types_once.
func TestCodeModeOnlyDescriptionRendersSharedMCPTypesOnce(t *testing.T) {
	first := augmentToolDefinition(codemode.ToolDefinition{
		Name: "mcp__sample__alpha", ToolName: namespacedName("mcp__sample__", "alpha"), Description: "First tool",
		Kind: codemode.ToolKindFunction, InputSchema: json.RawMessage(emptyClosedObject),
		OutputSchema: mcpCallToolResultSchema(`{"type": "object", "properties": {"echo": {"type": "string"}}, "required": ["echo"], "additionalProperties": false}`),
	})
	second := augmentToolDefinition(codemode.ToolDefinition{
		Name: "mcp__sample__beta", ToolName: namespacedName("mcp__sample__", "beta"), Description: "Second tool",
		Kind: codemode.ToolKindFunction, InputSchema: json.RawMessage(emptyClosedObject),
		OutputSchema: mcpCallToolResultSchema(`{"type": "object", "properties": {"count": {"type": "integer"}}, "required": ["count"], "additionalProperties": false}`),
	})
	first.Description, second.Description = "First tool", "Second tool"
	description := buildExecToolDescription(execDescriptionOptions{
		EnabledTools: []codemode.ToolDefinition{first, second},
		CodeModeOnly: true,
	})
	if n := strings.Count(description, "type CallToolResult<TStructured = { [key: string]: unknown }>"); n != 1 {
		t.Errorf("CallToolResult defined %d times", n)
	}
	if n := strings.Count(description, "Shared MCP Types:"); n != 1 {
		t.Errorf("Shared MCP Types appears %d times", n)
	}
	mustContain(t, description, "Shared MCP Types:\n```ts\ntype Role = \"user\" | \"assistant\";\n")
	mustContain(t, description, "  [key: string]: unknown;\n};\n```\n\n### `mcp__sample__alpha`\nFirst tool\n")
	mustContain(t, description, "mcp__sample__beta(args: {}): Promise<CallToolResult<{ count: number; }>>;")
}

// Codex: description.rs code_mode_only_description_renders_shared_mcp_types_for_deferred_tools.
func TestCodeModeOnlyDescriptionRendersSharedMCPTypesForDeferredTools(t *testing.T) {
	description := buildExecToolDescription(execDescriptionOptions{
		DeferredTools: []codemode.ToolDefinition{{
			Name: "mcp__sample__alpha", ToolName: namespacedName("mcp__sample__", "alpha"), Description: "Deferred tool",
			Kind: codemode.ToolKindFunction, InputSchema: json.RawMessage(emptyClosedObject),
			OutputSchema: mcpCallToolResultSchema(emptyClosedObject),
		}},
		CodeModeOnly: true,
	})
	mustContain(t, description, "Some deferred nested tools may be omitted")
	mustContain(t, description, "Shared MCP Types:")
	if strings.Contains(description, "### `mcp__sample__alpha`") {
		t.Error("deferred tool was described")
	}
}

// Codex: description.rs exec_description_mentions_deferred_nested_tools_when_available.
func TestExecDescriptionMentionsDeferredNestedToolsWhenAvailable(t *testing.T) {
	description := buildExecToolDescription(execDescriptionOptions{
		DeferredTools: []codemode.ToolDefinition{{
			Name: "deferred_tool", ToolName: plainName("deferred_tool"), Description: "Deferred tool", Kind: codemode.ToolKindFunction,
		}},
	})
	mustContain(t, description, "Some deferred nested tools may be omitted")
	mustContain(t, description, "filter `ALL_TOOLS` by `name` and `description`")
	if strings.Contains(description, "do not print the full `ALL_TOOLS` array") {
		t.Error("unexpected ALL_TOOLS printing advice")
	}
	if !strings.HasSuffix(description, "keeps running.\n\nSome deferred nested tools may be omitted from this description. "+
		"They are still available on the global `tools` object and listed in `ALL_TOOLS`.\n"+
		"To find one, filter `ALL_TOOLS` by `name` and `description`.") {
		t.Errorf("deferred paragraph not appended as its own section:\n%s", description)
	}
}

func TestExecDescriptionDefaultsAndImageVisibility(t *testing.T) {
	visible := buildExecToolDescription(execDescriptionOptions{})
	if !strings.HasPrefix(visible, "Run JavaScript code to orchestrate/compose tool calls\n- Evaluates the provided JavaScript code in a fresh V8 isolate as an async module.\n") {
		t.Errorf("unexpected start:\n%s", visible)
	}
	if !strings.HasSuffix(visible, "- `yield_control()`: yields the accumulated output to the model immediately while the script keeps running.") {
		t.Errorf("unexpected end:\n%s", visible)
	}
	mustContain(t, visible, "- `yield_time_ms` asks `exec` to yield early if the script is still running. Defaults to 10000 ms.\n")
	mustContain(t, visible, "\n- `image(imageUrlOrItem: string | { image_url: string; detail?: \"auto\" | \"low\" | \"high\" | \"original\" | null } | ImageContent, detail?: ")
	// 10 usage bullets, the "Global helpers:" line and 12 helper bullets.
	if n := strings.Count(visible, "\n- "); n != 23 {
		t.Errorf("got %d bullets, want 23", n)
	}

	configured := buildExecToolDescription(execDescriptionOptions{DefaultExecYieldTimeMs: 2500, HideImageDetail: true})
	mustContain(t, configured, "yield early if the script is still running. Defaults to 2500 ms.\n")
	mustContain(t, configured, "- `max_output_tokens` sets the token budget for direct `exec` results. Defaults to 10000 tokens.\n")
	mustContain(t, configured, "\n- `image(imageUrlOrItem: string | { image_url: string } | ImageContent)`: Appends an image item. "+
		"`image_url` should be a base64-encoded `data:` URL. To forward an MCP tool image, pass an individual "+
		"`ImageContent` block from `result.content`, for example `image(result.content[0])`.\n- `audio(")
	if strings.Contains(configured, "detail") {
		t.Error("hidden image detail still mentions detail")
	}
	if strings.Contains(configured, "Shared MCP Types") || strings.Contains(configured, "###") {
		t.Error("non-code-mode-only description has tool sections")
	}
}

// TestAugmentToolDefinitionAppendsTheDeclaration: the description gains the TypeScript
// declaration under which the model calls the tool, with the name normalized.
func TestAugmentToolDefinitionAppendsTheDeclaration(t *testing.T) {
	def := augmentToolDefinition(codemode.ToolDefinition{
		Name:        "get-weather",
		ToolName:    codemode.ToolName{Name: "get-weather"},
		Description: "Look up the weather.",
		Kind:        codemode.ToolKindFunction,
		InputSchema: json.RawMessage(`{"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}`),
	})
	want := "Look up the weather.\n\nexec tool declaration:\n```ts\ndeclare const tools: { get_weather(args: { city: string; }): Promise<unknown>; };\n```"
	if def.Description != want {
		t.Errorf("got\n%s\nwant\n%s", def.Description, want)
	}
}
