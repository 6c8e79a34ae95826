package jsruntime

import (
	"github.com/tetratelabs/wazero/experimental"
)

// engineOverheadBytes is the linear memory a runtime needs besides the script's heap: the wasm
// data and C stack, QuickJS's runtime and context, the prelude.
const engineOverheadBytes = 4 << 20

// Why a memory allocator: QuickJS's own limit (qjs Option.MemoryLimit, JS_SetMemoryLimit) only
// refuses single allocations larger than the limit in this build; many smaller ones grow the heap
// without bound (measured: fifty 1 MiB strings under a 16 MiB limit). The wasm linear memory is
// the real heap, so it is capped where wazero grows it. A refused grow makes QuickJS's malloc fail,
// which surfaces in JavaScript as "InternalError: out of memory".

// cappedAllocator creates linear memories that never grow beyond max bytes.
type cappedAllocator struct{ max uint64 }

// Allocate implements experimental.MemoryAllocator.
func (a cappedAllocator) Allocate(capacity, maximum uint64) experimental.LinearMemory {
	limit := min(a.max, maximum)
	return &cappedMemory{buf: make([]byte, 0, min(capacity, limit)), max: limit}
}

// cappedMemory is a linear memory that refuses to grow past max.
type cappedMemory struct {
	buf []byte
	max uint64
}

// Reallocate implements experimental.LinearMemory. Memory only grows, and bytes past len(buf)
// were never exposed, so a reslice within capacity is zeroed memory.
func (m *cappedMemory) Reallocate(size uint64) []byte {
	if size > m.max {
		return nil
	}
	if size <= uint64(cap(m.buf)) {
		m.buf = m.buf[:size]
		return m.buf
	}
	next := min(max(size, 2*uint64(cap(m.buf))), m.max)
	grown := make([]byte, size, next)
	copy(grown, m.buf)
	m.buf = grown
	return m.buf
}

// Free implements experimental.LinearMemory.
func (m *cappedMemory) Free() { m.buf = nil }
