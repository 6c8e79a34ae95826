//go:build !unix && !windows

package procgroup

import "os"

// system is nothing where neither process groups nor job objects exist (wasip1, plan9).
type system struct{}

// prepare does nothing: the command's own process is all there is to kill.
func (g *Group) prepare() {}

// started has nothing to do.
func (g *Group) started() error { return nil }

// kill kills the command's own process.
func (g *Group) kill() error { return g.cmd.Process.Kill() }

// interrupt sends os.Interrupt to the command's own process.
func (g *Group) interrupt() error { return g.cmd.Process.Signal(os.Interrupt) }
