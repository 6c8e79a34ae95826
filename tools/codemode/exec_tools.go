package main

import (
	"context"

	"github.com/codemodehq/codemode/pkg/exectoolset"
	"github.com/codemodehq/codemode/pkg/toolprovider"
)

// execServerTools connects to the exec-server a manifest names under "exec_server" and returns
// its tools (exec__run, fs__read, fs__list); nil when it names none. A spawned exec-server ends
// with this process (its stdin closes).
func execServerTools(manifest string) (toolprovider.ToolSet, error) {
	ts, err := exectoolset.FromManifest(context.Background(), manifest)
	if err != nil || ts == nil {
		return nil, err
	}
	return ts, nil
}
