package hostprogram

import (
	"context"
	"errors"
	"testing"

	"connectrpc.com/connect/v2"
)

// TestRefusalReason names each refusal of the gRPC host by its status and text, and counts no
// other error.
func TestRefusalReason(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{connect.NewError(connect.CodeResourceExhausted, "code-mode host has too many open sessions"), refusedTooManySessions},
		{connect.NewError(connect.CodeResourceExhausted, "code-mode host has too many in-flight requests"), refusedTooManyRequests},
		{connect.NewError(connect.CodeResourceExhausted, "code-mode host has too many active cells"), refusedTooManyCells},
		{connect.NewError(connect.CodeResourceExhausted, "code-mode host has too many in-flight control requests"), refusedTooManyControl},
		{connect.NewError(connect.CodeResourceExhausted, "code-mode session has too many tool subscriptions"), refusedTooManySubscriptions},
		{connect.NewError(connect.CodeResourceExhausted, "something else"), refusedResourceExhausted},
		{connect.NewError(connect.CodeInvalidArgument, "invalid session ID"), refusedInvalidArgument},
		{connect.NewError(connect.CodeNotFound, "unknown code-mode session ID"), refusedNotFound},
		{connect.NewError(connect.CodeUnavailable, "code-mode host is shutting down"), refusedShuttingDown},
		{connect.NewError(connect.CodeFailedPrecondition, "code mode session is shutting down"), ""},
		{connect.NewError(connect.CodeCanceled, "the client went away"), ""},
		{context.Canceled, ""},
		{errors.New("plain"), ""},
	} {
		if got := refusalReason(c.err); got != c.want {
			t.Errorf("refusalReason(%v) = %q, want %q", c.err, got, c.want)
		}
	}
}
