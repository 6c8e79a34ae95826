package jsruntime

import "github.com/codemodehq/codemode/pkg/codemode"

// Test hooks: the helpers the white-box tests share, under exported names, for the black-box
// tests (package jsruntime_test), which need nothing else of the package's internals. They exist
// only in the test binary.
var (
	NewTestSession      = newTestSession
	ExecuteCell         = executeCell
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
