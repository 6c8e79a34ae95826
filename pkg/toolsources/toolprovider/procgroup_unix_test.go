//go:build unix

package toolprovider

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// survivalDeadline bounds how long a test waits for killed processes to be gone. It is a
// failure deadline, never a pause: the tests go on as soon as the processes are gone.
const survivalDeadline = time.Minute

// hangingTool is a tool whose command starts a child in its process group and never answers;
// the child holds the returned FIFO open for as long as it lives.
func hangingTool(t *testing.T, extra map[string]any) (*Provider, string) {
	t.Helper()
	fifo := filepath.Join(t.TempDir(), "child.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if extra == nil {
		extra = map[string]any{}
	}
	extra["set"] = map[string]string{"HELPER_FIFO": fifo}
	return loadTools(t, helperTool("hang", "hang", extra)), fifo
}

// openChild opens the FIFO for reading, which returns once the child has opened it for writing,
// and reads the pid the child writes first.
func openChild(t *testing.T, fifo string) *os.File {
	t.Helper()
	f, err := os.Open(fifo)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	if _, err := bufio.NewReader(f).ReadString('\n'); err != nil {
		t.Fatalf("reading the child's pid: %v", err)
	}
	return f
}

// requireGone waits until every writer of the FIFO has exited (the read end sees end of file):
// the child of the killed command died with it.
func requireGone(t *testing.T, f *os.File) {
	t.Helper()
	if err := f.SetReadDeadline(time.Now().Add(survivalDeadline)); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadAll(f); err != nil {
		t.Fatalf("the command's child survived it: %v", err)
	}
}

func invokeHang(ctx context.Context, p *Provider) error {
	_, err := p.InvokeTool(ctx, codemode.NestedToolCall{ToolName: codemode.ToolName{Name: "hang"}, ToolKind: codemode.ToolKindFunction})
	return err
}

// When the cell no longer needs a result (the call's ctx ends), the command is killed with its
// whole process group: the child it started dies too.
func TestCancellingACallKillsTheCommandsProcessGroup(t *testing.T) {
	p, fifo := hangingTool(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- invokeHang(ctx, p) }()

	f := openChild(t, fifo) // the command and its child are running
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("InvokeTool = %v, want context.Canceled", err)
	}
	requireGone(t, f)
}

// A command that hangs is cut off by its timeout; the call's error says so, and its process
// group dies with it.
func TestATimeoutCutsOffAHangingCommandAndItsGroup(t *testing.T) {
	p, fifo := hangingTool(t, map[string]any{"timeout": "1s"})
	done := make(chan error, 1)
	go func() { done <- invokeHang(context.Background(), p) }()

	opened := make(chan *os.File, 1)
	go func() {
		if f, err := os.Open(fifo); err == nil {
			opened <- f
		}
	}()
	var err error
	select {
	case f := <-opened:
		// The child started before the timeout: it must die with the command.
		t.Cleanup(func() { f.Close() })
		err = <-done
		requireGone(t, f)
	case err = <-done:
		// The machine was too slow for the child to start within the timeout; the timeout
		// itself is still checked. Unblock the opener.
		if w, werr := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); werr == nil {
			w.Close()
		}
		t.Log("the command timed out before its child opened the FIFO")
	}
	if !errors.Is(err, ErrTimedOut) || err.Error() != "tool `hang` timed out after 1s and was killed" {
		t.Fatalf("error %v", err)
	}
}
