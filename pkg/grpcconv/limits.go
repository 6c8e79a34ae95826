package grpcconv

import (
	pb "github.com/codemodehq/codemode/gen/go/pb/codex/code_mode/v1"
	"github.com/codemodehq/codemode/pkg/codemode"
)

// SessionLimits converts the limits of an OpenSessionRequest; nil means no limits.
func SessionLimits(l *pb.SessionCellExecutionLimits) codemode.SessionCellExecutionLimits {
	var out codemode.SessionCellExecutionLimits
	if l == nil {
		return out
	}
	if l.MaxYieldTimeMs != nil {
		v := *l.MaxYieldTimeMs
		out.MaxYieldTimeMs = &v
	}
	if l.MaxHeapSizeBytes != nil {
		v := *l.MaxHeapSizeBytes
		out.MaxHeapSizeBytes = &v
	}
	return out
}

// SessionLimitsToProto is SessionLimits' inverse. Like Codex it returns nil, leaving the field
// unset, unless at least one limit is set.
func SessionLimitsToProto(l codemode.SessionCellExecutionLimits) *pb.SessionCellExecutionLimits {
	if l.IsDefault() {
		return nil
	}
	out := &pb.SessionCellExecutionLimits{}
	if l.MaxYieldTimeMs != nil {
		v := *l.MaxYieldTimeMs
		out.MaxYieldTimeMs = &v
	}
	if l.MaxHeapSizeBytes != nil {
		v := *l.MaxHeapSizeBytes
		out.MaxHeapSizeBytes = &v
	}
	return out
}
