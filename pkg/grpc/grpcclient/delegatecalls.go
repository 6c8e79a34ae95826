package grpcclient

import (
	"fmt"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// The delegate's CellClosed runs the owner's code; a panic or a runtime.Goexit in it must not take
// the session down. It is contained as in-process sessions contain it, with the same texts, and
// reported to the delegate's ReportFailure. (Its tool calls and notifications are contained by
// codemode.StartToolCall, codemode.StartNotify and codemode.FromBlocking.)

// contained calls f on a goroutine of its own and reports how f ended: it returned, panicked
// (with the value) or exited (runtime.Goexit). A Goexit cannot be stopped, only kept off the
// caller's goroutine.
func contained(f func()) (panicked any, exited bool) {
	done := make(chan struct{})
	returned := false
	go func() {
		defer close(done)
		defer func() { panicked = recover() }()
		f()
		returned = true
	}()
	<-done
	return panicked, !returned && panicked == nil
}

// cellClosed runs the delegate's CellClosed; a panic or Goexit is reported as the cell's task
// failing.
func cellClosed(d codemode.Delegate, cell codemode.CellID) {
	p, exited := contained(func() { d.CellClosed(cell) })
	switch {
	case p != nil:
		d.ReportFailure(codemode.CellTaskFailure(cell, fmt.Sprintf("CellClosed panicked: %v", p)))
	case exited:
		d.ReportFailure(codemode.CellTaskFailure(cell, "CellClosed ended its goroutine without returning"))
	}
}
