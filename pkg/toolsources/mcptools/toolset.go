package mcptools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/toolsources/toolprovider"
)

// ErrNotStarted is wrapped by the error of Open and OpenManifest when a server did not start
// (as opposed to a refused or unreadable manifest).
var ErrNotStarted = errors.New("an MCP server did not start")

// Options adjust how servers are run. The zero value is ready to use.
type Options struct {
	// Stderr, if set, receives a copy of what stdio servers print on stderr (codemode keeps
	// the last few KiB of each in any case, for the error texts of a server that exited).
	Stderr io.Writer
}

// OpenManifest loads the tool manifest at path and opens every tool source it names: the
// manifest's command tools (a *toolprovider.Provider, always first) and, when it names MCP
// servers, a *ToolSet serving them, whose servers are started (or connected to) and listed now,
// within each server's startup_timeout. closeSets stops the servers; call it once the sets are
// no longer used. pkg/toolsources.Open, which programs call, adds the manifest's exec-server to
// what this returns.
//
// A refused manifest is a *toolprovider.ManifestError; a server that does not start is an
// error naming the manifest, the server's place in it and why ("tools.json: /mcp_servers/0:
// MCP server `notes` did not start: …").
func OpenManifest(ctx context.Context, path string, opts Options) (sets []toolprovider.ToolSet, closeSets func() error, err error) {
	p, err := toolprovider.Load(path)
	if err != nil {
		return nil, nil, err
	}
	servers := p.MCPServers()
	if len(servers) == 0 {
		return []toolprovider.ToolSet{p}, func() error { return nil }, nil
	}
	mcp, err := Open(ctx, servers, opts)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return []toolprovider.ToolSet{p, mcp}, mcp.Close, nil
}

// ToolSet is the tools of MCP servers: a toolprovider.ToolSet with a Close. It is safe for
// concurrent use.
type ToolSet struct {
	servers []*server
	defs    []codemode.ToolDefinition
	routes  map[string]route // by routeKey of ToolDefinition.ToolName
}

var _ toolprovider.ToolSet = (*ToolSet)(nil)

// route is where a tool's calls go: its server and the tool's name there.
type route struct {
	server *server
	name   string // the tool's name on its server
	global string // the tool's name in cells (ToolDefinition.Name)
	// input checks a call's arguments against the tool's input schema before it leaves for the
	// server: the runtime forwards them as the script wrote them.
	input *toolprovider.InputCheck
}

// Open starts (or connects to) every server, all at once, and lists their tools, each within
// its startup timeout. If any server fails, the others are stopped and the error names the
// server's place in the manifest and what went wrong.
func Open(ctx context.Context, servers []toolprovider.MCPServer, opts Options) (*ToolSet, error) {
	started := make([]*server, len(servers))
	listed := make([][]codemode.ToolDefinition, len(servers))
	errs := make([]error, len(servers))
	var wg sync.WaitGroup
	for i, spec := range servers {
		wg.Go(func() {
			s := newServer(spec, opts)
			started[i] = s
			listed[i], errs[i] = s.start(ctx)
			if errs[i] != nil {
				errs[i] = fmt.Errorf("%s: MCP server `%s` did not start: %w", spec.Pointer, spec.Name, errs[i])
			}
		})
	}
	wg.Wait()
	t := &ToolSet{servers: started, routes: map[string]route{}}
	if err := errors.Join(errs...); err != nil {
		t.Close()
		return nil, notStarted{err}
	}
	for i, s := range started {
		for _, def := range listed[i] {
			t.defs = append(t.defs, def)
			t.routes[routeKey(def.ToolName)] = route{server: s, name: def.ToolName.Name, global: def.Name, input: toolprovider.NewInputCheck(def)}
		}
	}
	return t, nil
}

// notStarted is the error of servers that did not start: its text theirs, and errors.Is of
// ErrNotStarted true.
type notStarted struct{ error }

// Is reports whether target is ErrNotStarted.
func (notStarted) Is(target error) bool { return target == ErrNotStarted }

// Unwrap returns the servers' errors.
func (e notStarted) Unwrap() error { return e.error }

// routeKey identifies a tool by its namespace and name.
func routeKey(name codemode.ToolName) string {
	canonical := name.WithDefaultNamespace()
	return *canonical.Namespace + "\x00" + canonical.Name
}

// Definitions returns every server's tools: the servers in the manifest's order, each server's
// tools in the order of its tools/list.
func (t *ToolSet) Definitions() []codemode.ToolDefinition {
	return append([]codemode.ToolDefinition(nil), t.defs...)
}

// InvokeTool makes the call a tools/call on the tool's server. Its input must be a JSON object
// (none means {}; MCP's tools/call takes its arguments as an object), that matches the tool's
// input schema (or the call is refused with what does not match). The result is the CallToolResult
// as JSON; an isError result, a timeout, a server that exited or failed, and a result larger than
// the server's max_result_bytes are errors whose text says which.
func (t *ToolSet) InvokeTool(ctx context.Context, call codemode.NestedToolCall) (json.RawMessage, error) {
	r, ok := t.routes[routeKey(call.ToolName)]
	if !ok || call.ToolKind != codemode.ToolKindFunction {
		return nil, fmt.Errorf("code-mode tool %s is not enabled for this execution", call.ToolName)
	}
	args := bytes.TrimSpace(call.Input)
	if len(args) == 0 {
		args = []byte("{}")
	}
	if args[0] != '{' || !json.Valid(args) {
		return nil, fmt.Errorf("tool `%s` expects a JSON object for arguments", r.global)
	}
	if err := r.input.Check(args); err != nil {
		return nil, err
	}
	return r.server.call(ctx, r.global, r.name, json.RawMessage(args))
}

// Close stops every server (a stdio server gets its stdin closed, then, if it has not exited
// after a grace period, its process group is killed) and closes every connection. Calls still
// running fail. Close always returns nil; it has an error result to be an io.Closer.
func (t *ToolSet) Close() error {
	var wg sync.WaitGroup
	for _, s := range t.servers {
		if s != nil {
			wg.Go(s.close)
		}
	}
	wg.Wait()
	return nil
}
