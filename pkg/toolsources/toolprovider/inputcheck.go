package toolprovider

import (
	"encoding/json"
	"fmt"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// InputCheck is a tool's compiled input_schema. The runtime forwards a call's input as the script
// wrote it, since hosts do not check inputs (docs/protocol/javascript.md#tools): the tool's owner
// checks it, and refuses that one call with a text that says what does not match. The manifest's
// command tools check their inputs with it, and so do the MCP tool sources, before the call leaves
// for the server.
type InputCheck struct {
	tool   string
	schema *jsonschema.Schema
}

// NewInputCheck compiles def's input_schema (2020-12 by default, no $ref loading). A tool with no
// schema, or with one that does not compile, checks nothing: its owner serves it as it is.
func NewInputCheck(def codemode.ToolDefinition) *InputCheck {
	c := &InputCheck{tool: def.Name}
	raw := def.InputSchema
	if len(raw) == 0 || string(raw) == "null" {
		return c
	}
	if s, err := compileToolSchema(raw); err == nil {
		c.schema = s
	}
	return c
}

// Check returns the refusal of input (a function tool's arguments, {} when absent), or nil.
func (c *InputCheck) Check(input json.RawMessage) error {
	if c == nil || c.schema == nil {
		return nil
	}
	if len(input) == 0 {
		input = json.RawMessage("{}")
	}
	if err := matches(c.schema, input); err != nil {
		return fmt.Errorf("tool `%s` input does not match its input_schema: %s", c.tool, validationText(err))
	}
	return nil
}
