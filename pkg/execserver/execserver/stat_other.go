//go:build !linux

package execserver

// birthMillis is 0 where statx is unavailable: the creation time is unknown.
func birthMillis(string, bool) int64 { return 0 }

// pendingBytes is unknown (-1) without FIONREAD support here; the exit is then numbered once the
// output streams end or the read deadline finds them idle.
func pendingBytes(uintptr) int { return -1 }
