package metrics

import (
	"cmp"
	"slices"
	"time"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// SessionInfo is one open session as /debug/sessions shows it.
type SessionInfo struct {
	// Session is the session's number in the process, as the log lines name it.
	Session string `json:"session"`
	// AgeMs is how long the session has been open.
	AgeMs int64 `json:"age_ms"`
	// CellsStarted counts the cells the session admitted.
	CellsStarted int `json:"cells_started"`
	// Cells are the session's live cells, in ID order.
	Cells []CellInfo `json:"cells"`
}

// CellInfo is one live cell as /debug/sessions shows it.
type CellInfo struct {
	// Cell is the cell's ID in its session.
	Cell string `json:"cell"`
	// State is "running", "yielded" (its last observation ended at the yield deadline) or
	// "closing" (closed, its outcome on its way).
	State string `json:"state"`
	// AgeMs is how long ago the cell was admitted.
	AgeMs int64 `json:"age_ms"`
	// PendingToolCalls are its tool calls awaiting their result.
	PendingToolCalls int `json:"pending_tool_calls"`
	// ToolCalls counts the tool calls it made.
	ToolCalls int `json:"tool_calls"`
	// PeakHeapBytes is the most memory the cell's runtime has held so far, as of its last turn;
	// absent when the session cannot tell (codemode.CellUsageProbe), or the cell is closing.
	PeakHeapBytes *uint64 `json:"peak_heap_bytes,omitempty"`
}

// Sessions returns the open sessions and their live cells, the oldest session first. It names
// sessions and cells and counts their calls; it never carries what a cell computes.
func (r *Recorder) Sessions() []SessionInfo {
	r.mu.Lock()
	sessions := make([]*session, 0, len(r.sessions))
	for s := range r.sessions {
		sessions = append(sessions, s)
	}
	r.mu.Unlock()
	now := time.Now()
	out := make([]SessionInfo, 0, len(sessions))
	for _, s := range sessions {
		out = append(out, s.info(now))
	}
	slices.SortFunc(out, func(a, b SessionInfo) int { return cmp.Compare(b.AgeMs, a.AgeMs) })
	return out
}

// info is the session's SessionInfo at now, with the live cells' heap where the session can
// tell it.
func (s *session) info(now time.Time) SessionInfo {
	info := s.recordedInfo(now)
	probe, ok := s.inner.(codemode.CellUsageProbe)
	if !ok {
		return info
	}
	// Asked without s.mu held: the inner session takes its own lock, and it calls the delegate,
	// which takes s.mu, so holding both could deadlock.
	for i := range info.Cells {
		if info.Cells[i].State == "closing" {
			continue
		}
		if usage, ok := probe.LiveCellUsage(codemode.CellID(info.Cells[i].Cell)); ok {
			info.Cells[i].PeakHeapBytes = &usage.PeakHeapBytes
		}
	}
	return info
}

// recordedInfo is the session's SessionInfo at now, from what the decorator itself records.
func (s *session) recordedInfo(now time.Time) SessionInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	info := SessionInfo{Session: s.id, AgeMs: now.Sub(s.opened).Milliseconds(), CellsStarted: s.started, Cells: []CellInfo{}}
	for _, c := range s.cells {
		if c.finished {
			continue
		}
		state := c.state
		switch {
		case c.closed:
			state = "closing"
		case state == "":
			state = "running"
		}
		info.Cells = append(info.Cells, CellInfo{Cell: string(c.id), State: state, AgeMs: now.Sub(c.admitted).Milliseconds(),
			PendingToolCalls: c.pendingTools, ToolCalls: c.toolCalls})
	}
	slices.SortFunc(info.Cells, func(a, b CellInfo) int {
		return cmp.Or(cmp.Compare(len(a.Cell), len(b.Cell)), cmp.Compare(a.Cell, b.Cell))
	})
	return info
}
