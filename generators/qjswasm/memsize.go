package qjswasm

// The memory size the module sees. A wasm memory never shrinks, so a runtime reset to its image
// (pkg/jsruntime/internal/engine) would otherwise keep the size the last cell grew it to: the
// allocator, restored with the image, would grow the next cell's heap above that, onto fresh pages
// the host had given back to the system, and every cell that grows its heap would pay to fault
// them in again (docs/adr/0074-the-round-trip-and-the-seen-memory-size.md). So the derived module
// does not ask the memory its size: every memory.size reads a global the host keeps (exported as
// SeenPagesExport), and every memory.grow calls a function the transform adds, which calls the
// host import env.jsFunctionProxy with GrowArgc as its argument count and the pages to grow by as
// argv. The host answers as memory.grow would (the old size in pages, or -1), growing the real
// memory only past what it already has; a reset sets the global back to the image's size, and the
// pages above it are reused, zeroed in place.

// GrowArgc is the argument count with which the grow function calls env.jsFunctionProxy.
const GrowArgc = 0xFFFFFFFD

// SeenPagesExport is the export name of the global holding the memory size the module sees, in
// 64 KiB pages.
const SeenPagesExport = "codemode_memory_pages"

// growType is the grow function's signature: (pages i32) -> i32, memory.grow's.
var growType = []byte{0x60, 1, 0x7f, 1, 0x7f}

// Opcodes of the memory instructions the transform replaces, and the one it adds.
const (
	opMemorySize = 0x3f
	opMemoryGrow = 0x40
	opI32WrapI64 = 0xa7
)

// seenGlobal is the global the module reads its memory size from: a mutable i32 starting at the
// initial memory size.
func seenGlobal(initialPages uint32) []byte {
	b := appendS32([]byte{0x7f, 1, opI32Const}, int32(initialPages))
	return append(b, opEnd)
}

// growBody is the grow function: i32(proxy(0, 0, GrowArgc, pages)).
func growBody(plan pollPlan) []byte {
	b := []byte{0, opI32Const, 0, opI64Const, 0, opI32Const} // no locals; ctx, this
	b = appendS32(b, int32(-3))                              // GrowArgc as an i32
	b = append(b, opLocalGet, 0, opCallDirect)
	b = appendU32(b, plan.proxyFunc)
	b = append(b, opI32WrapI64, opEnd)
	return append(appendU32(nil, uint32(len(b))), b...)
}
