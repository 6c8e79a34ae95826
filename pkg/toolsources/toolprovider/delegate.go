package toolprovider

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// NotifyFunc receives a cell's notify() text, as codemode.BlockingDelegate.Notify.
type NotifyFunc func(ctx context.Context, callID string, cellID codemode.CellID, text string) error

// Delegate is a codemode.BlockingDelegate whose tools come from ToolSets: InvokeTool goes to the
// set that defines the called tool, Notify to a callback; a session gets
// codemode.FromBlocking(d). It is safe for concurrent use.
type Delegate struct {
	codemode.DiscardReports
	defs   []codemode.ToolDefinition
	routes map[string]ToolSet // by routeKey of ToolDefinition.ToolName
	notify NotifyFunc
}

var _ codemode.BlockingDelegate = (*Delegate)(nil)

// NewDelegate serves the tools of sets, in their order, and hands notifications to notify (nil
// drops them). Two tools with the same name, or the same JavaScript name, are an error: a cell
// could reach only one of them.
func NewDelegate(notify NotifyFunc, sets ...ToolSet) (*Delegate, error) {
	d := &Delegate{routes: map[string]ToolSet{}, notify: notify}
	names := map[string]bool{}
	for _, set := range sets {
		for _, def := range set.Definitions() {
			key := routeKey(def.ToolName)
			if _, dup := d.routes[key]; dup || names[def.Name] {
				return nil, fmt.Errorf("two tools are named %s", def.Name)
			}
			d.routes[key], names[def.Name] = set, true
			d.defs = append(d.defs, def)
		}
	}
	return d, nil
}

// routeKey identifies a tool as calls name it: its name in its namespace, with Codex's aliases
// for the default namespace (none, "" and "functions") made one.
func routeKey(name codemode.ToolName) string {
	canonical := name.WithDefaultNamespace()
	return *canonical.Namespace + "\x00" + canonical.Name
}

// Definitions returns every tool of every set: what an ExecuteRequest's EnabledTools should be.
func (d *Delegate) Definitions() []codemode.ToolDefinition {
	return append([]codemode.ToolDefinition(nil), d.defs...)
}

// InvokeTool routes the call to the set that defines its tool. A tool no set defines fails with
// Codex's text.
func (d *Delegate) InvokeTool(ctx context.Context, call codemode.NestedToolCall) (json.RawMessage, error) {
	set, ok := d.routes[routeKey(call.ToolName)]
	if !ok {
		return nil, notEnabled(call.ToolName)
	}
	return set.InvokeTool(ctx, call)
}

// Notify hands the text to the callback, if any.
func (d *Delegate) Notify(ctx context.Context, callID string, cellID codemode.CellID, text string) error {
	if d.notify == nil {
		return nil
	}
	return d.notify(ctx, callID, cellID, text)
}

// CellClosed does nothing: a call's processes end with the call, so a closed cell leaves
// nothing behind here.
func (*Delegate) CellClosed(codemode.CellID) {}
