package grpcclient

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"time"
	"unicode/utf8"
)

// transportTimeout is each request's allowance for the transport (Codex's TRANSPORT_TIMEOUT,
// docs/protocol/grpc.md#execute); requests that wait on the runtime get its allowance on top.
const transportTimeout = 60 * time.Second

// maxErrorBytes bounds a failure text built from a transport status.
const maxErrorBytes = 512

// errTimedOut is the cause of a request's context when its deadline passed.
var errTimedOut = errors.New("gRPC code-mode request deadline")

// RequestError is a request that failed with a transport status. Its text is "gRPC code-mode
// {operation} failed: {status}" bounded to 512 bytes on a UTF-8 boundary; the status itself is
// kept for errors.As (a *connect.Error keeps its code).
type RequestError struct {
	text string
	err  error
}

// Error returns the bounded failure text.
func (e *RequestError) Error() string { return e.text }

// Unwrap returns the transport's error.
func (e *RequestError) Unwrap() error { return e.err }

// failure builds a RequestError for operation.
func failure(operation string, err error) *RequestError {
	return &RequestError{text: boundText(fmt.Sprintf("gRPC code-mode %s failed: %v", operation, err)), err: err}
}

// boundText truncates s to maxErrorBytes on a UTF-8 boundary, ending it with "...".
func boundText(s string) string {
	if len(s) <= maxErrorBytes {
		return s
	}
	cut := maxErrorBytes - len("...")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}

// timeoutError is what a request whose deadline passed fails with; it fails its session too.
func timeoutError(operation string) error {
	return fmt.Errorf("gRPC code-mode host timed out waiting for %s response", operation)
}

// enforce runs request with the transport's allowance plus runtime. It returns request's own
// error as a RequestError, or, if the deadline passed first, timed=true and timeoutError.
func enforce(ctx context.Context, operation string, runtime time.Duration, request func(context.Context) error) (timed bool, err error) {
	ctx, cancel := context.WithTimeoutCause(ctx, saturatingAdd(runtime, transportTimeout), errTimedOut)
	defer cancel()
	err = request(ctx)
	switch {
	case err == nil:
		return false, nil
	case context.Cause(ctx) == errTimedOut:
		return true, timeoutError(operation)
	default:
		return false, failure(operation, err)
	}
}

// runtimeAllowance is the time a request may wait on the runtime: its yield time plus 1 s
// (docs/protocol/grpc.md#execute), the grace a host may add to a yield deadline
// (docs/protocol/javascript.md#yield-deadlines).
func runtimeAllowance(yieldMs uint64) time.Duration {
	const maxMs = uint64(1<<63-1) / uint64(time.Millisecond)
	if yieldMs > maxMs {
		yieldMs = maxMs
	}
	return saturatingAdd(time.Duration(yieldMs)*time.Millisecond, time.Second)
}

// saturatingAdd adds non-negative durations without overflowing.
func saturatingAdd(a, b time.Duration) time.Duration {
	if s := a + b; s >= a {
		return s
	}
	return 1<<63 - 1
}

// enforceStream is enforce for one Receive of a stream: when the deadline passes first, cancel
// (the stream's) is called, which ends the Receive. A clean end of the stream (io.EOF) is
// returned as is, for the caller to interpret.
func enforceStream(cancel context.CancelFunc, operation string, runtime time.Duration, receive func() error) (timed bool, err error) {
	var fired atomic.Bool
	t := time.AfterFunc(saturatingAdd(runtime, transportTimeout), func() {
		fired.Store(true)
		cancel()
	})
	err = receive()
	t.Stop()
	switch {
	case err == nil:
		return false, nil
	case fired.Load():
		return true, timeoutError(operation)
	case errors.Is(err, io.EOF):
		return false, err
	default:
		return false, failure(operation, err)
	}
}

// errBindingStopped is what a request fails with when its binding stops under it.
var errBindingStopped = errors.New("gRPC code-mode session closed")

// request runs a unary request of the binding under the deadline of operation. A timeout fails
// the whole binding: the host no longer answers, and everything else would wait as long.
func (b *binding) request(ctx context.Context, operation string, runtime time.Duration, f func(context.Context) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(b.ctx, cancel)
	defer stop()
	timed, err := enforce(ctx, operation, runtime, f)
	switch {
	case err == nil:
		return nil
	case timed:
		b.stop(leaseFailed, err)
		return err
	case b.life().routeLost:
		return ErrSessionReset
	case b.stopped():
		return errBindingStopped
	}
	return err
}
