package grpcclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// goexitDetail says how a delegate callback ended when it ended its goroutine instead of
// returning (runtime.Goexit, as t.FailNow in a test delegate does).
const goexitDetail = "its goroutine ended without returning"

// The delegate's callbacks run the owner's code; a panic or a runtime.Goexit in them must not take
// the session down. They are contained as in-process sessions contain them, with the same texts,
// and reported to the delegate's codemode.FailureReporter.

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

// invokeTool runs the delegate's InvokeTool on the calling goroutine, which is the tool call's
// own (a goroutine per call is the hot path's cost; a second one only to contain a Goexit would
// double it). A panic fails the call with codemode.FailureToolTaskPanicked and is reported. A
// Goexit ends the calling goroutine: settle, deferred by the caller, then completes the call with
// codemode.ToolTaskFailure, as the goroutine unwinds.
func invokeTool(ctx context.Context, d codemode.Delegate, call codemode.NestedToolCall) (out json.RawMessage, err error) {
	defer func() {
		if p := recover(); p != nil {
			codemode.ReportFailure(d, codemode.FailureToolTaskPanicked)
			out, err = nil, errors.New(codemode.FailureToolTaskPanicked)
		}
	}()
	return d.InvokeTool(ctx, call)
}

// goexitFailure is the failure of a tool call whose delegate ended its goroutine; it is reported.
func goexitFailure(d codemode.Delegate) string {
	reason := codemode.ToolTaskFailure(goexitDetail)
	codemode.ReportFailure(d, reason)
	return reason
}

// notify runs the delegate's Notify; a panic or Goexit is reported. The cell does not depend on
// the notification, so its error only matters to the delegate.
func notify(ctx context.Context, d codemode.Delegate, callID string, cell codemode.CellID, text string) {
	p, exited := contained(func() { _ = d.Notify(ctx, callID, cell, text) })
	switch {
	case p != nil:
		codemode.ReportFailure(d, codemode.FailureNotificationTaskPanicked)
	case exited:
		codemode.ReportFailure(d, codemode.NotificationTaskFailure(goexitDetail))
	}
}

// cellClosed runs the delegate's CellClosed; a panic or Goexit is reported as the cell's task
// failing.
func cellClosed(d codemode.Delegate, cell codemode.CellID) {
	p, exited := contained(func() { d.CellClosed(cell) })
	switch {
	case p != nil:
		codemode.ReportFailure(d, codemode.CellTaskFailure(cell, fmt.Sprintf("CellClosed panicked: %v", p)))
	case exited:
		codemode.ReportFailure(d, codemode.CellTaskFailure(cell, "CellClosed ended its goroutine without returning"))
	}
}
