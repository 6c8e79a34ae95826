package modeltool

import (
	"encoding/json"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// freeformTool is a Responses API custom tool: its input is free text constrained by a
// grammar. It marshals as {"type":"custom","name",…,"format":{…}}.
type freeformTool struct {
	Name        string
	Description string
	Format      grammarFormat
}

// grammarFormat constrains a freeform tool's input.
type grammarFormat struct {
	// Type is "grammar".
	Type string `json:"type"`
	// Syntax is "lark".
	Syntax string `json:"syntax"`
	// Definition is the grammar source.
	Definition string `json:"definition"`
}

// MarshalJSON encodes the Responses API shape of a custom tool.
func (t freeformTool) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Type        string        `json:"type"`
		Name        string        `json:"name"`
		Description string        `json:"description"`
		Format      grammarFormat `json:"format"`
	}{"custom", t.Name, t.Description, t.Format})
}

// functionTool is a Responses API function tool with JSON parameters. It marshals as
// {"type":"function","name",…,"strict",…,"parameters":{…}}.
type functionTool struct {
	Name        string
	Description string
	Strict      bool
	// Parameters is the JSON Schema of the arguments object.
	Parameters json.RawMessage
}

// MarshalJSON encodes the Responses API shape of a function tool.
func (t functionTool) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Type        string          `json:"type"`
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Strict      bool            `json:"strict"`
		Parameters  json.RawMessage `json:"parameters"`
	}{"function", t.Name, t.Description, t.Strict, t.Parameters})
}

// execTool returns the model-facing exec tool: a freeform tool named "exec" whose input is
// JavaScript, optionally preceded by a pragma line, constrained by Codex's Lark grammar.
func execTool(opts execDescriptionOptions) freeformTool {
	return freeformTool{
		Name:        codemode.PublicToolName,
		Description: buildExecToolDescription(opts),
		Format:      grammarFormat{Type: "grammar", Syntax: "lark", Definition: execFreeformGrammar},
	}
}

// waitParameters is the JSON Schema of the wait arguments, with Codex's property texts.
const waitParameters = `{"type":"object","properties":{` +
	`"cell_id":{"type":"string","description":"Identifier of the running exec cell."},` +
	`"max_tokens":{"type":"number","description":"Output token budget for this wait call. Defaults to 10000 tokens."},` +
	`"terminate":{"type":"boolean","description":"True stops the running exec cell; false or omitted waits for output."},` +
	`"yield_time_ms":{"type":"number","description":"Wait before yielding more output. Defaults to 10000 ms."}` +
	`},"required":["cell_id"],"additionalProperties":false}`

// waitToolDescription is the wait tool's description: Codex's first sentence followed by the
// bullets of build_wait_tool_description.
const waitToolDescription = "Waits on a yielded `exec` cell and returns new output or completion.\n" +
	waitDescriptionBullets

// waitTool returns the model-facing wait tool: a non-strict function tool named "wait" with
// the parameters cell_id (required), yield_time_ms, max_tokens and terminate, and no others.
func waitTool() functionTool {
	return functionTool{
		Name:        codemode.WaitToolName,
		Description: waitToolDescription,
		Strict:      false,
		Parameters:  json.RawMessage(waitParameters),
	}
}

// WaitArguments are the decoded arguments of a wait call (ParseWaitArguments).
type WaitArguments struct {
	// CellID is the cell to observe.
	CellID string `json:"cell_id"`
	// YieldTimeMs is how long to wait; nil means codemode.DefaultWaitYieldTimeMs.
	YieldTimeMs *uint64 `json:"yield_time_ms,omitempty"`
	// MaxTokens is the output budget; nil means codemode.DefaultMaxOutputTokensPerExecCall.
	MaxTokens *uint64 `json:"max_tokens,omitempty"`
	// Terminate stops the cell instead of waiting.
	Terminate bool `json:"terminate,omitempty"`
}
