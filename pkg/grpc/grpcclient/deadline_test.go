package grpcclient

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"
	"unicode/utf8"

	"connectrpc.com/connect/v2"
)

// Codex's code-mode/src/grpc_session/deadline_tests.rs. Time runs in synctest bubbles: a deadline
// fires exactly when the fake clock reaches it.

// stalled is a request that never answers; it ends only with its context.
func stalled(ctx context.Context) error {
	<-ctx.Done()
	return context.Cause(ctx)
}

// startEnforce runs enforce in the bubble and returns a channel with its outcome.
func startEnforce(operation string, runtime time.Duration, request func(context.Context) error) <-chan error {
	out := make(chan error, 1)
	go func() {
		timed, err := enforce(context.Background(), operation, runtime, request)
		if err != nil && !timed {
			err = errors.Join(errors.New("not timed out"), err)
		}
		out <- err
	}()
	return out
}

// finished reports whether ch has a value once the bubble settled.
func finished(ch <-chan error) bool {
	synctest.Wait()
	return len(ch) > 0
}

func TestStalledTransportFailsAfterItsDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		out := startEnforce("termination", 0, stalled)
		time.Sleep(60*time.Second - time.Nanosecond)
		if finished(out) {
			t.Fatal("the request timed out before its 60 s transport deadline")
		}
		time.Sleep(time.Second)
		wantErr(t, "stalled request", <-out, "gRPC code-mode host timed out waiting for termination response")
	})
}

func TestRequestedRuntimeDurationIsAddedToTheTransportDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		out := startEnforce("wait", 120*time.Second, stalled)
		time.Sleep(61 * time.Second)
		if finished(out) {
			t.Fatal("the runtime allowance was not added")
		}
		time.Sleep(120 * time.Second)
		wantErr(t, "stalled wait", <-out, "gRPC code-mode host timed out waiting for wait response")
	})
}

func TestDefaultExecutionYieldAndGraceExtendTheOutcomeDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		out := startEnforce("execution outcome", runtimeAllowance(10_000), stalled)
		time.Sleep(70 * time.Second)
		if finished(out) {
			t.Fatal("the outcome deadline ignored the default yield time and its grace")
		}
		time.Sleep(time.Second + time.Nanosecond)
		wantErr(t, "stalled outcome", <-out, "gRPC code-mode host timed out waiting for execution outcome response")
	})
}

func TestTransportStatusIsPreserved(t *testing.T) {
	timed, err := enforce(context.Background(), "wait", 0, func(context.Context) error {
		return connect.NewError(connect.CodeNotFound, "missing")
	})
	var ce *connect.Error
	if timed || !errors.As(err, &ce) || ce.Code() != connect.CodeNotFound || ce.Message() != "missing" {
		t.Fatalf("enforce returned %v (timed %v), want the original NOT_FOUND status", err, timed)
	}
	wantErr(t, "failure text", err, "gRPC code-mode wait failed: not_found: missing")
}

func TestTransportStatusMessagesAreBoundedAtUtf8Boundaries(t *testing.T) {
	_, err := enforce(context.Background(), "session opening", 0, func(context.Context) error {
		return connect.NewError(connect.CodeInternal, strings.Repeat("🦀", maxErrorBytes))
	})
	text := err.Error()
	if len(text) > maxErrorBytes || !utf8.ValidString(text) || !strings.HasPrefix(text, "gRPC code-mode session opening failed:") || !strings.HasSuffix(text, "...") {
		t.Fatalf("failure text of %d bytes %q, want at most %d valid UTF-8 bytes ending in ...", len(text), text, maxErrorBytes)
	}
}

// A startup step that stalls (Go's counterpart of channel acquisition: opening the lease) times
// out, and the next attempt is not poisoned by it.
func TestStalledChannelAcquisitionTimesOutAndRemainsRetryable(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		out := startEnforce("transport connection", 0, stalled)
		time.Sleep(61 * time.Second)
		wantErr(t, "stalled connection", <-out, "gRPC code-mode host timed out waiting for transport connection response")
		timed, err := enforce(context.Background(), "transport connection", 0, func(context.Context) error { return nil })
		if timed || err != nil {
			t.Fatalf("the retry failed: %v", err)
		}
	})
}

// enforceStream cancels a stalled stream at its deadline and reports the timeout.
func TestStalledStreamReceiveIsCancelledAtItsDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		out := make(chan error, 1)
		go func() {
			_, err := enforceStream(cancel, "execution starting event", 0, func() error { return stalled(ctx) })
			out <- err
		}()
		time.Sleep(60 * time.Second)
		wantErr(t, "stalled receive", <-out, "gRPC code-mode host timed out waiting for execution starting event response")
	})
}
