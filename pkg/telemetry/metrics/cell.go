package metrics

import (
	"strings"
	"time"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// outOfMemoryPrefix starts the error of a cell stopped at its heap limit (pkg/jsruntime's text:
// "RangeError: Out of memory: the cell needed more than its heap limit of N bytes").
const outOfMemoryPrefix = "RangeError: Out of memory"

// budgetMarker is in the out-of-memory error of a cell whose heap the host's memory budget could
// not grow (pkg/jsruntime's text: "…the code-mode host's memory budget of N bytes, shared by
// every cell, is spent…"): its log line's reason is memory_budget, not heap_limit.
const budgetMarker = "host's memory budget"

// cell is what a session keeps about one of its cells until it closes. Its fields are guarded by
// the session's mutex.
type cell struct {
	id       codemode.CellID
	admitted time.Time
	state    string // "running" (empty), "yielded"

	toolCalls, toolFailures, pendingTools int
	notifications, yields                 int
	bytesIn, outputBytes, bytesOut        int64

	outcome string
	reason  string // why a terminated cell was stopped
	// usage is what the runtime reported with the cell's closure (Delegate.CellUsage);
	// measured is false when the runtime reports nothing (a remote one).
	usage    codemode.CellUsage
	measured bool

	registered  bool // Execute returned the cell
	closed      bool // the session reported CellClosed
	terminating int  // Terminate calls under way
	finished    bool // counted and logged
}

// cellLine is a cell's log line, taken under the session's mutex.
type cellLine struct {
	outcome, reason                        string
	toolCalls, toolFailures, notifications int
	yields                                 int
	bytesIn, bytesOut                      int64
	usage                                  codemode.CellUsage
	measured                               bool
}

func (c *cell) snapshotLocked() cellLine {
	l := cellLine{outcome: c.outcome, toolCalls: c.toolCalls, toolFailures: c.toolFailures,
		notifications: c.notifications, yields: c.yields, bytesIn: c.bytesIn, bytesOut: c.bytesOut + c.outputBytes,
		usage: c.usage, measured: c.measured}
	switch c.outcome {
	case OutcomeTerminated:
		l.reason = c.reason
	case OutcomeOutOfMemory:
		l.reason = c.reason
		if l.reason == "" {
			l.reason = "heap_limit"
		}
	}
	return l
}

// outcomeOf classifies a terminal response.
func outcomeOf(resp codemode.RuntimeResponse) string {
	switch {
	case resp.Kind == codemode.Terminated:
		return OutcomeTerminated
	case resp.ErrorText == nil:
		return OutcomeOK
	case strings.HasPrefix(*resp.ErrorText, outOfMemoryPrefix):
		return OutcomeOutOfMemory
	}
	return OutcomeScriptError
}

// contentBytes is the size of a response's output: texts and the data URLs of images and audio.
func contentBytes(items []codemode.ContentItem) int64 {
	var n int64
	for _, item := range items {
		switch v := item.(type) {
		case codemode.InputText:
			n += int64(len(v.Text))
		case codemode.InputImage:
			n += int64(len(v.ImageURL))
		case codemode.InputAudio:
			n += int64(len(v.AudioURL))
		}
	}
	return n
}
