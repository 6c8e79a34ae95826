//go:build unix

package toolprovider

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// killProcessGroupOnCancel starts cmd as the leader of a new process group and makes its
// cancellation kill the whole group, so that what the command started (a shell's children, the
// program `go run` builds and runs) dies with it instead of living on unobserved.
func killProcessGroupOnCancel(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		// Cancel may race with the leader's exit. The group's id is the leader's pid, which the
		// kernel does not hand out again while any process of the group lives; only when the
		// whole group is gone could the id name a new group, in the microseconds before
		// exec.Cmd stops calling Cancel.
		err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		if errors.Is(err, syscall.ESRCH) {
			return os.ErrProcessDone
		}
		return err
	}
}
