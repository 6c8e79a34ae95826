package toolprovider

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// ToolSet is a source of tools: the definitions a session's ExecuteRequest enables, and the calls
// to them. Provider is one; Delegate routes calls among several.
type ToolSet interface {
	// Definitions returns the tools in the order the model is shown them.
	Definitions() []codemode.ToolDefinition
	// InvokeTool runs a call to one of the set's tools, as codemode.BlockingDelegate.InvokeTool.
	InvokeTool(ctx context.Context, call codemode.NestedToolCall) (json.RawMessage, error)
}

// Provider is the command tools of a manifest (Load, Parse), and the MCP servers it names
// (MCPServers), which pkg/toolsources/mcptools serves. It is safe for concurrent use and holds nothing that
// needs closing: a call's processes live only as long as the call. A program should open a
// manifest with toolsources.Open, which serves them all.
type Provider struct {
	tools   []*commandTool
	byName  map[string]*commandTool // by routeKey of ToolDefinition.ToolName
	servers []MCPServer
}

var _ ToolSet = (*Provider)(nil)

// Definitions returns the manifest's tools, in the manifest's order.
func (p *Provider) Definitions() []codemode.ToolDefinition {
	defs := make([]codemode.ToolDefinition, len(p.tools))
	for i, t := range p.tools {
		defs[i] = t.def
	}
	return defs
}

// InvokeTool runs the called tool's command. The call's input goes to the command's stdin as
// JSON (function tools: an object, {} when the script passed none; freeform tools: a string),
// and the one JSON value the command prints on stdout is the result. The command is killed with
// its process group when ctx ends. Errors are the text the script's promise is rejected with.
func (p *Provider) InvokeTool(ctx context.Context, call codemode.NestedToolCall) (json.RawMessage, error) {
	t := p.byName[routeKey(call.ToolName)]
	if t == nil || t.def.Kind != call.ToolKind {
		return nil, notEnabled(call.ToolName)
	}
	return t.invoke(ctx, call.Input)
}

// notEnabled is Codex's text for a call to a tool the execution does not have.
func notEnabled(name codemode.ToolName) error {
	return fmt.Errorf("code-mode tool %s is not enabled for this execution", name)
}

// commandTool is one tool of a manifest.
type commandTool struct {
	def    codemode.ToolDefinition
	input  *jsonschema.Schema // nil: no input_schema
	output *jsonschema.Schema // nil: no output_schema
	cmd    command
	// run executes one call: cmd.run, replaced by tests of what surrounds it.
	run   func(ctx context.Context, input []byte) ([]byte, error)
	slots chan struct{} // one token per call running; its capacity is max_concurrency
}

func newCommandTool(def codemode.ToolDefinition, input, output *jsonschema.Schema, c command, maxConcurrency int) *commandTool {
	return &commandTool{def: def, input: input, output: output, cmd: c, run: c.run, slots: make(chan struct{}, maxConcurrency)}
}

// invoke checks the input (stdin), waits for a free slot, runs the command and checks what it
// printed.
func (t *commandTool) invoke(ctx context.Context, input json.RawMessage) (json.RawMessage, error) {
	stdin, err := t.stdin(input)
	if err != nil {
		return nil, err
	}
	select {
	case t.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
	out, err := t.run(ctx, stdin)
	<-t.slots
	if err != nil {
		return nil, fmt.Errorf("tool `%s` %w", t.def.Name, err)
	}
	return t.result(out)
}

// stdin renders a call's input for the command, refusing what the tool's kind cannot take (a
// function tool takes a JSON object, none meaning {}; a freeform tool a string), with the texts of
// Codex's own tool handlers, which a model trained against Codex reads, and what the input schema
// refuses (hosts forward every input as the script wrote it, docs/protocol/javascript.md#tools, so
// the tool's owner checks it). The JSON ends with a newline, so line-reading programs see a
// complete line.
func (t *commandTool) stdin(input json.RawMessage) ([]byte, error) {
	if t.def.Kind == codemode.ToolKindFunction {
		if input == nil {
			input = json.RawMessage("{}")
		}
		if !isJSON(input, '{') {
			return nil, fmt.Errorf("tool `%s` expects a JSON object for arguments", t.def.Name)
		}
	} else if !isJSON(input, '"') {
		return nil, fmt.Errorf("tool `%s` expects a string input", t.def.Name)
	}
	if err := matches(t.input, input); err != nil {
		return nil, fmt.Errorf("tool `%s` input does not match its input_schema: %s", t.def.Name, validationText(err))
	}
	return append(bytes.TrimSpace(input), '\n'), nil
}

// matches validates raw JSON against schema; a nil schema accepts anything.
func matches(schema *jsonschema.Schema, raw []byte) error {
	if schema == nil {
		return nil
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return err
	}
	return schema.Validate(v)
}

// isJSON reports whether raw is a JSON value whose first byte is first ('{': an object, '"': a
// string).
func isJSON(raw json.RawMessage, first byte) bool {
	trimmed := bytes.TrimSpace(raw)
	return len(trimmed) > 0 && trimmed[0] == first && json.Valid(trimmed)
}

// result checks that the command printed exactly one JSON value, matching the output schema if
// the tool has one.
func (t *commandTool) result(out []byte) (json.RawMessage, error) {
	out = bytes.TrimSpace(out)
	if len(out) == 0 {
		return nil, fmt.Errorf("tool `%s` printed nothing on stdout; a tool prints its result there as JSON", t.def.Name)
	}
	if err := singleJSONValue(out); err != nil {
		return nil, fmt.Errorf("tool `%s` printed invalid JSON on stdout: %w", t.def.Name, err)
	}
	if err := matches(t.output, out); err != nil {
		return nil, fmt.Errorf("tool `%s` result does not match its output_schema: %s", t.def.Name, validationText(err))
	}
	return out, nil
}

// singleJSONValue checks that out holds one JSON value and nothing after it.
func singleJSONValue(out []byte) error {
	dec := json.NewDecoder(bytes.NewReader(out))
	var v json.RawMessage
	if err := dec.Decode(&v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("more than one JSON value")
	}
	return nil
}

// validationText flattens a validation error to its leaf messages ("at '/path': message; …").
func validationText(err error) string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err.Error()
	}
	var parts []string
	for _, leaf := range leaves(ve) {
		at := pointer(leaf.at...)
		if at == "" {
			at = "/"
		}
		parts = append(parts, fmt.Sprintf("at '%s': %s", at, leaf.kind.LocalizedString(englishPrinter)))
	}
	return strings.Join(parts, "; ")
}
