package codemode_test

import (
	"math"
	"testing"

	"github.com/codemodehq/codemode/pkg/codemode"
)

func u64(v uint64) *uint64 { return &v }

// Codex: resolve_yield_timeout_applies_grace_before_session_limits, the same table row for row.
func TestEffectiveYieldTimeMs(t *testing.T) {
	cases := []struct {
		limit     *uint64
		requested uint64
		want      uint64
	}{
		{nil, 0, 0},
		{nil, 9_999, 9_999},
		{nil, 10_000, 11_000},
		{nil, 10_001, 11_001},
		{u64(0), 0, 0},
		{u64(0), 10_000, 0},
		{u64(5_000), 9_999, 5_000},
		{u64(10_000), 10_000, 10_000},
		{u64(10_500), 10_000, 10_500},
		{u64(11_000), 10_000, 11_000},
		{u64(12_000), 10_000, 11_000},
		{u64(10_500), 5_000, 5_000},
		{u64(math.MaxUint64), math.MaxUint64, math.MaxUint64},
	}
	for _, c := range cases {
		if got := codemode.EffectiveYieldTimeMs(c.requested, c.limit); got != c.want {
			t.Errorf("EffectiveYieldTimeMs(%d, %v) = %d, want %d", c.requested, c.limit, got, c.want)
		}
	}
}

func TestCellIDAllocatorCountsFromOneAndRefusesToWrap(t *testing.T) {
	var a codemode.CellIDAllocator
	for _, want := range []codemode.CellID{"1", "2", "3"} {
		got, err := a.Next()
		if err != nil || got != want {
			t.Fatalf("Next() = %q, %v; want %q", got, err, want)
		}
	}
	a.SetLastForTest(math.MaxUint64 - 1)
	if got, err := a.Next(); err != nil || got != "18446744073709551615" {
		t.Fatalf("Next() = %q, %v", got, err)
	}
	if _, err := a.Next(); err != codemode.ErrCellIDSpaceExhausted || err.Error() != "code mode session exhausted its cell ID space" {
		t.Fatalf("Next() after max = %v", err)
	}
}

func TestCellErrorTextsArePinned(t *testing.T) {
	cases := map[codemode.CellErrorKind]string{
		codemode.CellAlreadyExists:      "exec cell 7 already exists",
		codemode.CellNotFound:           "exec cell 7 not found",
		codemode.CellHasObserver:        "exec cell 7 already has an active observer",
		codemode.CellTerminating:        "exec cell 7 is already terminating",
		codemode.CellClosedUnexpectedly: "exec cell 7 closed unexpectedly",
	}
	for kind, want := range cases {
		if got := codemode.NewCellError(kind, "7").Error(); got != want {
			t.Errorf("kind %d: %q, want %q", kind, got, want)
		}
	}
}

func TestMissingCellOutcome(t *testing.T) {
	o := codemode.MissingCellOutcome("missing")
	if !o.Missing || o.Response.Kind != codemode.Result || *o.Response.ErrorText != "exec cell missing not found" || len(o.Response.ContentItems) != 0 {
		t.Fatalf("unexpected outcome %+v", o)
	}
}

func TestToolNameDefaultNamespace(t *testing.T) {
	empty, fn, mcp := "", "functions", "mcp__x__"
	a := codemode.ToolName{Name: "t"}
	b := codemode.ToolName{Name: "t", Namespace: &empty}
	c := codemode.ToolName{Name: "t", Namespace: &fn}
	d := codemode.ToolName{Name: "t", Namespace: &mcp}
	if !a.Equivalent(b) || !b.Equivalent(c) || a.Equivalent(d) {
		t.Fatal("default namespace aliases are not equivalent")
	}
	if a.String() != "t" || c.String() != "t" || d.String() != "mcp__x__t" {
		t.Fatalf("display: %q %q %q", a, c, d)
	}
}
