package codemode

import "fmt"

// FailureReporter is an optional interface of a Delegate. A session whose delegate implements it
// reports there the failures that no response carries: a delegate callback that panicked, a cell's
// runtime that died, a cell's own goroutine that failed. Codex calls this the session's task
// failure handler; without one, such failures still end the affected cell or call with an error
// but nobody else hears of them.
//
// ReportFailure may be called concurrently, from any goroutine, with the session's lock released;
// it should return quickly. The reasons are Codex's texts (the Failure constants and formats).
type FailureReporter interface {
	ReportFailure(reason string)
}

// Codex's failure reasons. The "V8" in two of them is Codex's text, kept so that owners match the
// same strings whichever runtime reports them.
const (
	// FailureToolTaskPanicked: Delegate.InvokeTool panicked. The cell's promise is rejected with
	// the same text.
	FailureToolTaskPanicked = "code mode tool task panicked"
	// FailureNotificationTaskPanicked: Delegate.Notify panicked. The cell goes on.
	FailureNotificationTaskPanicked = "code mode notification task panicked"
	// FailureRuntimePanicked: the goroutine that runs a cell's JavaScript panicked. The cell ends
	// with ErrRuntimeEnded's text.
	FailureRuntimePanicked = "code-mode V8 runtime thread panicked"
	// FailureRuntimeEnded: that goroutine ended without publishing the cell's outcome (in Go:
	// runtime.Goexit). The cell ends with ErrRuntimeEnded's text.
	FailureRuntimeEnded = "code-mode V8 runtime thread ended unexpectedly"
)

// ToolTaskFailure is Codex's reason for a tool call whose goroutine ended abnormally without
// panicking (in Go: runtime.Goexit inside the delegate, for instance t.FailNow).
func ToolTaskFailure(detail string) string {
	return fmt.Sprintf("code mode tool task failed: %s", detail)
}

// NotificationTaskFailure is ToolTaskFailure for a notification.
func NotificationTaskFailure(detail string) string {
	return fmt.Sprintf("code mode notification task failed: %s", detail)
}

// CellTaskFailure is Codex's reason for a failure of a cell's own bookkeeping outside its
// JavaScript, such as a Delegate.CellClosed that panicked.
func CellTaskFailure(id CellID, detail string) string {
	return fmt.Sprintf("code-mode cell %s task failed: %s", id, detail)
}

// ReportFailure hands reason to d if d implements FailureReporter and reports whether it did.
func ReportFailure(d Delegate, reason string) bool {
	r, ok := d.(FailureReporter)
	if ok {
		r.ReportFailure(reason)
	}
	return ok
}
