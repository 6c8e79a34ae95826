//go:build linux || darwin

package stdio_test

import (
	"errors"
	"io"
	"os"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/codemodehq/codemode/pkg/internal/stdio"
	"go.uber.org/goleak"
)

func nonblocking(t *testing.T, f *os.File) bool {
	t.Helper()
	sc, err := f.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var flags uintptr
	var errno syscall.Errno
	if err := sc.Control(func(fd uintptr) {
		flags, _, errno = syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_GETFL, 0)
	}); err != nil || errno != 0 {
		t.Fatal(err, errno)
	}
	return flags&syscall.O_NONBLOCK != 0
}

// TestPollableStdinReadsABlockingPipeOnThePoller: a blocking pipe as stdin (a spawned host's) is
// read through a non-blocking copy; closing the copy (restore) ends a pending read, which a
// blocking read(2) would not, and puts the pipe back in blocking mode for whoever shares it.
func TestPollableStdinReadsABlockingPipeOnThePoller(t *testing.T) {
	defer goleak.VerifyNone(t)
	var fds [2]int
	if err := syscall.Pipe(fds[:]); err != nil {
		t.Fatal(err)
	}
	stdin, w := os.NewFile(uintptr(fds[0]), "stdin"), os.NewFile(uintptr(fds[1]), "w")
	defer stdin.Close()
	defer w.Close()
	if nonblocking(t, stdin) {
		t.Fatal("syscall.Pipe returned a non-blocking pipe")
	}
	r, restore := stdio.Pollable(stdin)
	if r == io.ReadCloser(stdin) {
		t.Fatal("a blocking pipe was not replaced")
	}
	if _, err := w.Write([]byte("hi")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 8)
	if n, err := r.Read(buf); err != nil || string(buf[:n]) != "hi" {
		t.Fatalf("Read = %q, %v", buf[:n], err)
	}
	pending := make(chan error, 1)
	go func() {
		_, err := r.Read(buf)
		pending <- err
	}()
	restore()
	if err := <-pending; !errors.Is(err, os.ErrClosed) {
		t.Fatalf("pending Read ended with %v, want os.ErrClosed", err)
	}
	if nonblocking(t, stdin) {
		t.Fatal("stdin was left non-blocking")
	}
}

// TestPollableStdinLeavesOtherStreamsAlone: a stream that is already non-blocking (os.Pipe's)
// and a regular file are read as they are.
func TestPollableStdinLeavesOtherStreamsAlone(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if got, restore := stdio.Pollable(r); got != io.ReadCloser(r) {
		restore()
		t.Fatal("a non-blocking pipe was replaced")
	}
	f, err := os.CreateTemp(t.TempDir(), "stdin")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got, restore := stdio.Pollable(f); got != io.ReadCloser(f) {
		restore()
		t.Fatal("a regular file was replaced")
	}
}

// A pipe's room for a write is its capacity less what it holds unread; what is not a pipe has
// none to tell.
func TestWriteRoomIsWhatThePipeCanTakeNow(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("pipe room is read on Linux only")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	c := stdio.NewConn(io.NopCloser(strings.NewReader("")), w)
	defer c.Close()
	empty, ok := c.WriteRoom()
	if !ok || empty <= 0 {
		t.Fatalf("room of an empty pipe: %d %v", empty, ok)
	}
	if _, err := w.Write(make([]byte, 1000)); err != nil {
		t.Fatal(err)
	}
	if room, ok := c.WriteRoom(); !ok || room != empty-1000 {
		t.Fatalf("room after 1000 unread bytes: %d %v, want %d", room, ok, empty-1000)
	}
	if _, err := io.ReadFull(r, make([]byte, 600)); err != nil {
		t.Fatal(err)
	}
	if room, ok := c.WriteRoom(); !ok || room != empty-400 {
		t.Fatalf("room after 600 bytes read: %d %v, want %d", room, ok, empty-400)
	}
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := stdio.NewConn(io.NopCloser(strings.NewReader("")), f).WriteRoom(); ok {
		t.Fatal("a file reported a pipe's room")
	}
}
