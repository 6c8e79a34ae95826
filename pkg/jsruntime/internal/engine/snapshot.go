package engine

import (
	"fmt"

	"github.com/tetratelabs/wazero/api"

	"github.com/codemodehq/codemode/gen/go/qjswasm"
)

// A runtime serves many cells. Creating one costs milliseconds of CPU, and every qjs.New leaves
// about 23 KB behind for good (qjs never closes the wazero runtime it creates, whose host modules
// stay registered in the process-wide compilation cache). So after a cell the engine is reset
// instead: everything QuickJS knows lives in the module's linear memory and its one global, the
// stack pointer, and both are put back exactly as they were when the engine was prepared. The
// reset is proven by a test that compares the whole memory with the image after a cell that
// changed everything it could.
//
// The image leaves out the stack region, whose content is dead whenever no call is running, and
// every all-zero page: a reset copies the pages that held data and zeroes the rest, clearing in
// place the few pages a cell touched there and, on a mapped memory, giving the others back to the
// system (memory.go, clearTouched).

// snapshotPage is the granularity of the image: the system page size on the platforms where the
// memory is mapped, so zeroed ranges can be given back.
const snapshotPage = 4096

// image is a prepared engine's memory and the Go side's knowledge of it. It is immutable once
// taken, and shared by every engine of a provider.
type image struct {
	size   uint32    // memory size when taken
	runs   []pageRun // data pages, ascending and disjoint, outside the stack region
	zeros  []span    // the rest of [0, size), ascending: the stack region and all-zero pages
	data   []byte    // the runs' bytes, concatenated
	layout layout
}

// pageRun is a run of data pages in the image: memory[off:off+n] = data[at:at+n].
type pageRun struct{ off, n, at uint32 }

// span is a half-open byte range [from, to) of memory.
type span struct{ from, to uint32 }

// stackSpan is the derived module's stack region (see generators/qjswasm).
var stackSpan = span{from: qjswasm.StackLow, to: qjswasm.InitialMemoryBytes}

// takeImage records e's memory and layout. It runs while no call is in progress.
func takeImage(e *Engine) (*image, error) {
	if err := e.regs.check(); err != nil {
		return nil, fmt.Errorf("javascript runtime: between calls the %w", err)
	}
	mem := e.mem.buf
	s := &image{size: uint32(len(mem)), layout: e.layout}
	for off := uint32(0); off < s.size; off += snapshotPage {
		end := min(off+snapshotPage, s.size)
		if off >= stackSpan.from && off < stackSpan.to || allZero(mem[off:end]) {
			s.addZero(off, end)
			continue
		}
		s.addData(mem[off:end], off)
	}
	return s, nil
}

func (s *image) addZero(from, to uint32) {
	if n := len(s.zeros); n > 0 && s.zeros[n-1].to == from {
		s.zeros[n-1].to = to
		return
	}
	s.zeros = append(s.zeros, span{from, to})
}

func (s *image) addData(page []byte, off uint32) {
	if n := len(s.runs); n > 0 && s.runs[n-1].off+s.runs[n-1].n == off {
		s.runs[n-1].n += uint32(len(page))
	} else {
		s.runs = append(s.runs, pageRun{off: off, n: uint32(len(page)), at: uint32(len(s.data))})
	}
	s.data = append(s.data, page...)
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// fits reports whether e, freshly created and bound, can adopt the image: qjs.New placed its
// runtime and context where the image's are.
func (s *image) fits(e *Engine) bool {
	return e.jsctx == s.layout.jsctx && uint32(len(e.mem.buf)) <= s.size
}

// adopt makes a fresh engine the image's: its memory becomes the image, and its Go side the
// image's layout.
func (e *Engine) adopt(s *image) {
	if extra := s.size - uint32(len(e.mem.buf)); extra > 0 {
		e.w.mem.Grow(extra / 65536)
	}
	e.img, e.layout = s, s.layout
	s.restore(e.mem, e.regs)
}

// restore puts m back to the image: data pages copied, the rest of the image's range zeroed,
// whatever the memory grew beyond it zeroed, and the size the module sees set back to the image's
// (resetSeen). It also resets the registers, which a trap leaves wherever the unwound code had
// them.
func (s *image) restore(m *linearMemory, regs registers) {
	mem := m.buf
	for _, r := range s.runs {
		copy(mem[r.off:r.off+r.n], s.data[r.at:r.at+r.n])
	}
	m.imageKept = 0
	for _, z := range s.zeros {
		m.zeroImageRange(z.from, z.to)
	}
	m.resetSeen(uint64(s.size), regs.seen)
	m.refund()
	regs.reset()
}

// registers are the module's globals that a trap or an interrupt leaves wherever the unwound code
// had them: the stack pointer and the stack guard's count of interpreter frames; and the memory
// size the module sees, which a reset sets (see generators/qjswasm).
type registers struct{ sp, depth, seen api.MutableGlobal }

// reset puts the registers where they are between calls.
func (r registers) reset() {
	r.sp.Set(qjswasm.StackTop)
	r.depth.Set(0)
}

// check reports a register that is not where it is between calls.
func (r registers) check() error {
	if v := uint32(r.sp.Get()); v != qjswasm.StackTop {
		return fmt.Errorf("stack pointer is %d, not %d", v, qjswasm.StackTop)
	}
	if v := uint32(r.depth.Get()); v != 0 {
		return fmt.Errorf("call depth is %d, not 0", v)
	}
	return nil
}

// deepStackBytes is how deep into its wasm stack a cell may go before its engine sheds wazero's
// native call stacks (wasm.shed): QuickJS's interpreter uses about twenty bytes of native stack
// per byte of wasm stack, so 64 KiB (some 230 JavaScript frames) leaves native stacks of a few
// megabytes at most.
const deepStackBytes = 64 << 10

// stackWentDeep reports whether the cell that just ran used more than deepStackBytes of the wasm
// stack: whether the stack page at that depth holds data. It runs before restore, which zeroes the
// stack region.
func stackWentDeep(m *linearMemory) bool {
	page := (stackSpan.to - deepStackBytes) &^ (snapshotPage - 1)
	return int(page)+snapshotPage <= len(m.buf) && !allZero(m.buf[page:page+snapshotPage])
}

// matches reports whether m holds exactly the image (restore's postcondition), naming the first
// difference otherwise. Tests use it to prove the reset.
func (s *image) matches(m *linearMemory, regs registers) error {
	mem := m.buf
	if uint32(len(mem)) < s.size {
		return fmt.Errorf("memory of %d bytes is smaller than the image's %d", len(mem), s.size)
	}
	for _, r := range s.runs {
		for i := uint32(0); i < r.n; i++ {
			if mem[r.off+i] != s.data[r.at+i] {
				return fmt.Errorf("byte %d differs from the image", r.off+i)
			}
		}
	}
	for _, z := range s.zeros {
		for i := z.from; i < z.to; i++ {
			if mem[i] != 0 {
				return fmt.Errorf("byte %d is not zero", i)
			}
		}
	}
	for i := uint64(s.size); i < uint64(len(mem)); i++ {
		if mem[i] != 0 {
			return fmt.Errorf("byte %d is not zero", i)
		}
	}
	if seen := regs.seen.Get() * pageSize; seen != uint64(s.size) || m.seen != seen {
		return fmt.Errorf("the module sees %d bytes (the host: %d), not the image's %d", seen, m.seen, s.size)
	}
	return regs.check()
}
