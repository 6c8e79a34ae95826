//go:build linux || darwin

package stdio

import (
	"io"
	"os"
	"syscall"
)

// Pollable returns a copy of stdin on Go's poller when stdin is a blocking pipe or socket:
// a read then parks its goroutine instead of holding a thread and its P in a blocking read(2),
// so a message wakes the reader through the poller like on any socket, and closing the copy
// unblocks a pending read. It returns stdin itself otherwise (a file, a terminal, a stream that
// is not an *os.File, or one already non-blocking). restore puts the file description back in
// blocking mode (other processes may share it) and closes the copy; call it once, when the
// connection ends.
func Pollable(stdin io.ReadCloser) (r io.ReadCloser, restore func()) {
	f, ok := stdin.(*os.File)
	if !ok {
		return stdin, func() {}
	}
	sc, err := f.SyscallConn()
	if err != nil {
		return stdin, func() {}
	}
	dup := -1
	_ = sc.Control(func(fd uintptr) {
		var st syscall.Stat_t
		if syscall.Fstat(int(fd), &st) != nil {
			return
		}
		if kind := st.Mode & syscall.S_IFMT; kind != syscall.S_IFIFO && kind != syscall.S_IFSOCK {
			return
		}
		flags, _, errno := syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_GETFL, 0)
		if errno != 0 || flags&syscall.O_NONBLOCK != 0 {
			return
		}
		syscall.ForkLock.RLock()
		d, err := syscall.Dup(int(fd))
		if err == nil {
			syscall.CloseOnExec(d)
			dup = d
		}
		syscall.ForkLock.RUnlock()
	})
	if dup < 0 {
		return stdin, func() {}
	}
	if syscall.SetNonblock(dup, true) != nil {
		_ = syscall.Close(dup)
		return stdin, func() {}
	}
	// A non-blocking descriptor makes os.NewFile register it with the poller.
	p := os.NewFile(uintptr(dup), f.Name())
	return p, func() {
		_ = p.Close()
		_ = sc.Control(func(fd uintptr) { _ = syscall.SetNonblock(int(fd), false) })
	}
}
