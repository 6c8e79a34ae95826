package v1convert

import (
	"github.com/codemodehq/codemode/gen/go/wirev1"
	"github.com/codemodehq/codemode/pkg/codemode"
)

// SessionLimitsToWire returns the session limits for session/open, or nil when no limit is set: Codex
// sends cellExecutionLimits only when at least one limit is set.
func SessionLimitsToWire(l codemode.SessionCellExecutionLimits) *wirev1.WireSessionCellExecutionLimits {
	if l.IsDefault() {
		return nil
	}
	return &wirev1.WireSessionCellExecutionLimits{MaxYieldTimeMs: l.MaxYieldTimeMs, MaxHeapSizeBytes: l.MaxHeapSizeBytes}
}

// SessionLimitsFromWire converts received limits; nil means no limit. The domain keeps heap sizes as
// u64, so unlike Codex's usize on 32-bit targets nothing can overflow here.
func SessionLimitsFromWire(w *wirev1.WireSessionCellExecutionLimits) codemode.SessionCellExecutionLimits {
	if w == nil {
		return codemode.SessionCellExecutionLimits{}
	}
	return codemode.SessionCellExecutionLimits{MaxYieldTimeMs: w.MaxYieldTimeMs, MaxHeapSizeBytes: w.MaxHeapSizeBytes}
}
