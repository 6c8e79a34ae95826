package codemode

import "fmt"

// Codex's failure reasons. The "V8" in two of them is Codex's text, kept so that owners match the
// same strings whichever runtime reports them.
const (
	// FailureToolTaskPanicked: a tool call's delegate (BlockingDelegate.InvokeTool, or
	// Delegate.StartToolCall itself) panicked. The cell's promise is rejected with the same text.
	FailureToolTaskPanicked = "code mode tool task panicked"
	// FailureNotificationTaskPanicked: a notification's delegate (BlockingDelegate.Notify, or
	// Delegate.StartNotify itself) panicked. The cell goes on.
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
