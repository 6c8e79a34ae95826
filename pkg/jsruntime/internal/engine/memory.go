package engine

import (
	"errors"
	"sync/atomic"

	"github.com/codemodehq/codemode/gen/go/qjswasm"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
)

// linearMemory backs one runtime's wasm linear memory, through wazero's experimental allocator
// hook, so that the host, not the module, decides how large it may grow.
//
// Why: QuickJS's own limit (qjs Option.MemoryLimit) only refuses single allocations larger than
// itself in this build, so a script could grow its heap without bound; and a memory that grows by
// copying holds its old and new buffers at once, which made a cell peak at about twice its cap.
// Where the platform allows (memory_linux.go), the whole reservation is mapped once, without
// committing it: the memory grows in place, only pages a cell touches cost RAM, and a reset gives
// pages back to the system. Elsewhere it grows by copying, as wazero's own memories do.
//
// The module sees a size of its own (seen): its memory.size and memory.grow are the host's
// (generators/qjswasm, growSeen), so a reset puts the size it sees back to the image's although a
// wasm memory never shrinks, and the next cell's heap grows over the pages the last one used,
// zeroed in place, instead of onto fresh pages above them (docs/adr/0074-the-round-trip-and-the-
// seen-memory-size.md). The real memory grows only past the most any cell has seen.
//
// A refused grow makes QuickJS's malloc fail; the engine also records it, and the cell fails with
// an out-of-memory error at the end of the turn however the script handled the exception. During
// a cell, a refused grow also interrupts the script and never returns (see growSeen).
type linearMemory struct {
	buf    []byte // the memory: len is its real size
	region []byte // the mapped reservation buf lives in; nil when growing by copying
	// limit is the most bytes the module may see.
	limit uint64
	// seen is the size the module sees, high the most it has seen since the last reset: what a
	// cell may have touched. seenGlobal is the module's copy of seen, in pages (nil until the
	// first grow or reset looks it up).
	seen, high uint64
	seenGlobal api.MutableGlobal
	// lastHigh is high as the last reset found it: the peak of the cell before it.
	lastHigh uint64
	// keepLimit is how many bytes above the image the next reset may keep resident (the pool's
	// grant), kept how many the last one did.
	keepLimit, kept uint64
	// imageKept is how many bytes of the image's zero ranges the last reset kept resident, cleared
	// in place (zeroImageRange); at most keepInImage.
	imageKept uint64
	// refused records a refused grow and why (refusal: the cell's limit or the host's budget).
	refused atomic.Int32
	// budget is the host's memory budget; while a cell is attached, every byte the memory grows
	// beyond base (its usable size when the cell attached: the image's) is taken from it, and a
	// reset or release gives them back. nil: no budget.
	budget Budget
	// base and charged: the usable bytes the budget does not pay for, and what it pays for now.
	base, charged uint64
	// outerStack is what the budget pays, until the reset, for the native stack a cell's deep
	// recursion started from (takeStack).
	outerStack uint64
	// onRefuse, when set (during a cell), is called on the first refused grow: the engine
	// interrupts the cell, so a script that catches the out-of-memory error cannot keep running on
	// a heap that is full.
	onRefuse func()
}

// Budget is the host's memory budget as the engine sees it: the bytes every cell's heap grows by
// are taken from it while the cell runs, and given back when the runtime is reset.
type Budget interface {
	// Take takes n bytes if the budget still holds them and reports whether it did.
	Take(n int64) bool
	// Charge takes n bytes even past the budget (budgetGrant).
	Charge(n int64)
	// Give gives back n bytes taken earlier.
	Give(n int64)
}

// budgetGrant is how much of its heap growth a cell is charged for without refusal: a host whose
// budget the other cells have spent still runs a small cell (128 cells at once overdraw the
// budget by 32 MiB at most, which the host's headroom covers).
const budgetGrant = 256 << 10

// Refusal says why a heap growth was refused.
type Refusal int32

const (
	// NotRefused: no growth was refused.
	NotRefused Refusal = iota
	// RefusedByLimit: the cell's heap reached its own limit.
	RefusedByLimit
	// RefusedByBudget: the host's memory budget could not cover the growth, though the cell was
	// within its own limit.
	RefusedByBudget
)

// errGrowRefused is the panic of a refused grow during a cell (see growSeen).
var errGrowRefused = errors.New("javascript runtime: linear memory limit reached")

// newLinearMemory returns a memory that can grow to reserve bytes; limit starts at reserve.
func newLinearMemory(reserve uint64) *linearMemory {
	m := &linearMemory{limit: reserve}
	if region, err := reserveRegion(reserve); err == nil {
		m.region = region
	}
	return m
}

// allocator hands m to wazero as the module's memory. It is called once, for the one memory of
// the QuickJS module.
func (m *linearMemory) allocator() experimental.MemoryAllocator {
	return experimental.MemoryAllocatorFunc(func(_, _ uint64) experimental.LinearMemory { return m })
}

// Reallocate implements experimental.LinearMemory: it lengthens the real memory to size bytes
// when growSeen (or the engine, adopting an image) grows it, within the reservation. It admits
// nothing itself: growSeen has charged the size the module sees.
func (m *linearMemory) Reallocate(size uint64) []byte {
	switch {
	case m.region != nil:
		if size > uint64(len(m.region)) {
			return nil
		}
		m.buf = m.region[:size]
	case size <= uint64(cap(m.buf)):
		// Memory only grows, and bytes past len(buf) were never exposed, so they are still zero.
		m.buf = m.buf[:size]
	default:
		next := min(max(size, 2*uint64(cap(m.buf))), max(m.limit, size))
		grown := make([]byte, size, next)
		copy(grown, m.buf)
		m.buf = grown
	}
	return m.buf
}

// growFailed is memory.grow's answer to a grow it refuses: -1 as an i32.
const growFailed = 0xFFFFFFFF

// growSeen answers the module's memory.grow of delta pages: the size it saw before, in pages, or
// growFailed. It refuses past the cell's limit or the reservation, or when the host's budget cannot
// cover the growth (admit); the real memory grows only past its real size. During a cell (onRefuse
// set) a refusal interrupts the script and then panics instead of returning: wazero turns the
// panic into the wasm call's error, so the code that asked runs no further, and a caller that was
// inside a nested call is stopped at its next interrupt poll. Returning growFailed would let it ask
// again (QuickJS's malloc does, at once). Outside a cell (setup) a refusal returns growFailed:
// malloc fails.
func (m *linearMemory) growSeen(mod api.Module, delta uint32) uint64 {
	g, ok := m.seenPages(mod)
	if !ok {
		return growFailed
	}
	old := m.seen / pageSize
	size := (old + uint64(delta)) * pageSize
	if size > maxMemoryBytes {
		return growFailed
	}
	if why := m.admit(size); why != NotRefused {
		if m.onRefuse == nil {
			m.refused.Store(int32(why))
			return growFailed
		}
		if m.refused.Swap(int32(why)) == int32(NotRefused) {
			m.onRefuse()
		}
		panic(errGrowRefused)
	}
	if real := uint64(len(m.buf)); size > real {
		if _, ok := mod.Memory().Grow(uint32((size - real) / pageSize)); !ok {
			return growFailed
		}
	}
	m.setSeen(g, size)
	m.high = max(m.high, size)
	return old
}

// seenPages is the module's global of the size it sees, looked up once.
func (m *linearMemory) seenPages(mod api.Module) (api.MutableGlobal, bool) {
	if m.seenGlobal == nil {
		g, ok := mod.ExportedGlobal(qjswasm.SeenPagesExport).(api.MutableGlobal)
		if !ok {
			return nil, false
		}
		m.seenGlobal = g
		m.seen = uint64(len(m.buf))
		m.high = m.seen
	}
	return m.seenGlobal, true
}

// setSeen makes size the size the module sees.
func (m *linearMemory) setSeen(g api.MutableGlobal, size uint64) {
	m.seen = size
	g.Set(size / pageSize)
}

// pageSize is a wasm page: the unit of memory.size and memory.grow.
const pageSize = 65536

// keepInImage is how much of the image's zero ranges (the stack region and the all-zero pages of
// the heap) a reset may clear in place and keep resident: the pages nearly every cell touches (the
// top of the stack, the allocator's next pages), which the cell after would otherwise fault in
// again. Beyond it (a deep recursion) pages go back to the system. It is memory no cell is charged
// for, like the pool's allowance (keep.go), and small beside an engine's image.
const keepInImage = 256 << 10

// maxMemoryBytes is the most a 32-bit wasm memory holds: 65,536 pages.
const maxMemoryBytes = 65536 * pageSize

// resetSeen zeroes the memory above image (the bytes a cell may have touched in place, up to
// keepLimit, the rest given back to the system) and makes image the size the module sees.
func (m *linearMemory) resetSeen(image uint64, g api.MutableGlobal) {
	m.lastHigh = max(m.high, image)
	m.kept = 0
	if real := uint64(len(m.buf)); real > image {
		kept := min(m.lastHigh, image+m.keepLimit, real)
		m.kept = kept - image
		clear(m.buf[image:kept])
		m.clearTouched(m.buf[kept:real], 0)
	}
	m.seenGlobal = g
	m.setSeen(g, image)
	m.high = image
}

// admit decides a grow to size bytes: refused past the cell's limit or the reservation, or when
// the budget cannot cover what the grow adds beyond base; otherwise the budget is charged.
func (m *linearMemory) admit(size uint64) Refusal {
	if size > m.limit || (m.region != nil && size > uint64(len(m.region))) {
		return RefusedByLimit
	}
	if m.budget == nil || m.onRefuse == nil {
		// Outside a cell (preparing a runtime) nothing is charged: the image is the host's
		// baseline, not a cell's.
		return NotRefused
	}
	if size <= m.base+m.charged {
		return NotRefused
	}
	delta := size - m.base - m.charged
	switch {
	case m.charged+delta <= budgetGrant:
		m.budget.Charge(int64(delta))
	case !m.budget.Take(int64(delta)):
		return RefusedByBudget
	}
	m.charged += delta
	return NotRefused
}

// refund gives the budget back everything the memory was charged: after a reset (the module sees
// the image's size again, and the memory beyond it is zeroed) or a release.
// It also gives back the charge of the outer native stack (takeStack): the pool's reset drops the
// engine's kept exports, which hold it, when the stack went deep.
func (m *linearMemory) refund() {
	if m.charged > 0 {
		m.budget.Give(int64(m.charged))
		m.charged = 0
	}
	if m.outerStack > 0 {
		m.budget.Give(int64(m.outerStack))
		m.outerStack = 0
	}
}

// takeStack takes n bytes from the budget for a native stack the stack guard starts (the
// engine's trampoline) and reports whether the budget could cover them; giveStack gives them back
// when that stack's call has ended. The budget is the heap's (docs/adr/0058-one-host-wide-memory-
// budget.md): wazero's stacks are Go heap, where no count saw them. The first stack a cell
// starts also pays for the one it started from, until the reset (refund): that stack then holds
// a segment's frames, and the engine keeps it (wasm.go's kept exports).
func (m *linearMemory) takeStack(n uint64) bool {
	if m.budget == nil {
		return true
	}
	outer := uint64(0)
	if m.outerStack == 0 {
		outer = n
	}
	if !m.budget.Take(int64(n + outer)) {
		return false
	}
	m.outerStack += outer
	return true
}

// giveStack gives back a stack's n bytes that takeStack took.
func (m *linearMemory) giveStack(n uint64) {
	if m.budget != nil {
		m.budget.Give(int64(n))
	}
}

// Free implements experimental.LinearMemory. wazero calls it when the module closes, which may
// happen while wasm is still running on the engine's goroutine (a process that gave the first qjs
// runtime CloseOnContextDone closes modules on context ends): so it releases nothing. The engine
// calls release once no wasm code of the runtime can run any more.
func (m *linearMemory) Free() {}

// release returns the reservation to the system.
func (m *linearMemory) release() {
	m.refund()
	if m.region != nil {
		releaseRegion(m.region)
		m.region = nil
	}
	m.buf = nil
}

// zeroImageRange clears buf[from:to], a range the image holds as zeros, keeping the pages a cell
// touched resident while the reset's allowance for them (keepInImage) lasts (clearTouched).
func (m *linearMemory) zeroImageRange(from, to uint32) {
	if from >= to || int(to) > len(m.buf) {
		return
	}
	left := m.clearTouched(m.buf[from:to], keepInImage-m.imageKept)
	m.imageKept = keepInImage - left
}

// clearTouched zeroes b, a range the module may have written since its last reset, and returns
// what is left of keep. Where the memory is mapped, it asks the kernel which pages hold data
// (touchedRuns): those are cleared in place while keep lasts and given back to the system beyond
// it; the others read as zero already and are left alone. A reset thereby changes the page table
// only for pages it gives back: each such change makes every thread of the process running on
// another core flush its TLB (an interrupt per core, costly in a virtual machine), and the next
// cell fault the page in again (docs/adr/0076-a-reset-without-page-table-changes.md).
func (m *linearMemory) clearTouched(b []byte, keep uint64) (left uint64) {
	if m.region == nil {
		clear(b)
		return keep
	}
	start, end := pageAlignedSpan(b)
	if start >= end {
		clear(b)
		return keep
	}
	clear(b[:start])
	clear(b[end:])
	mid := b[start:end]
	ok := touchedRuns(mid, func(lo, hi int) {
		run := mid[lo:hi]
		inPlace := min(uint64(len(run)), keep)
		clear(run[:inPlace])
		keep -= inPlace
		if int(inPlace) < len(run) {
			discardRegion(run[inPlace:])
		}
	})
	if !ok {
		discardRegion(mid)
	}
	return keep
}

// takeRefused reports whether (and why) a grow was refused since the last call, and clears the
// record.
func (m *linearMemory) takeRefused() Refusal { return Refusal(m.refused.Swap(int32(NotRefused))) }

// used is the memory the module can reach: the size it sees.
func (m *linearMemory) used() uint64 { return m.seen }

// MemoryBytes is the linear memory the runtime holds for its cell: the image plus what the cell's
// allocations grew it by (the size the module sees). It never decreases while a cell runs (only
// Put's reset lowers it), so read at the cell's end it is the cell's peak. It is read on the
// goroutine that owns the engine.
func (e *Engine) MemoryBytes() uint64 { return e.mem.used() }
