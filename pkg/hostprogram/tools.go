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
	// host runs the manifest's tools on goroutines of their own (codemode.FromBlocking).
	host codemode.Delegate
}

// newToolRouter routes the calls of tools' tools here and the rest to client.
func newToolRouter(client codemode.Delegate, tools toolprovider.ToolSet) *toolRouter {
	return &toolRouter{client: client, tools: tools, host: codemode.FromBlocking(hostTools{tools, client})}
}

var _ codemode.Delegate = (*toolRouter)(nil)

// StartToolCall runs a manifest tool here and hands any other call to the client.
func (r *toolRouter) StartToolCall(ctx context.Context, call codemode.NestedToolCall, done func(json.RawMessage, error)) {
	if hostTool(r.tools.Definitions(), call.ToolName) {
		r.host.StartToolCall(ctx, call, done)
		return
	}
	r.client.StartToolCall(ctx, call, done)
}

// StartNotify goes to the client.
func (r *toolRouter) StartNotify(ctx context.Context, callID string, cellID codemode.CellID, text string, done func(error)) {
	r.client.StartNotify(ctx, callID, cellID, text, done)
}

// CellClosed goes to the client.
func (r *toolRouter) CellClosed(id codemode.CellID) { r.client.CellClosed(id) }

// ReportFailure goes to the client.
func (r *toolRouter) ReportFailure(reason string) { r.client.ReportFailure(reason) }

// CellUsage goes to the client.
func (r *toolRouter) CellUsage(id codemode.CellID, usage codemode.CellUsage) {
	r.client.CellUsage(id, usage)
}

// hostTools is the manifest's tools as a codemode.BlockingDelegate; only its tool calls are used
// (toolRouter.host). A failure of one, such as a panic, goes to the client as the session's do.
type hostTools struct {
	toolprovider.ToolSet
	client codemode.Delegate
}

// Notify is not used: notifications go to the client.
func (hostTools) Notify(context.Context, string, codemode.CellID, string) error { return nil }

// CellClosed is not used: closures go to the client.
func (hostTools) CellClosed(codemode.CellID) {}

// ReportFailure goes to the client.
func (h hostTools) ReportFailure(reason string) { h.client.ReportFailure(reason) }

// CellUsage is not used: usage goes to the client.
func (hostTools) CellUsage(codemode.CellID, codemode.CellUsage) {}

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
