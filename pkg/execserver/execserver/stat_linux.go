//go:build linux

package execserver

import "golang.org/x/sys/unix"

// birthMillis is the file's creation time in Unix milliseconds (statx's btime, which Codex reports
// as createdAtMs), or 0 where the file system does not record it.
func birthMillis(path string, follow bool) int64 {
	flags := 0
	if !follow {
		flags = unix.AT_SYMLINK_NOFOLLOW
	}
	var st unix.Statx_t
	if unix.Statx(unix.AT_FDCWD, path, flags, unix.STATX_BTIME, &st) != nil || st.Mask&unix.STATX_BTIME == 0 {
		return 0
	}
	return st.Btime.Sec*1000 + int64(st.Btime.Nsec)/1_000_000
}

// pendingBytes is how many bytes a pipe holds unread (FIONREAD, which is TIOCINQ on Linux); -1 when unknown.
func pendingBytes(fd uintptr) int {
	n, err := unix.IoctlGetInt(int(fd), unix.TIOCINQ)
	if err != nil {
		return -1
	}
	return n
}
