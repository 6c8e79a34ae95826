package membudget_test

import (
	"sync"
	"testing"

	"github.com/codemodehq/codemode/pkg/internal/membudget"
)

func TestTakeRefusesPastTheLimitAndGiveReturns(t *testing.T) {
	b := membudget.New(100)
	if !b.Take(60) || !b.Take(40) || b.Used() != 100 {
		t.Fatalf("taking up to the limit: used %d", b.Used())
	}
	if b.Take(1) {
		t.Fatal("took past the limit")
	}
	b.Give(40)
	if !b.Take(30) || b.Used() != 90 {
		t.Fatalf("after giving back: used %d", b.Used())
	}
	b.Charge(50) // already allocated: overdraws
	if b.Used() != 140 || b.Take(1) {
		t.Fatalf("after a charge: used %d", b.Used())
	}
	if !b.Take(0) || !b.Take(-5) {
		t.Fatal("taking nothing must succeed")
	}
}

func TestANilBudgetIsNoBudget(t *testing.T) {
	var b *membudget.Budget
	if !b.Take(1<<40) || b.Used() != 0 || b.Limit() != 0 {
		t.Fatal("a nil budget refused or counted")
	}
	b.Charge(1)
	b.Give(1)
}

// TestConcurrentTakesNeverOverdraw: however takes interleave, the budget never holds more than
// its limit.
func TestConcurrentTakesNeverOverdraw(t *testing.T) {
	b := membudget.New(1000)
	var wg sync.WaitGroup
	var mu sync.Mutex
	taken := 0
	for range 64 {
		wg.Go(func() {
			for range 100 {
				if b.Take(7) {
					mu.Lock()
					taken += 7
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	if taken > 1000 || int64(taken) != b.Used() {
		t.Fatalf("took %d, used %d, limit 1000", taken, b.Used())
	}
}

func TestParseBytes(t *testing.T) {
	for in, want := range map[string]int64{"536870912": 536870912, "512Mi": 512 << 20, "2Gi": 2 << 30, "64Ki": 64 << 10, "1G": 1e9, "0": 0} {
		if got, err := membudget.ParseBytes(in); err != nil || got != want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "-1", "1.5Gi", "12Mb", "Gi", "99999999999999999999"} {
		if _, err := membudget.ParseBytes(in); err == nil {
			t.Errorf("ParseBytes(%q) accepted", in)
		}
	}
}
