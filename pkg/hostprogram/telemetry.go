package hostprogram

import (
	"context"
	"errors"
	"strings"

	"connectrpc.com/connect/v2"

	"github.com/codemodehq/codemode/pkg/jsruntime"
	"github.com/codemodehq/codemode/pkg/telemetry/metrics"
	"github.com/codemodehq/codemode/pkg/toolsources/toolprovider"
)

// Refusal reasons of the gRPC host, the values of codemode_refusals_total's reason label besides
// the session-level ones of pkg/telemetry/metrics (docs/operations.md).
const (
	refusedTooManySessions      = "too_many_sessions"
	refusedTooManyRequests      = "too_many_requests"
	refusedTooManyCells         = "too_many_cells"
	refusedTooManyControl       = "too_many_control_requests"
	refusedTooManySubscriptions = "too_many_subscriptions"
	refusedResourceExhausted    = "resource_exhausted"
	refusedInvalidArgument      = "invalid_argument"
	refusedNotFound             = "not_found"
	refusedShuttingDown         = "shutting_down"
)

// grpcRefusals are the reasons refusalReason returns, so that their counters start at zero.
var grpcRefusals = []string{
	refusedTooManySessions, refusedTooManyRequests, refusedTooManyCells, refusedTooManyControl,
	refusedTooManySubscriptions, refusedResourceExhausted, refusedInvalidArgument, refusedNotFound,
	refusedShuttingDown,
}

// newRecorder returns the program's metrics and log lines of sessions, cells and tool calls.
func (p *Program) newRecorder() *metrics.Recorder {
	return metrics.New(metrics.Options{
		Logger:         p.log,
		ToolTimedOut:   func(err error) bool { return errors.Is(err, toolprovider.ErrTimedOut) },
		RefusalReasons: grpcRefusals,
		PoolSize:       p.poolSize(),
		PoolStats:      p.runtime.poolStats,
	})
}

// poolSize is the number of runtimes the provider keeps ready (Config.PoolSize: 0 is the
// runtime's default, negative none).
func (p *Program) poolSize() int {
	switch {
	case p.cfg.PoolSize == 0:
		return jsruntime.DefaultPoolSize
	case p.cfg.PoolSize < 0:
		return 0
	}
	return p.cfg.PoolSize
}

// countRefusals is the gRPC host's interceptor that counts and logs the requests it refuses:
// its caps (RESOURCE_EXHAUSTED), malformed requests (INVALID_ARGUMENT), unknown sessions
// (NOT_FOUND) and requests that arrive while it drains (UNAVAILABLE). A session's own refusals (FAILED_PRECONDITION) are counted by the metrics
// decorator, which sees their cause.
func (p *Program) countRefusals(next connect.ServerFunc) connect.ServerFunc {
	return func(ctx context.Context, spec connect.Spec, stream connect.ServerStream) error {
		err := next(ctx, spec, stream)
		if err == nil {
			return nil
		}
		if reason := refusalReason(err); reason != "" {
			p.metrics.Refused(reason, "procedure", spec.Procedure, "code", connect.CodeOf(err).String())
		}
		return err
	}
}

// refusalReason names the refusal err is, or "" when err is no refusal (a cancelled stream, a
// session's failure). The texts are the gRPC host's own (grpchost's limits).
func refusalReason(err error) string {
	switch connect.CodeOf(err) {
	case connect.CodeInvalidArgument:
		return refusedInvalidArgument
	case connect.CodeNotFound:
		return refusedNotFound
	case connect.CodeUnavailable:
		return refusedShuttingDown
	case connect.CodeResourceExhausted:
	default:
		return ""
	}
	text := err.Error()
	for _, r := range []struct{ text, reason string }{
		{"too many open sessions", refusedTooManySessions},
		{"too many in-flight requests", refusedTooManyRequests},
		{"too many active cells", refusedTooManyCells},
		{"too many in-flight control requests", refusedTooManyControl},
		{"too many tool subscriptions", refusedTooManySubscriptions},
	} {
		if strings.Contains(text, r.text) {
			return r.reason
		}
	}
	return refusedResourceExhausted
}
