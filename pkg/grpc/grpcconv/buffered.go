package grpcconv

import (
	"math"
	"strconv"
	"time"
)

// BufferedForHeader carries, on a Wait that returned a finished cell's Result, the nanoseconds
// the Result waited for an observer (0 when the Wait watched the cell finish): Codex 0.169's
// result_buffered_for_ns, which gRPC sends as initial metadata, not as a field.
const BufferedForHeader = "codex-code-mode-result-buffered-for-ns"

// ParseBufferedFor reads BufferedForHeader's value; ok is false when it is absent or not a
// decimal u64. Values beyond time.Duration's range saturate.
func ParseBufferedFor(v string) (d time.Duration, ok bool) {
	if v == "" {
		return 0, false
	}
	ns, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return 0, false
	}
	if ns > math.MaxInt64 {
		return time.Duration(math.MaxInt64), true
	}
	return time.Duration(ns), true
}
