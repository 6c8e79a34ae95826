package grpchost

import (
	"context"
	"strings"

	"connectrpc.com/connect/v2"
)

// traceparent returns the W3C trace parent the caller of an RPC sent, or "" when it sent none or
// one that is malformed. The host has no tracer of its own: the caller's context is passed on, as
// is, to the tool calls of the cell it started (ToolCall.traceparent).
func traceparent(ctx context.Context) string {
	info, ok := connect.CallInfoForServerContext(ctx)
	if !ok {
		return ""
	}
	v := strings.TrimSpace(info.RequestHeader().Get("traceparent"))
	if !validTraceparent(v) {
		return ""
	}
	return v
}

// validTraceparent checks the version-00 layout "00-<32 hex trace id>-<16 hex parent id>-<2 hex
// flags>" with non-zero IDs (W3C Trace Context, §3.2). Later versions may append fields after the
// flags; they are accepted if the first four fields are well formed.
func validTraceparent(v string) bool {
	if len(v) < 55 || (len(v) > 55 && (v[:2] == "00" || v[55] != '-')) {
		return false
	}
	if v[2] != '-' || v[35] != '-' || v[52] != '-' || v[:2] == "ff" {
		return false
	}
	version, trace, parent, flags := v[0:2], v[3:35], v[36:52], v[53:55]
	return lowerHex(version) && lowerHex(trace) && lowerHex(parent) && lowerHex(flags) &&
		strings.Trim(trace, "0") != "" && strings.Trim(parent, "0") != ""
}

func lowerHex(s string) bool {
	for i := range len(s) {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
