//go:build unix

package mcptools

import (
	"os/exec"
	"syscall"
)

// newProcessGroup starts cmd as the leader of a new process group, so that what a server starts
// (the program `go run` builds, a shell's children) can be stopped with it.
func newProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killProcessGroup kills cmd's whole process group. stop calls it when the leader has not
// exited within the grace period; should the leader exit and be reaped in the same instant, the
// group's id could in principle name a new group, in the microseconds before the kill (the same
// window pkg/toolsources/toolprovider accepts).
func killProcessGroup(cmd *exec.Cmd) {
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}
