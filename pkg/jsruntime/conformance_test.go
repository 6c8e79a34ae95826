package jsruntime_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/codemode/codemodetest"
	"github.com/codemodehq/codemode/pkg/jsruntime"
)

// TestConformance runs the shared Code Mode session contract suite against the in-process
// QuickJS provider, the reference every remote transport is compared with. It runs on the
// bubble's fake clock (each provider is created and closed inside its subtest's bubble), so the
// cases that steer time run too and nothing depends on the machine's speed.
func TestConformance(t *testing.T) {
	codemodetest.Run(t, func(t *testing.T) codemode.SessionProvider {
		return newTestProvider(t)
	}, codemodetest.FakeTime())
}

// TestConformanceOnTheRealClock runs the suite as a transport that cannot run in a bubble does:
// on the real clock, where the cases that steer time are skipped and observers are found by
// probing. It keeps those paths of the suite honest.
func TestConformanceOnTheRealClock(t *testing.T) {
	codemodetest.Run(t, func(t *testing.T) codemode.SessionProvider {
		return newTestProvider(t)
	})
}

// TestConformanceThroughToolCallStarter runs the suite with every session's delegate behind
// codemode.ToolCallStarter, as a remote host's is (v1host), so the runtime's StartToolCall path
// keeps the contract too. The wrapper answers each call from a goroutine of its own, as a
// transport's reader would, and turns a delegate's panic into the failure a transport reports.
func TestConformanceThroughToolCallStarter(t *testing.T) {
	codemodetest.Run(t, func(t *testing.T) codemode.SessionProvider {
		return startingProvider{newTestProvider(t)}
	}, codemodetest.FakeTime())
}

// newTestProvider is a provider of the default options, closed when t ends.
func newTestProvider(t *testing.T) *jsruntime.Provider {
	p, err := jsruntime.NewProvider(jsruntime.Options{})
	if err != nil {
		t.Fatalf("jsruntime.NewProvider: %v", err)
	}
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Errorf("Provider.Close: %v", err)
		}
	})
	return p
}

// startingProvider wraps every session's delegate in a startingDelegate.
type startingProvider struct{ *jsruntime.Provider }

func (p startingProvider) CreateSession(ctx context.Context, d codemode.Delegate, limits codemode.SessionCellExecutionLimits) (codemode.Session, error) {
	return p.Provider.CreateSession(ctx, startingDelegate{d}, limits)
}

// startingDelegate is a Delegate with StartToolCall that runs the wrapped InvokeTool on a
// goroutine and hands its outcome to done.
type startingDelegate struct{ codemode.Delegate }

func (d startingDelegate) StartToolCall(ctx context.Context, call codemode.NestedToolCall, done func(json.RawMessage, error)) {
	go func() {
		defer func() {
			if p := recover(); p != nil {
				codemode.ReportFailure(d.Delegate, codemode.FailureToolTaskPanicked)
				done(nil, errors.New(codemode.FailureToolTaskPanicked))
			}
		}()
		done(d.InvokeTool(ctx, call))
	}()
}

func (d startingDelegate) ReportFailure(reason string) { codemode.ReportFailure(d.Delegate, reason) }
