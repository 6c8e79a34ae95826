package hostprogram

import (
	"errors"
	"io"
	"testing"
	"time"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/jsruntime"
)

// parseFlags parses args as the host's command line and finishes them.
func parseFlags(args ...string) (Flags, error) {
	var f Flags
	if err := f.FlagSet("codemode-host").Parse(args); err != nil {
		return f, err
	}
	return f, f.Finish(func(string) string { return "" }, io.Discard)
}

func TestMemoryBudgetFlag(t *testing.T) {
	f, err := parseFlags("--memory-budget", "512Mi")
	if err != nil || f.MemoryBudget != 512<<20 {
		t.Fatalf("512Mi: %d, %v", f.MemoryBudget, err)
	}
	if f, err = parseFlags("--memory-budget", "1073741824"); err != nil || f.MemoryBudget != 1<<30 {
		t.Fatalf("bytes: %d, %v", f.MemoryBudget, err)
	}
	var usage *UsageError
	for _, bad := range []string{"12x", "-5", "1Mi"} {
		if _, err := parseFlags("--memory-budget", bad); !errors.As(err, &usage) {
			t.Errorf("--memory-budget %s: %v, want a usage error", bad, err)
		}
	}
	if f, err = parseFlags(); err != nil || f.MemoryBudget != defaultMemoryBudget() || f.MemoryBudget <= 0 {
		t.Fatalf("the default: %d, %v", f.MemoryBudget, err)
	}
	if b := memoryBudget(512 << 20); b.Limit() != 384<<20 {
		t.Fatalf("a 512 MiB host budgets %d bytes", b.Limit())
	}
}

// TestHeapLimitsHaveACeiling: without --max-heap-bytes a client asking for a 4 GiB heap gets the
// runtime's default cap, as does a client that asks for nothing; with it, its value.
func TestHeapLimitsHaveACeiling(t *testing.T) {
	four := uint64(4 << 30)
	ask := codemode.SessionCellExecutionLimits{MaxHeapSizeBytes: &four}
	p := &Program{}
	if got := capLimits(ask, p.caps()).MaxHeapSizeBytes; got == nil || *got != jsruntime.DefaultHeapLimitBytes {
		t.Fatalf("a 4 GiB request without --max-heap-bytes: %v", got)
	}
	p.cfg.MaxHeapBytes = 64 << 20
	if got := capLimits(ask, p.caps()).MaxHeapSizeBytes; got == nil || *got != 64<<20 {
		t.Fatalf("a 4 GiB request under --max-heap-bytes 64Mi: %v", got)
	}
}

// TestUnobservedCellTimeoutFlag: --unobserved-cell-timeout defaults to the runtime's 30 minutes,
// 0 keeps unobserved cells (the runtime's "never", a negative timeout), a negative value is
// refused.
func TestUnobservedCellTimeoutFlag(t *testing.T) {
	if f, err := parseFlags(); err != nil || f.UnobservedCellTimeout != jsruntime.DefaultUnobservedCellTimeout {
		t.Fatalf("the default: %v, %v", f.UnobservedCellTimeout, err)
	}
	if f, err := parseFlags("--unobserved-cell-timeout", "5m"); err != nil || f.UnobservedCellTimeout != 5*time.Minute {
		t.Fatalf("5m: %v, %v", f.UnobservedCellTimeout, err)
	}
	if f, err := parseFlags("--unobserved-cell-timeout", "0"); err != nil || f.UnobservedCellTimeout >= 0 {
		t.Fatalf("0: %v, %v", f.UnobservedCellTimeout, err)
	}
	var usage *UsageError
	if _, err := parseFlags("--unobserved-cell-timeout", "-1s"); !errors.As(err, &usage) {
		t.Fatalf("-1s: %v, want a usage error", err)
	}
}
