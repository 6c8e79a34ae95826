package jsruntime

import (
	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/jsruntime/internal/engine"
)

// Test hooks: the helpers the white-box tests share, under exported names, for the black-box
// tests (package jsruntime_test), which need nothing else of the package's internals. They exist
// only in the test binary.
var (
	NewTestSession      = newTestSession
	ExecuteCell         = executeCell
	FirstResponse       = firstResponse
	FollowCell          = followCell
	RunCellToEnd        = runCellToEnd
	TextsOf             = textsOf
	ErrorTextOf         = errorTextOf
	TestTool            = testTool
	NewRecorder         = newRecorder
	EchoTool            = echoTool
	EchoDelegate        = echoDelegate
	ImportSpecifiers    = importSpecifiers
	JSONText            = jsonText
	RunEveryOutput      = runEveryOutput
	ExpectTexts         = expectTexts
	ExpectFailure       = expectFailure
	AwaitCellGoroutines = awaitCellGoroutines
	StartCell           = startCell
	InitialResponse     = initialResponse
	PtrU64              = ptrU64
	WaitCell            = waitCell
	WaitWarm            = waitWarm
	Recurse             = recurse
)

// GuardTimeout bounds the black-box tests' waits for events, as guardTimeout does the others'.
const GuardTimeout = guardTimeout

// The error texts the runtime builds itself.
const (
	OutOfMemoryTextFormat = outOfMemoryTextFormat
	StackOverflowText     = stackOverflowText
)

// RecordingDelegate records the calls, notifications and closures that reach it.
type RecordingDelegate = recordingDelegate

// RecordCall records a tool call as InvokeTool does, for a wrapper that starts calls itself.
func (d *recordingDelegate) RecordCall(call codemode.NestedToolCall) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.calls = append(d.calls, call)
}

// FuncDelegate is a Delegate whose tool calls run a function.
type FuncDelegate = funcDelegate

// Snapshot is the recorder's calls, notifications and closed cells so far.
func (d *recordingDelegate) Snapshot() (calls []codemode.NestedToolCall, notes []string, closed []codemode.CellID) {
	return d.snapshot()
}

// Closed delivers the IDs of the cells the recorder was told are closed, in order.
func (d *recordingDelegate) Closed() <-chan codemode.CellID { return d.closedC }

// ObserveResets has f see every engine p's pool takes back after a cell, until stop is called.
func (p *Provider) ObserveResets(f func(engine.ResetReport)) (stop func()) {
	return p.pool.ObserveResets(f)
}

// SplitLongStrings exposes the split of tool results (longstrings.go) with a batch's whole room.
func SplitLongStrings(b []byte) (skeleton []byte, places string, values []string, ok bool) {
	return splitLongStrings(b, 0, maxLongStrings)
}
