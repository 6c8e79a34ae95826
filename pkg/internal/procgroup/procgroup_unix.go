//go:build unix

package procgroup

import (
	"errors"
	"os"
	"syscall"
)

// system is the process group's id: the leader's pid.
type system struct{ pgid int }

// prepare makes the command the leader of a new process group.
func (g *Group) prepare() {
	if g.cmd.SysProcAttr == nil {
		g.cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	g.cmd.SysProcAttr.Setpgid = true
}

// started notes the group's id: the kernel made the group when the leader started.
func (g *Group) started() error {
	g.sys.pgid = g.cmd.Process.Pid
	return nil
}

// kill sends SIGKILL to the group. It may race with the leader's exit: the group's id is the
// leader's pid, which the kernel does not hand out again while any process of the group lives;
// only when the whole group is gone could the id name a new group, in the microseconds before
// exec.Cmd stops calling Cancel.
func (g *Group) kill() error { return g.signal(syscall.SIGKILL) }

// interrupt sends SIGINT to the group.
func (g *Group) interrupt() error { return g.signal(syscall.SIGINT) }

// signal sends sig to every process of the group.
func (g *Group) signal(sig syscall.Signal) error {
	err := syscall.Kill(-g.sys.pgid, sig)
	if errors.Is(err, syscall.ESRCH) {
		return os.ErrProcessDone
	}
	return err
}
