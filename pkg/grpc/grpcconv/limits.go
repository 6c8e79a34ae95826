package grpcconv

import (
	pb "github.com/codemodehq/codemode/gen/go/pb/codex/code_mode/v1"
	"github.com/codemodehq/codemode/pkg/codemode"
)

// SessionLimitsFromProto converts the limits of an OpenSessionRequest; nil means no limits.
func SessionLimitsFromProto(l *pb.SessionCellExecutionLimits) codemode.SessionCellExecutionLimits {
	if l == nil {
		return codemode.SessionCellExecutionLimits{}
	}
	return codemode.SessionCellExecutionLimits{MaxYieldTimeMs: copied(l.MaxYieldTimeMs), MaxHeapSizeBytes: copied(l.MaxHeapSizeBytes)}
}

// SessionLimitsToProto is SessionLimits' inverse. It returns nil, leaving the field unset, unless
// at least one limit is set (docs/protocol/grpc.md#session-lifecycle): unset is how "no limits"
// reads on the wire, to every host.
func SessionLimitsToProto(l codemode.SessionCellExecutionLimits) *pb.SessionCellExecutionLimits {
	if l.IsDefault() {
		return nil
	}
	return &pb.SessionCellExecutionLimits{MaxYieldTimeMs: copied(l.MaxYieldTimeMs), MaxHeapSizeBytes: copied(l.MaxHeapSizeBytes)}
}

// copied returns a pointer to a copy of *p, or nil: the converted limits share no memory with
// the message they came from.
func copied(p *uint64) *uint64 {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
