//go:build linux

package stdio

import (
	"os"
	"syscall"
	"unsafe"
)

// fGetPipeSize is F_GETPIPE_SZ (fcntl.h): a pipe's capacity in bytes. The syscall package does not
// name it.
const fGetPipeSize = 1032

// pipeRoom tells, for w a pipe, how many bytes a write can put in it now without blocking: its
// capacity less what it holds unread (FIONREAD, which Linux answers on either end of a pipe).
// capacity caches the capacity (0: not read yet, -1: w is no pipe); it is read once, since only
// F_SETPIPE_SZ changes it, and a pipe holding data cannot shrink below it. ok is false for anything
// but a pipe, or when it cannot be read.
func pipeRoom(w any, capacity *int) (room int, ok bool) {
	f, isFile := w.(*os.File)
	if !isFile || *capacity < 0 {
		return 0, false
	}
	sc, err := f.SyscallConn()
	if err != nil {
		return 0, false
	}
	_ = sc.Control(func(fd uintptr) {
		if *capacity == 0 {
			size, _, errno := syscall.Syscall(syscall.SYS_FCNTL, fd, fGetPipeSize, 0)
			if errno != 0 {
				*capacity = -1
				return
			}
			*capacity = int(size)
		}
		var unread int32
		if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCINQ, uintptr(unsafe.Pointer(&unread))); errno != 0 {
			return
		}
		room, ok = *capacity-int(unread), true
	})
	return room, ok
}
