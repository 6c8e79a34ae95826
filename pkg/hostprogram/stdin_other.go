//go:build !unix

package hostprogram

import "os"

// Stdin returns the process's standard input.
func Stdin() *os.File { return os.Stdin }
