//go:build !linux

package stdio

// pipeRoom cannot tell a pipe's room on this platform.
func pipeRoom(any, *int) (int, bool) { return 0, false }
