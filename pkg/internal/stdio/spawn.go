package stdio

import (
	"io"
	"os/exec"

	"github.com/codemodehq/codemode/pkg/internal/procgroup"
)

// Pipes are a spawned process's standard streams, seen from its parent.
type Pipes struct {
	Stdin  io.WriteCloser
	Stdout io.ReadCloser
	Stderr io.ReadCloser
	// Group kills the process with everything it started.
	Group *procgroup.Group
}

// Spawn starts c in a group of its own (a process group, a job object on Windows: a kill of the
// group reaches nothing else) with its three standard streams as pipes. c must not have been
// started.
func Spawn(c *exec.Cmd) (Pipes, error) {
	p := Pipes{Group: procgroup.New(c)}
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
	if err := p.Group.Start(); err != nil {
		return Pipes{}, err
	}
	return p, nil
}
