package v1host

import (
	"context"
	"io"

	"github.com/codemodehq/codemode/pkg/internal/stdio"
	"github.com/codemodehq/codemode/pkg/v1/v1transport"
)

// ServeStdio serves one connection over a host process's standard streams (Codex's
// `--listen stdio`): frames are read from stdin and written to stdout, which must carry nothing
// else; log to stderr. It returns when the client closes stdin (nil) or the connection fails.
//
// When stdin is a blocking pipe or socket (as a spawned host's is), it is read through a
// non-blocking copy of its descriptor on Go's poller, and put back in blocking mode when the
// connection ends.
func (h *Host) ServeStdio(ctx context.Context, stdin io.ReadCloser, stdout io.WriteCloser) error {
	c := stdio.NewConn(stdin, stdout)
	defer c.Close()
	return h.ServeConn(ctx, v1transport.NewStreamConn(c, c, c.Close))
}
