package engine

// ResetReport is what Put found of an engine it took back after a cell: whether it was reset and
// kept, and what of its memory and resolved exports the reset left. It is how the tests prove that
// a reset restores the image whatever the cell did, and that engines keep no more than they need.
type ResetReport struct {
	// Reusable reports that the engine was reset and kept for the next cell.
	Reusable bool
	// ImageDiff is nil when the reset memory and stack pointer equal the image byte for byte, or
	// where they first differ (compared for a reusable engine only).
	ImageDiff error
	// Kept is what the reset zeroed in place and kept resident above the image (memory.go);
	// KeptInImage what it zeroed in place and kept of the image's zero ranges (keepInImage).
	Kept, KeptInImage uint64
	// HeapLimit is the heap limit its cell attached with.
	HeapLimit uint64
	// MemoryBytes is the most memory the cell's module saw (its peak), WasmMemoryBytes the real
	// memory's size (the most any cell of the engine saw, or more if wazero grew the memory behind
	// the host's back), ImageBytes the size of the image.
	MemoryBytes, WasmMemoryBytes, ImageBytes uint64
	// ExportsKept counts the resolved export instances the engine holds; ColdExportsKept those of
	// exports that are not hot (HotExportCount).
	ExportsKept, ColdExportsKept int
}

// ObserveResets has f see the report of every engine this pool takes back, on the goroutine that
// puts it back, until stop is called. Comparing the memory with the image costs a pass over it.
func (p *Pool) ObserveResets(f func(ResetReport)) (stop func()) {
	p.observer.Store(&f)
	return func() { p.observer.CompareAndSwap(&f, nil) }
}

// report describes e after Put's reset.
func (e *Engine) report(reusable bool) ResetReport {
	r := ResetReport{
		Reusable:        reusable,
		Kept:            e.mem.kept,
		KeptInImage:     e.mem.imageKept,
		HeapLimit:       e.mem.limit - min(e.mem.limit, uint64(e.img.size)),
		MemoryBytes:     e.mem.lastHigh,
		ImageBytes:      uint64(e.img.size),
		ExportsKept:     e.w.kept(),
		ColdExportsKept: e.w.coldKept(),
	}
	if e.w.mod != nil && !e.w.mod.IsClosed() {
		r.WasmMemoryBytes = uint64(e.w.mem.Size())
	}
	if reusable {
		r.ImageDiff = e.img.matches(e.mem, e.regs)
	}
	return r
}

// HotExportCount is the most resolved export instances an idle engine keeps: one per hot export.
func HotExportCount() int {
	n := 0
	for _, hot := range hotExports {
		if hot {
			n++
		}
	}
	return n
}
