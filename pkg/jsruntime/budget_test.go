package jsruntime

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// testBudget is a host memory budget as pkg/internal/membudget implements it (the layering rules
// keep this package's tests off it), recording the most it ever held.
type testBudget struct {
	limit      int64
	used, peak atomic.Int64
	mu         sync.Mutex
}

func (b *testBudget) Take(n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.used.Load()+n > b.limit {
		return false
	}
	u := b.used.Add(n)
	if u > b.peak.Load() {
		b.peak.Store(u)
	}
	return true
}

func (b *testBudget) Give(n int64) {
	if b.used.Add(-n) < 0 {
		panic(fmt.Sprintf("budget given back %d bytes more than taken", -b.used.Load()))
	}
}

func (b *testBudget) Limit() int64 { return b.limit }

// TestHeapGrowthIsTakenFromTheHostBudget: a cell within its own heap limit whose heap the host's
// budget cannot cover fails with the budget's text (not its own limit's); a cell past its own
// limit still fails with its limit's text; every byte comes back when the runtime is reset, and
// the next cell runs.
func TestHeapGrowthIsTakenFromTheHostBudget(t *testing.T) {
	b := &testBudget{limit: 32 << 20}
	p := newCappedProvider(t, Options{MemoryBudget: b, DefaultMaxHeapSizeBytes: 256 << 20})
	s := newCappedSession(t, p, nil)

	r := executeCell(t, s, `const a = []; for (;;) a.push(new ArrayBuffer(1 << 20));`)
	checkResult(t, "a heap bomb under the budget", r, fmt.Sprintf(outOfBudgetTextFormat, 32<<20, 256<<20))
	awaitCellGoroutines(t, s) // the runtime is reset after the response
	if u := b.used.Load(); u != 0 {
		t.Fatalf("the budget still holds %d bytes after the cell", u)
	}
	if pk := b.peak.Load(); pk <= 16<<20 || pk > 32<<20 {
		t.Fatalf("the cell's heap took %d bytes of a %d-byte budget at most", pk, 32<<20)
	}

	small := newSessionOn(t, p, nil, codemode.SessionCellExecutionLimits{MaxHeapSizeBytes: ptrU64(8 << 20)})
	r = executeCell(t, small, `const a = []; for (;;) a.push(new ArrayBuffer(1 << 20));`)
	checkResult(t, "past its own limit", r, fmt.Sprintf(outOfMemoryTextFormat, 8<<20))
	awaitCellGoroutines(t, small) // its heap comes back when its runtime is reset, after the response

	r = executeCell(t, s, `const b = new ArrayBuffer(4 << 20); text(b.byteLength)`)
	checkResult(t, "a cell after the bombs", r, "", "4194304")
	// Both sessions' runtimes are reset after their responses: the small session's bomb gives
	// its 8 MiB back when its reset ends, which a loaded machine can leave after this cell's.
	awaitCellGoroutines(t, s)
	awaitCellGoroutines(t, small)
	if u := b.used.Load(); u != 0 {
		t.Fatalf("the budget still holds %d bytes", u)
	}
}

// TestOutputIsTakenFromTheHostBudget: unobserved output is paid for by the host's budget while it
// is held; an item the budget cannot cover throws the budget's text (the cell's own limit is far),
// and observed output, or a claimed Result, gives its bytes back.
func TestOutputIsTakenFromTheHostBudget(t *testing.T) {
	b := &testBudget{limit: 16 << 20}
	p := newCappedProvider(t, Options{MemoryBudget: b})
	d := newRecorder(nil)
	s := newCappedSession(t, p, d)
	refused := fmt.Sprintf(outputBudgetText, 2<<20, 16<<20)
	two := strings.Repeat("a", 2<<20)

	// The heap holds one 2 MiB string (a few MiB of the budget); each text() of it takes 6 MiB
	// more (outputCharge) until the budget is spent (notify() is how the cell reports: its output cannot).
	r := executeCell(t, s, `const s = "a".repeat(2 << 20); let n = 0;
		try { for (;;) { text(s); n++ } } catch (e) { notify(n + " " + (e === `+"`"+refused+"`"+`)) }`)
	if r.Kind != codemode.Result || r.ErrorText != nil {
		t.Fatalf("past the budget: %v %s", r.Kind, errorTextOf(r))
	}
	texts := textsOf(r.ContentItems)
	_, notes, _ := d.snapshot()
	if len(texts) == 0 || texts[0] != two || len(notes) != 1 || notes[0] != fmt.Sprintf("call-1/1:%d true", len(texts)) {
		t.Fatalf("past the budget: %d texts, notes %q", len(texts), notes)
	}
	awaitCellGoroutines(t, s)
	if u := b.used.Load(); u != 0 {
		t.Fatalf("the budget still holds %d bytes after the observed cell", u)
	}

	// A Result nobody observed yet holds its output until it is claimed.
	c := startCell(t, s, `text("a".repeat(600 << 10)); yield_control(); await new Promise(r => setTimeout(r, 1)); text("c".repeat(300 << 10))`, 30_000)
	if r := initialResponse(t, c); r.Kind != codemode.Yielded {
		t.Fatalf("yield: %+v", r)
	}
	out := followCell(t, s, waitCell(t, s, c.CellID, 30_000).Response)
	checkResult(t, "after the yield", out, "", strings.Repeat("c", 300<<10))
	awaitCellGoroutines(t, s)
	if u := b.used.Load(); u != 0 {
		t.Fatalf("the budget still holds %d bytes after the claimed Result", u)
	}

	// A budget that others spent still lets a small cell answer (outputGrant, budgetGrant).
	b.used.Store(b.limit)
	r = executeCell(t, s, `const o = {}; for (let i = 0; i < 1000; i++) o["k" + i] = [i]; text(6 * 7)`)
	checkResult(t, "a small cell on a spent budget", r, "", "42")
	awaitCellGoroutines(t, s)
	if u := b.used.Load(); u != b.limit {
		t.Fatalf("the budget holds %d bytes, want %d", u, b.limit)
	}
}

func (b *testBudget) Charge(n int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if u := b.used.Add(n); u > b.peak.Load() {
		b.peak.Store(u)
	}
}
