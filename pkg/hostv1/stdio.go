package hostv1

import (
	"context"
	"io"
	"sync"

	"github.com/codemodehq/codemode/pkg/transportv1"
)

// ServeStdio serves one connection over a host process's standard streams (Codex's
// `--listen stdio`): frames are read from stdin and written to stdout, which must carry nothing
// else; log to stderr. It returns when the client closes stdin (nil) or the connection fails.
//
// When stdin is a blocking pipe or socket (as a spawned host's is), it is read through a
// non-blocking copy of its descriptor on Go's poller, and put back in blocking mode when the
// connection ends.
func (h *Host) ServeStdio(ctx context.Context, stdin io.ReadCloser, stdout io.WriteCloser) error {
	in, restore := pollableStdin(stdin)
	var restoreOnce sync.Once
	conn := transportv1.NewStreamConn(in, stdout, func() error {
		restoreOnce.Do(restore)
		err := stdin.Close()
		if cerr := stdout.Close(); err == nil {
			err = cerr
		}
		return err
	})
	defer restoreOnce.Do(restore)
	return h.ServeConn(ctx, conn)
}
