package jsruntime_test

import (
	"testing"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/codemode/codemodetest"
	"github.com/codemodehq/codemode/pkg/jsruntime"
)

// TestConformance runs the shared Code Mode session contract suite against the in-process
// QuickJS provider, the reference every remote transport is compared with.
func TestConformance(t *testing.T) {
	codemodetest.Run(t, func(t *testing.T) codemode.SessionProvider {
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
	})
}
