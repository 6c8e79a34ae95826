// Package procgroup starts a command as the first process of a group that is killed as a whole,
// so that what the command starts (a shell's children, the program `go run` builds and runs)
// dies with it instead of living on unobserved: a process group on Unix, a job object on
// Windows. Every program of the module that spawns a child it may have to kill (tool commands,
// MCP servers, an exec-server, a code-mode host) starts it here.
package procgroup

import (
	"errors"
	"os/exec"
	"sync"
)

// errNotStarted is Kill's and Interrupt's error before Start: without a process there is no group
// (and on Unix a zero group id would name the caller's own group).
var errNotStarted = errors.New("procgroup: the command has not been started")

// Group is a command and every process it starts.
type Group struct {
	cmd *exec.Cmd
	// mu orders Start's set-up after the process exists (Windows: joining the job) before any
	// Kill: exec.Cmd may call Cancel (Kill) as soon as the process exists.
	mu  sync.Mutex
	sys system
}

// New prepares cmd, which must not have been started, to start in a group of its own. Start it
// with the Group's Start, not cmd's, and set cmd.Cancel to Kill to kill the group when the
// command's context ends.
func New(cmd *exec.Cmd) *Group {
	g := &Group{cmd: cmd}
	g.prepare()
	return g
}

// Start starts the command in its group. A command that started but could not be put in its
// group is killed and waited for, and the error returned.
func (g *Group) Start() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if err := g.cmd.Start(); err != nil {
		return err
	}
	if err := g.started(); err != nil {
		_ = g.cmd.Process.Kill()
		_ = g.cmd.Wait()
		return err
	}
	return nil
}

// Kill kills every process of the group at once (SIGKILL; TerminateJobObject). It returns
// os.ErrProcessDone when no process of the group is left, as exec.Cmd's Cancel expects.
func (g *Group) Kill() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.cmd.Process == nil {
		return errNotStarted
	}
	return g.kill()
}

// Interrupt asks every process of the group to stop (SIGINT; CTRL_BREAK_EVENT on Windows, which
// reaches only console programs that share the host's console).
func (g *Group) Interrupt() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.cmd.Process == nil {
		return errNotStarted
	}
	return g.interrupt()
}
