package playground

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/modeltool"
)

// DescriptionPath is where the page asks for the exec tool's description: POST a JSON object
// {"tools": [{"name", "description", "inputSchema", "outputSchema"}]} (the page's tools, as it
// registers them with the SDK) and the answer is the description a model would be shown for
// them, as text/plain. The host renders it because the rendering (TypeScript declarations from
// JSON Schemas, Codex's exact wording) lives in Go, in pkg/modeltool.
const DescriptionPath = "/exec-description"

// Bounds of a description request: it comes from any page that reaches the listener.
const (
	maxDescriptionBody  = 256 << 10
	maxDescriptionTools = 256
)

// describedTool is one tool of a description request.
type describedTool struct {
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"`
}

// describeRequest is the body of a description request.
type describeRequest struct {
	Tools []describedTool `json:"tools"`
}

// serveDescription answers a description request, or 400 with what is wrong.
func serveDescription(w http.ResponseWriter, r *http.Request) {
	tools, err := readDescribeRequest(r)
	if err != nil {
		http.Error(w, fmt.Sprintf("%s: %v", DescriptionPath, err), http.StatusBadRequest)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	_, _ = io.WriteString(w, modeltool.ExecToolDescription(tools))
}

// readDescribeRequest decodes and checks a description request's body: at most
// maxDescriptionBody bytes of one JSON object, at most maxDescriptionTools tools, each with a
// name, and schemas that are JSON objects or absent.
func readDescribeRequest(r *http.Request) ([]codemode.ToolDefinition, error) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxDescriptionBody+1))
	if err != nil {
		return nil, fmt.Errorf("reading the body: %w", err)
	}
	if len(body) > maxDescriptionBody {
		return nil, fmt.Errorf("the body exceeds %d bytes", maxDescriptionBody)
	}
	var req describeRequest
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return nil, fmt.Errorf("the body is not a description request: %w", err)
	}
	if dec.More() {
		return nil, errors.New("the body holds more than one JSON value")
	}
	if len(req.Tools) > maxDescriptionTools {
		return nil, fmt.Errorf("%d tools, more than %d", len(req.Tools), maxDescriptionTools)
	}
	tools := make([]codemode.ToolDefinition, len(req.Tools))
	for i, t := range req.Tools {
		def, err := t.definition()
		if err != nil {
			return nil, fmt.Errorf("tools[%d]: %w", i, err)
		}
		tools[i] = def
	}
	return tools, nil
}

// definition is the function tool t describes.
func (t describedTool) definition() (codemode.ToolDefinition, error) {
	if t.Name == "" {
		return codemode.ToolDefinition{}, errors.New("a tool needs a name")
	}
	for _, s := range []struct {
		field string
		raw   json.RawMessage
	}{{"inputSchema", t.InputSchema}, {"outputSchema", t.OutputSchema}} {
		if len(s.raw) > 0 && !isJSONObject(s.raw) {
			return codemode.ToolDefinition{}, fmt.Errorf("%s must be a JSON object", s.field)
		}
	}
	return codemode.ToolDefinition{
		Name:         t.Name,
		ToolName:     codemode.ToolName{Name: t.Name},
		Description:  t.Description,
		Kind:         codemode.ToolKindFunction,
		InputSchema:  nonNull(t.InputSchema),
		OutputSchema: nonNull(t.OutputSchema),
	}, nil
}

// isJSONObject reports whether raw, valid JSON, is an object or null (which means absent).
func isJSONObject(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return raw[0] == '{' || string(raw) == "null"
}

// nonNull returns raw, or nil when raw is absent or JSON null.
func nonNull(raw json.RawMessage) json.RawMessage {
	var v any
	if len(raw) == 0 || (json.Unmarshal(raw, &v) == nil && v == nil) {
		return nil
	}
	return raw
}
