package main

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/toolsources/toolprovider"
)

// demoTools are the tools of `codemode run` without --tools, so examples can show nested calls
// before a manifest is written: echo (a function tool that returns its input object) and upper
// (a freeform tool that upper-cases a string).
type demoTools struct{}

var _ toolprovider.ToolSet = demoTools{}

// Definitions returns echo and upper.
func (demoTools) Definitions() []codemode.ToolDefinition {
	return []codemode.ToolDefinition{
		{
			Name: "echo", ToolName: codemode.ToolName{Name: "echo"}, Kind: codemode.ToolKindFunction,
			Description: "Returns its input object unchanged.",
			InputSchema: json.RawMessage(`{"type":"object"}`),
		},
		{
			Name: "upper", ToolName: codemode.ToolName{Name: "upper"}, Kind: codemode.ToolKindFreeform,
			Description: "Returns its string input in upper case.",
		},
	}
}

// echoInput checks echo's input against its schema.
var echoInput = toolprovider.NewInputCheck(demoTools{}.Definitions()[0])

// InvokeTool runs echo or upper; the Delegate routes only those two here.
func (demoTools) InvokeTool(_ context.Context, call codemode.NestedToolCall) (json.RawMessage, error) {
	if call.ToolName.Name == "echo" {
		// The runtime forwards inputs as the script wrote them; the owner checks its schema.
		if err := echoInput.Check(call.Input); err != nil {
			return nil, err
		}
		if call.Input == nil {
			return json.RawMessage(`{}`), nil
		}
		return call.Input, nil
	}
	var s string
	if err := json.Unmarshal(call.Input, &s); err != nil {
		return nil, errors.New("tool `upper` expects a string input")
	}
	return json.Marshal(strings.ToUpper(s))
}
