package stdio

import (
	"io"
	"os/exec"
	"syscall"
)

// Pipes are a spawned process's standard streams, seen from its parent.
type Pipes struct {
	Stdin  io.WriteCloser
	Stdout io.ReadCloser
	Stderr io.ReadCloser
}

// Spawn starts c in a process group of its own (so that a kill of the group reaches nothing
// else) with its three standard streams as pipes. c must not have been started.
func Spawn(c *exec.Cmd) (Pipes, error) {
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var p Pipes
	var err error
	if p.Stdin, err = c.StdinPipe(); err != nil {
		return Pipes{}, err
	}
	if p.Stdout, err = c.StdoutPipe(); err != nil {
		return Pipes{}, err
	}
	if p.Stderr, err = c.StderrPipe(); err != nil {
		return Pipes{}, err
	}
	if err := c.Start(); err != nil {
		return Pipes{}, err
	}
	return p, nil
}
