// Package toolsources opens every source of tools a tool manifest names — its commands
// (pkg/toolsources/toolprovider), its MCP servers (pkg/toolsources/mcptools) and its exec-server (pkg/toolsources/exectools) — as
// the toolprovider.ToolSets a session's toolprovider.Delegate routes calls to. It is the one
// place a program (codemode run, describe and mcp, codemode-host, codemode serve) turns a manifest
// into tools, so a new kind of source is added here once.
package toolsources

import (
	"context"
	"errors"
	"fmt"

	"github.com/codemodehq/codemode/pkg/toolsources/exectools"
	"github.com/codemodehq/codemode/pkg/toolsources/mcptools"
	"github.com/codemodehq/codemode/pkg/toolsources/toolprovider"
)

// ErrNotStarted is in the chain of an error from Open when a source the manifest names (an MCP
// server, the exec-server) did not start: the manifest was fine, running it was not. Programs
// exit 1 for it and 2 for a refused manifest.
var ErrNotStarted = mcptools.ErrNotStarted

// Options configure Open.
type Options struct {
	// MCP configures the MCP servers' clients.
	MCP mcptools.Options
}

// Open loads the manifest at path and opens what it names: the command tools first (always),
// then the MCP servers' tools, then the exec-server's. closeSets stops the servers and the
// exec-server; call it once the sets are no longer used. A refused manifest is a
// *toolprovider.ManifestError; a source that does not start is an error naming the manifest and
// the source's place in it, with ErrNotStarted in its chain.
func Open(ctx context.Context, path string, opts Options) (sets []toolprovider.ToolSet, closeSets func() error, err error) {
	sets, closeMCP, err := mcptools.OpenManifest(ctx, path, opts.MCP)
	if err != nil {
		return nil, nil, err
	}
	exec, err := exectools.FromManifest(ctx, path)
	if err != nil {
		_ = closeMCP()
		return nil, nil, notStarted{fmt.Errorf("%s: /exec_server: the exec-server did not start: %w", path, err)}
	}
	if exec == nil {
		return sets, closeMCP, nil
	}
	return append(sets, exec), func() error { return errors.Join(exec.Close(), closeMCP()) }, nil
}

// notStarted marks a source's start failure with ErrNotStarted without changing its text.
type notStarted struct{ err error }

func (e notStarted) Error() string   { return e.err.Error() }
func (e notStarted) Unwrap() []error { return []error{ErrNotStarted, e.err} }
