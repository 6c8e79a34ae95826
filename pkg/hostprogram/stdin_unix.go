//go:build unix

package hostprogram

import (
	"os"
	"syscall"
)

// Stdin returns the process's standard input such that closing it ends a read in progress.
// os.Stdin on a pipe left in blocking mode cannot be interrupted: a drained stdio connection
// would wait for the client to close its end. A pipe or socket is switched to non-blocking mode, which
// puts it in Go's poller; a terminal or a file stays as it is (a terminal's mode is shared with
// the shell).
func Stdin() *os.File {
	info, err := os.Stdin.Stat()
	if err != nil || info.Mode()&(os.ModeNamedPipe|os.ModeSocket) == 0 {
		return os.Stdin
	}
	if err := syscall.SetNonblock(syscall.Stdin, true); err != nil {
		return os.Stdin
	}
	return os.NewFile(uintptr(syscall.Stdin), "/dev/stdin")
}
