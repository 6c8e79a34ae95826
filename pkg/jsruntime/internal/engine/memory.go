package engine

import (
	"errors"
	"sync/atomic"

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
// A refused grow makes QuickJS's malloc fail; the engine also records it, and the cell fails with
// an out-of-memory error at the end of the turn however the script handled the exception. During
// a cell, a refused grow also interrupts the script and never returns (see Reallocate).
type linearMemory struct {
	buf    []byte // the memory: len is its current size
	region []byte // the mapped reservation buf lives in; nil when growing by copying
	// limit is the most bytes the module may use, hole excluded.
	limit uint64
	// hole is the part of the memory that a reset left outside the module's allocator: the
	// allocator's state was restored to an earlier, smaller memory, and it never reuses what lay
	// beyond. It is given back to the system, and not counted against the limit.
	hole    uint64
	refused atomic.Bool
	// onRefuse, when set (during a cell), is called on the first refused grow: the engine
	// interrupts the cell, so a script that catches the out-of-memory error cannot keep running on
	// a heap that is full.
	onRefuse func()
}

// errGrowRefused is the panic of a refused grow during a cell (see Reallocate).
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

// Reallocate implements experimental.LinearMemory: it grows the memory to size bytes, or refuses
// beyond the limit.
//
// During a cell (onRefuse set) a refusal interrupts the script and then panics instead of returning
// nil. wazero runs memory.grow in Go inside the wasm call and turns the panic into that call's
// error, so the code that asked runs no further; a caller that was inside a nested call is stopped
// at its next interrupt poll. Returning nil would let it ask again (QuickJS's malloc does, at
// once). (When the interrupt closed the module, wazero then grew a closed module's memory itself,
// by appending to the buffer last returned, whose capacity is the whole reservation: a refused
// 1 GiB ArrayBuffer under a 64 MiB cap made the process resident set grow by 1 GiB.) Outside a cell
// (setup) a refusal returns nil: malloc fails.
func (m *linearMemory) Reallocate(size uint64) []byte {
	if size < m.hole || size-m.hole > m.limit || (m.region != nil && size > uint64(len(m.region))) {
		if m.onRefuse == nil {
			m.refused.Store(true)
			return nil
		}
		if !m.refused.Swap(true) {
			m.onRefuse()
		}
		panic(errGrowRefused)
	}
	switch {
	case m.region != nil:
		m.buf = m.region[:size]
	case size <= uint64(cap(m.buf)):
		// Memory only grows, and bytes past len(buf) were never exposed, so they are still zero.
		m.buf = m.buf[:size]
	default:
		next := min(max(size, 2*uint64(cap(m.buf))), m.hole+m.limit)
		grown := make([]byte, size, next)
		copy(grown, m.buf)
		m.buf = grown
	}
	return m.buf
}

// Free implements experimental.LinearMemory. wazero calls it when the module closes, which may
// happen while wasm is still running on the engine's goroutine (a process that gave the first qjs
// runtime CloseOnContextDone closes modules on context ends): so it releases nothing. The engine
// calls release once no wasm code of the runtime can run any more.
func (m *linearMemory) Free() {}

// release returns the reservation to the system.
func (m *linearMemory) release() {
	if m.region != nil {
		releaseRegion(m.region)
		m.region = nil
	}
	m.buf = nil
}

// zero clears buf[from:to] and, where the memory is mapped, gives its pages back to the system.
func (m *linearMemory) zero(from, to uint32) {
	if from >= to || int(to) > len(m.buf) {
		return
	}
	if m.region != nil {
		discardRegion(m.buf[from:to])
		return
	}
	clear(m.buf[from:to])
}

// takeRefused reports whether a grow was refused since the last call, and clears the record.
func (m *linearMemory) takeRefused() bool { return m.refused.Swap(false) }

// mapped reports whether pages of memory are committed only when touched.
func (m *linearMemory) mapped() bool { return m.region != nil }

// used is the memory the module can reach: the linear memory's size, hole excluded.
func (m *linearMemory) used() uint64 { return uint64(len(m.buf)) - m.hole }

// MemoryBytes is the linear memory the runtime holds for its cell, hole excluded: the image plus
// what the cell's allocations grew it by. It never decreases while a cell runs (wasm memory only
// grows, Reallocate only lengthens buf, and only Put's reset sets the hole), so read at the cell's
// end it is the cell's peak. It is read on the goroutine that owns the engine.
func (e *Engine) MemoryBytes() uint64 { return e.mem.used() }
