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

// killProcessGroup kills cmd's whole process group. The leader has not been waited for yet
// (stop calls this before the exit it waits for), so its pid, the group's id, is not reused.
func killProcessGroup(cmd *exec.Cmd) {
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}
