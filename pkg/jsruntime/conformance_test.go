package jsruntime_test

import (
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
