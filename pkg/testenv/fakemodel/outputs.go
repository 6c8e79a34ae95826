package fakemodel

import "encoding/json"

// ToolOutput is what Codex sent the model for one tool call: the output item of a request's
// input whose call_id names the call.
type ToolOutput struct {
	// CallID is the call's ID, as the script gave it ("call_1").
	CallID string
	// Output is the item's output as sent: for exec and wait, Codex's text ("Script
	// completed\nWall time …\nOutput:\n…") or an array of content items.
	Output json.RawMessage
}

// ToolOutputs returns the tool outputs among a request body's input items, in order (a request
// carries the whole conversation, so the outputs of earlier calls too). A body that is not a
// Responses API request has none.
func ToolOutputs(body []byte) []ToolOutput {
	var req struct {
		Input []struct {
			Type   string          `json:"type"`
			CallID string          `json:"call_id"`
			Output json.RawMessage `json:"output"`
		} `json:"input"`
	}
	if json.Unmarshal(body, &req) != nil {
		return nil
	}
	var out []ToolOutput
	for _, item := range req.Input {
		if item.Type == "custom_tool_call_output" || item.Type == "function_call_output" {
			out = append(out, ToolOutput{CallID: item.CallID, Output: item.Output})
		}
	}
	return out
}
