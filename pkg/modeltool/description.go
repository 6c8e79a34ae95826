package modeltool

import (
	"strconv"
	"strings"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/serdejson"
)

// toolNamespaceDescription describes a namespace of nested tools (for example an MCP
// server) once, above the first of its tools in a code-mode-only description.
type toolNamespaceDescription struct {
	// Name is shown as the section heading "## {Name}".
	Name string
	// Description is the section text; a blank description omits the section.
	Description string
}

// execDescriptionOptions selects what the exec tool description contains.
type execDescriptionOptions struct {
	// EnabledTools are the nested tools callable from the cell, in presentation order.
	EnabledTools []codemode.ToolDefinition
	// DeferredTools are callable tools left out of the description; any deferred tool adds
	// a paragraph on finding tools through ALL_TOOLS.
	DeferredTools []codemode.ToolDefinition
	// Namespaces maps a ToolName namespace (for example "mcp__sample__") to its description.
	Namespaces map[string]toolNamespaceDescription
	// DefaultExecYieldTimeMs is the yield default quoted to the model; zero selects
	// codemode.DefaultExecYieldTimeMs.
	DefaultExecYieldTimeMs uint64
	// CodeModeOnly appends the per-tool declarations (and the shared MCP types), for
	// sessions where nested tools are reachable only through exec.
	CodeModeOnly bool
	// HideImageDetail describes image() without its `detail` parameters, for models that
	// cannot request a detail; by default they are documented.
	HideImageDetail bool
}

// buildExecToolDescription returns the exec tool description that Codex's
// build_exec_tool_description composes, byte for byte, because a model trained against Codex reads
// it (see the package doc; docs/protocol/javascript.md#the-exec-tool): the helper reference, then
// the deferred-tools paragraph when deferred tools exist; in code-mode-only mode also "Shared MCP
// Types:" (once, when any enabled or deferred tool has an MCP CallToolResult output schema) and
// one section per enabled tool, each preceded by its namespace section the first time a namespace
// run starts. Sections are separated by a blank line.
func buildExecToolDescription(opts execDescriptionOptions) string {
	yieldDefault := opts.DefaultExecYieldTimeMs
	if yieldDefault == 0 {
		yieldDefault = codemode.DefaultExecYieldTimeMs
	}
	base := strings.ReplaceAll(execDescriptionTemplate, execYieldDefaultSentence,
		"Defaults to "+strconv.FormatUint(yieldDefault, 10)+" ms.")
	if opts.HideImageDetail {
		base = strings.ReplaceAll(base, imageHelperVisible, imageHelperHidden)
	}
	sections := []string{base}
	if len(opts.DeferredTools) > 0 {
		sections = append(sections, deferredNestedToolsGuidance)
	}
	if !opts.CodeModeOnly {
		return strings.Join(sections, "\n\n")
	}
	if anyMCPTool(opts.EnabledTools) || anyMCPTool(opts.DeferredTools) {
		sections = append(sections, "Shared MCP Types:\n```ts\n"+mcpTypeScriptPreamble+"\n```")
	}
	if len(opts.EnabledTools) > 0 {
		sections = append(sections, nestedToolReference(opts.EnabledTools, opts.Namespaces))
	}
	return strings.Join(sections, "\n\n")
}

// nestedToolReference renders the per-tool sections of a code-mode-only description.
func nestedToolReference(tools []codemode.ToolDefinition, namespaces map[string]toolNamespaceDescription) string {
	var sections []string
	var currentNamespace *string
	for _, tool := range tools {
		var namespace *toolNamespaceDescription
		if tool.ToolName.Namespace != nil {
			if ns, ok := namespaces[*tool.ToolName.Namespace]; ok {
				namespace = &ns
			}
		}
		var nextNamespace *string
		if namespace != nil {
			nextNamespace = &namespace.Name
		}
		if !sameOptionalString(nextNamespace, currentNamespace) {
			if namespace != nil {
				if text := strings.TrimSpace(namespace.Description); text != "" {
					sections = append(sections, "## "+namespace.Name+"\n"+text)
				}
			}
			currentNamespace = nextNamespace
		}
		heading := toolHeading(NormalizeIdentifier(tool.Name), tool.Name)
		if sample := strings.TrimSpace(toolSample(tool)); sample != "" {
			sections = append(sections, heading+"\n"+sample)
		} else {
			sections = append(sections, heading)
		}
	}
	return strings.Join(sections, "\n\n")
}

func sameOptionalString(a, b *string) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

func toolHeading(globalName, rawName string) string {
	if globalName == rawName {
		return "### `" + globalName + "`"
	}
	return "### `" + globalName + "` (`" + rawName + "`)"
}

// augmentToolDefinition appends the tool's TypeScript declaration to its description in the
// layout of Codex's augment_tool_definition (for every tool but exec itself), which a model
// trained against Codex reads:
//
//	{description}
//
//	exec tool declaration:
//	```ts
//	declare const tools: { {id}(args: {Input}): Promise<{Output}>; };
//	```
func augmentToolDefinition(def codemode.ToolDefinition) codemode.ToolDefinition {
	if def.Name != codemode.PublicToolName {
		def.Description = toolSample(def)
	}
	return def
}

// isNestedTool reports whether a tool name can be exposed inside exec: every tool but exec
// and wait.
func isNestedTool(name string) bool {
	return name != codemode.PublicToolName && name != codemode.WaitToolName
}

// toolDeclaration returns the one-line TypeScript declaration of a nested tool, for example
// `weather(args: { city: string; }): Promise<unknown>;`. Function tools take `args` typed by
// their input schema (unknown without one); freeform tools take `input: string`. MCP-shaped
// output schemas render as CallToolResult<structured content>.
func toolDeclaration(def codemode.ToolDefinition) string {
	inputName, inputType := "args", "unknown"
	if def.Kind == codemode.ToolKindFreeform {
		inputName, inputType = "input", "string"
	} else if len(def.InputSchema) > 0 {
		inputType = renderJSONSchemaToTypeScript(def.InputSchema)
	}
	return NormalizeIdentifier(def.Name) + "(" + inputName + ": " + inputType + "): Promise<" +
		toolOutputType(def.OutputSchema) + ">;"
}

func toolSample(def codemode.ToolDefinition) string {
	return def.Description + "\n\nexec tool declaration:\n```ts\ndeclare const tools: { " +
		toolDeclaration(def) + " };\n```"
}

func toolOutputType(outputSchema []byte) string {
	if len(outputSchema) == 0 {
		return "unknown"
	}
	root, err := serdejson.Parse(outputSchema)
	if err != nil {
		return "unknown"
	}
	if structured := mcpStructuredContentSchema(root); structured != nil {
		rendered := renderSchema(structured)
		if rendered == "unknown" {
			return "CallToolResult"
		}
		return "CallToolResult<" + rendered + ">"
	}
	return renderSchema(root)
}

func anyMCPTool(tools []codemode.ToolDefinition) bool {
	for _, tool := range tools {
		if len(tool.OutputSchema) == 0 {
			continue
		}
		if root, err := serdejson.Parse(tool.OutputSchema); err == nil &&
			mcpStructuredContentSchema(root) != nil {
			return true
		}
	}
	return false
}

// mcpStructuredContentSchema recognizes an MCP CallToolResult output schema — properties
// `content` (array of objects), `isError` (boolean) and `_meta` (object) — and returns its
// structuredContent schema (`true` when absent), or nil for any other schema.
func mcpStructuredContentSchema(outputSchema *serdejson.Value) *serdejson.Value {
	properties := outputSchema.AsObject().Get("properties").AsObject()
	if properties == nil {
		return nil
	}
	content := properties.Get("content").AsObject()
	if content == nil || !schemaTypeIs(content, "array") {
		return nil
	}
	items := content.Get("items").AsObject()
	if items == nil || !schemaTypeIs(items, "object") {
		return nil
	}
	if isError := properties.Get("isError").AsObject(); isError == nil || !schemaTypeIs(isError, "boolean") {
		return nil
	}
	if meta := properties.Get("_meta").AsObject(); meta == nil || !schemaTypeIs(meta, "object") {
		return nil
	}
	if structured := properties.Get("structuredContent"); structured != nil {
		return structured
	}
	return serdejson.BoolValue(true)
}

func schemaTypeIs(schema *serdejson.Map, want string) bool {
	got, ok := schema.Get("type").AsString()
	return ok && got == want
}
