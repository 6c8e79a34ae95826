//go:build !(linux || darwin)

package hostv1

import "io"

// pollableStdin returns stdin as it is on this platform.
func pollableStdin(stdin io.ReadCloser) (io.ReadCloser, func()) {
	return stdin, func() {}
}
