//go:build unix

package procgroup

import (
	"bufio"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startShell starts sh -c script in a group with its stdout on a pipe, and returns the group and
// the pipe's read end: it reaches end of file once every process holding the write end (the
// shell and what it started) is gone.
func startShell(t *testing.T, script string) (*Group, *exec.Cmd, *bufio.Reader, *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	cmd := exec.Command("sh", "-c", script)
	cmd.Stdout = w
	g := New(cmd)
	if err := g.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if err := r.SetReadDeadline(time.Now().Add(guard)); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewReader(r)
	if line, err := lines.ReadString('\n'); err != nil || line != "ready\n" {
		t.Fatalf("the shell printed %q, %v; want ready", line, err)
	}
	return g, cmd, lines, r
}

// Kill reaches what the command started: the background sleep, which holds the pipe, dies with
// the shell, so the pipe ends.
func TestKillKillsWhatTheCommandStarted(t *testing.T) {
	g, cmd, lines, _ := startShell(t, "sleep 1000 & echo ready; wait")
	if err := g.Kill(); err != nil {
		t.Fatal(err)
	}
	if rest, err := io.ReadAll(lines); err != nil {
		t.Fatalf("the shell's child survived the kill (%q): %v", rest, err)
	}
	if err := cmd.Wait(); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Fatalf("Wait = %v, want the shell killed", err)
	}
}

// The command is the leader of its own group, not in the test's.
func TestTheCommandLeadsANewGroup(t *testing.T) {
	_, cmd, _, _ := startShell(t, "echo ready; exec sleep 1000")
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	pgid, err := syscall.Getpgid(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	if pgid != cmd.Process.Pid || pgid == syscall.Getpgrp() {
		t.Fatalf("the command's group is %d, want its own pid %d (the test's group is %d)", pgid, cmd.Process.Pid, syscall.Getpgrp())
	}
}

// Interrupt sends SIGINT to the group.
func TestInterruptSendsSIGINT(t *testing.T) {
	g, cmd, _, _ := startShell(t, "echo ready; exec sleep 1000")
	if err := g.Interrupt(); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGINT {
		t.Fatalf("Wait = %v, want the command ended by SIGINT", err)
	}
}

// Before Start there is no group to kill: Kill refuses instead of signalling group 0, the
// caller's own.
func TestKillBeforeStartRefuses(t *testing.T) {
	g := New(exec.Command("sh", "-c", "exit 0"))
	if err := g.Kill(); !errors.Is(err, errNotStarted) {
		t.Fatalf("Kill before Start = %v, want errNotStarted", err)
	}
	if err := g.Interrupt(); !errors.Is(err, errNotStarted) {
		t.Fatalf("Interrupt before Start = %v, want errNotStarted", err)
	}
}
