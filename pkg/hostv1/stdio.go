package hostv1

import (
	"context"
	"io"

	"github.com/codemodehq/codemode/pkg/transportv1"
)

// ServeStdio serves one connection over a host process's standard streams (Codex's
// `--listen stdio`): frames are read from stdin and written to stdout, which must carry nothing
// else; log to stderr. It returns when the client closes stdin (nil) or the connection fails.
func (h *Host) ServeStdio(ctx context.Context, stdin io.ReadCloser, stdout io.WriteCloser) error {
	conn := transportv1.NewStreamConn(stdin, stdout, func() error {
		err := stdin.Close()
		if cerr := stdout.Close(); err == nil {
			err = cerr
		}
		return err
	})
	return h.ServeConn(ctx, conn)
}
