package metrics_test

import (
	"testing"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/codemode/codemodetest"
	"github.com/codemodehq/codemode/pkg/jsruntime"
	"github.com/codemodehq/codemode/pkg/telemetry/metrics"
)

// TestConformance runs the conformance suite on the in-process runtime behind the decorator: the
// decorator observes and counts, and must change nothing a client sees (fake clock, so the cases
// that steer time run too).
func TestConformance(t *testing.T) {
	codemodetest.Run(t, func(t *testing.T) codemode.SessionProvider {
		return metrics.New(metrics.Options{}).Provider(newRuntime(t))
	}, codemodetest.FakeTime())
}

// newRuntime is an in-process provider, closed when t ends.
func newRuntime(t testing.TB) *jsruntime.Provider {
	t.Helper()
	p, err := jsruntime.NewProvider(jsruntime.Options{})
	if err != nil {
		t.Fatalf("jsruntime.NewProvider: %v", err)
	}
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Errorf("closing the provider: %v", err)
		}
	})
	return p
}
