//go:build !(linux || darwin)

package stdio

import "io"

// Pollable returns stdin as it is on this platform.
func Pollable(stdin io.ReadCloser) (io.ReadCloser, func()) {
	return stdin, func() {}
}
