package v1convert

import (
	"github.com/codemodehq/codemode/gen/go/wirev1"
	"github.com/codemodehq/codemode/pkg/codemode"
)

// SessionLimitsToWire returns the session limits for session/open, or nil when no limit is set, so
// that a session without limits opens on a host that did not grant
// session-cell-execution-resource-limits (docs/protocol/v1.md#handshake).
func SessionLimitsToWire(l codemode.SessionCellExecutionLimits) *wirev1.WireSessionCellExecutionLimits {
	if l.IsDefault() {
		return nil
	}
	return &wirev1.WireSessionCellExecutionLimits{MaxYieldTimeMs: l.MaxYieldTimeMs, MaxHeapSizeBytes: l.MaxHeapSizeBytes}
}

// SessionLimitsFromWire converts received limits; nil means no limit. The domain keeps heap sizes as
// u64, so nothing can overflow here (a usize, Codex's type, could on 32-bit targets).
func SessionLimitsFromWire(w *wirev1.WireSessionCellExecutionLimits) codemode.SessionCellExecutionLimits {
	if w == nil {
		return codemode.SessionCellExecutionLimits{}
	}
	return codemode.SessionCellExecutionLimits{MaxYieldTimeMs: w.MaxYieldTimeMs, MaxHeapSizeBytes: w.MaxHeapSizeBytes}
}
