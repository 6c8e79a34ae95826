package hostprogram

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/toolsources/toolprovider"
)

// toolRouter is a session's delegate when the host has a manifest: calls of the manifest's tools
// run here, on the host's machine; everything else (the client's tools, notifications, closures,
// failures) goes to the client's delegate.
type toolRouter struct {
	client codemode.Delegate
	tools  toolprovider.ToolSet
}

var (
	_ codemode.Delegate        = (*toolRouter)(nil)
	_ codemode.FailureReporter = (*toolRouter)(nil)
)

// InvokeTool runs a manifest tool here and hands any other call to the client.
func (r *toolRouter) InvokeTool(ctx context.Context, call codemode.NestedToolCall) (json.RawMessage, error) {
	if hostTool(r.tools.Definitions(), call.ToolName) {
		return r.tools.InvokeTool(ctx, call)
	}
	return r.client.InvokeTool(ctx, call)
}

// Notify goes to the client.
func (r *toolRouter) Notify(ctx context.Context, callID string, cellID codemode.CellID, text string) error {
	return r.client.Notify(ctx, callID, cellID, text)
}

// CellClosed goes to the client.
func (r *toolRouter) CellClosed(id codemode.CellID) { r.client.CellClosed(id) }

// ReportFailure goes to the client, if it listens for failures.
func (r *toolRouter) ReportFailure(reason string) { codemode.ReportFailure(r.client, reason) }

func hostTool(defs []codemode.ToolDefinition, name codemode.ToolName) bool {
	for _, d := range defs {
		if d.ToolName.Equivalent(name) {
			return true
		}
	}
	return false
}

// toolSession adds the manifest's tools to every cell's enabled tools.
type toolSession struct {
	codemode.Session
	tools []codemode.ToolDefinition
}

// Execute runs the cell with the client's tools and the manifest's. A client tool with the name
// of a manifest tool is refused: calls are routed by name, so one of them would be unreachable.
func (s *toolSession) Execute(ctx context.Context, req codemode.ExecuteRequest) (*codemode.StartedCell, error) {
	for _, c := range req.EnabledTools {
		for _, h := range s.tools {
			if c.Name == h.Name || c.ToolName.Equivalent(h.ToolName) {
				return nil, fmt.Errorf("code-mode host: tool `%s` is both the client's and the host's tool manifest's; rename one of them", c.ToolName)
			}
		}
	}
	enabled := make([]codemode.ToolDefinition, 0, len(req.EnabledTools)+len(s.tools))
	enabled = append(enabled, req.EnabledTools...)
	req.EnabledTools = append(enabled, s.tools...)
	return s.Session.Execute(ctx, req)
}
