package qjswasm

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// module builds a minimal module shaped like qjs.wasm: qjs's host import env.jsFunctionProxy, one
// memory of minPages without maximum, one mutable i32 global (the stack pointer), a data segment
// holding data (qjs's proxy factory) and QuickJS's stack overflow text, a function exported as spin
// that turns a loop argc times, and the functions the transform looks for (quickjs.go): an
// interrupt poll, an interpreter whose loop dispatches through a br_table of dispatchTargets
// targets, QJS_ThrowRangeError, and grow, which grows the memory and reads its size.
func module(minPages uint32, stackTop int32, data string) []byte {
	return moduleWithout(minPages, stackTop, data, "")
}

// moduleWithout is module without one of the things the transform looks for: "poll" (the
// interrupt poll stores another counter value), "interpreter" (the dispatch has one target too
// few) or "text" (the stack overflow text). It also exports call, which calls the interpreter.
func moduleWithout(minPages uint32, stackTop int32, data, missing string) []byte {
	imp := appendU32(nil, 1)
	for _, name := range []string{proxyImportModule, proxyImportName} {
		imp = append(appendU32(imp, uint32(len(name))), name...)
	}
	imp = append(imp, 0x00, 0) // a function of type 0
	exports := appendU32(nil, 5)
	exports = append(append(appendU32(exports, 6), "memory"...), 0x02, 0)
	exports = append(append(appendU32(exports, 4), "spin"...), 0x00, 1)
	exports = append(append(appendU32(exports, uint32(len(throwRangeErrorExport))), throwRangeErrorExport...), 0x00, 4)
	exports = append(append(appendU32(exports, 4), "call"...), 0x00, 5)
	exports = append(append(appendU32(exports, 4), "grow"...), 0x00, 6)
	// spin(ctx, this, argc, argv): loop { argc -= 1; br_if argc != 0 } return 0
	spin := []byte{0, opLoop, blockEmpty, 0x20, 2, opI32Const, 1, opI32Sub, 0x22, 2, 0x0d, 0, opEnd, opI64Const, 0, opEnd}
	// poll(ctx): ctx->interrupt_counter = 10000; return 0
	counterInit, targets := int32(interruptCounterInit), uint32(dispatchTargets)
	switch missing {
	case "poll":
		counterInit--
	case "interpreter":
		targets--
	}
	poll := appendS32([]byte{0, 0x20, 0, opI32Const}, counterInit)
	poll = appendU32(append(poll, 0x36, 2), interruptCounterOffset)
	poll = append(poll, opI32Const, 0, opEnd)
	// interpreter(...): block { loop { br_table (argc) to the block } } return 0
	interp := []byte{0, opBlock, blockEmpty, opLoop, blockEmpty, 0x20, 4, opBrTable}
	interp = appendU32(interp, targets)
	for range targets + 1 {
		interp = append(interp, 1)
	}
	interp = append(interp, opEnd, opEnd, opI64Const, 0, opEnd)
	// QJS_ThrowRangeError(ctx, text) returns thrown, so a test sees that it ran
	throw := []byte{0, opI64Const, thrown, opEnd}
	// call(...) = interpreter(...)
	call := []byte{0}
	for i := range byte(7) {
		call = append(call, opLocalGet, i)
	}
	call = append(call, opCallDirect, 3, opEnd)
	// grow(pages) = memory.grow(pages) * 65536 + memory.size
	grow := []byte{0, opLocalGet, 0, opMemoryGrow, 0, opI32Const, 0x80, 0x80, 0x04, 0x6c, opMemorySize, 0, opI32Add, opEnd}
	code := appendU32(nil, 6)
	for _, body := range [][]byte{spin, poll, interp, throw, call, grow} {
		code = append(appendU32(code, uint32(len(body))), body...)
	}
	types := appendU32(nil, 4)
	for _, t := range [][]byte{proxyImportType, pollInterruptsType, interpreterType, throwRangeErrorType} {
		types = append(types, t...)
	}
	sections := []section{
		{id: sectionType, body: types},
		{id: sectionImport, body: imp},
		{id: sectionFunction, body: []byte{6, 0, 1, 2, 3, 2, 1}},
		{id: sectionMemory, body: memorySection(minPages)},
		{id: sectionGlobal, body: globalSection(uint32(stackTop))},
		{id: sectionExport, body: exports},
		{id: sectionCode, body: code},
	}
	if missing != "text" {
		data += stackOverflowText + "\x00"
	}
	seg := []byte{1, 0, 0x41, 0, 0x0b} // one active segment at offset 0
	seg = appendU32(seg, uint32(len(data)))
	seg = append(seg, data...)
	sections = append(sections, section{id: 11, body: seg})
	return encodeModule(sections)
}

// sectionOf returns the body of the module's section id.
func sectionOf(t *testing.T, sections []section, id byte) []byte {
	t.Helper()
	i := sectionIndex(sections, id)
	if i < 0 {
		t.Fatalf("no section %d", id)
	}
	return sections[i].body
}

func TestTransformMovesTheStackAndExportsItsPointer(t *testing.T) {
	src := module(3, 165408, "x\x00"+proxyFactory+"\x00y")
	out, layout, err := Transform(src, 2*pageSize)
	if err != nil {
		t.Fatal(err)
	}
	want := Layout{OriginalStackTop: 165408, StackLow: 3 * pageSize, StackTop: 5*pageSize - 16, InitialPages: 5, Loops: 1}
	if layout != want {
		t.Fatalf("layout %+v, want %+v", layout, want)
	}
	sections, err := parseModule(out)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := singleMemoryMin(sectionOf(t, sections, sectionMemory)); got != 5 {
		t.Errorf("memory minimum %d pages, want 5", got)
	}
	globals := sectionOf(t, sections, sectionGlobal)
	wantGlobals := appendVectorItem(appendVectorItem(appendVectorItem(appendVectorItem(globalSection(want.StackTop), counterGlobal()), depthGlobal()), depthGlobal()), seenGlobal(5))
	if !bytes.Equal(globals, wantGlobals) {
		t.Errorf("globals %x, want the stack pointer at %d, the poll counter, the call depth, the slack's record and the seen size", globals, want.StackTop)
	}
	exports := sectionOf(t, sections, sectionExport)
	for _, export := range [][]byte{
		append(append(appendU32(nil, uint32(len(StackPointerExport))), StackPointerExport...), 0x03, 0),
		append(append(appendU32(nil, uint32(len(CallDepthExport))), CallDepthExport...), 0x03, 2),
		append(append(appendU32(nil, uint32(len(TrampolineExport))), TrampolineExport...), 0x00, 9),
		append(append(appendU32(nil, uint32(len(SeenPagesExport))), SeenPagesExport...), 0x03, 4),
	} {
		if !bytes.Contains(exports, export) {
			t.Errorf("export section lacks %q: %q", export, exports)
		}
	}
	if bytes.Contains(out, []byte(proxyFactory)) || !bytes.Contains(out, []byte(safeProxyFactory)) {
		t.Error("the proxy factory was not replaced")
	}
}

// customSection is a custom section named name holding payload.
func customSection(name, payload string) section {
	body := appendU32(nil, uint32(len(name)))
	body = append(body, name...)
	return section{id: sectionCustom, body: append(body, payload...)}
}

func TestTransformDropsDWARFButKeepsOtherCustomSections(t *testing.T) {
	src := module(3, 165408, proxyFactory+"\x00")
	sections, err := parseModule(src)
	if err != nil {
		t.Fatal(err)
	}
	sections = append(sections, customSection(".debug_info", "dwarf"), customSection("name", "names"),
		customSection(".debug_line", "lines"), customSection("producers", "clang"))
	out, _, err := Transform(encodeModule(sections), pageSize)
	if err != nil {
		t.Fatal(err)
	}
	got, err := parseModule(out)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range got {
		if s.id == sectionCustom {
			r := reader{b: s.body}
			n, _ := r.u32()
			name, _ := r.take(int(n))
			names = append(names, string(name))
		}
	}
	if strings.Join(names, ",") != "name,producers" {
		t.Fatalf("custom sections after the transform: %q, want name and producers only", names)
	}
}

func TestTransformRefusesModulesOfAnotherShape(t *testing.T) {
	good := module(3, 165408, proxyFactory+"\x00")
	cases := map[string]struct {
		module []byte
		stack  uint32
		want   string
	}{
		"stack not in pages":  {good, 1000, "not a positive multiple"},
		"not wasm":            {[]byte("\x00asm\x02\x00\x00\x00"), pageSize, "not a WebAssembly 1.0 binary"},
		"truncated":           {good[:len(good)-3], pageSize, "truncated"},
		"no proxy factory":    {module(3, 165408, "nothing"), pageSize, "exactly once in the module, found it 0 times"},
		"proxy factory twice": {module(3, 165408, proxyFactory+"\x00"+proxyFactory+"\x00"), pageSize, "found it 2 times"},
		"too big for 32 bits": {good, 65535 * pageSize, "does not fit a 32-bit memory"},
		"no interrupt poll":   {moduleWithout(3, 165408, proxyFactory+"\x00", "poll"), pageSize, "interrupt poll exactly once, found it 0 times"},
		"no interpreter":      {moduleWithout(3, 165408, proxyFactory+"\x00", "interpreter"), pageSize, "interpreter exactly once, found it 0 times"},
		"no overflow text":    {moduleWithout(3, 165408, proxyFactory+"\x00", "text"), pageSize, "exactly once in the data, found it 0 times"},
	}
	for name, c := range cases {
		_, _, err := Transform(c.module, c.stack)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to say %q", name, err, c.want)
		}
	}
}

func TestLEB128RoundTrips(t *testing.T) {
	for _, v := range []int32{0, 1, -1, 63, 64, -64, -65, 165408, 1 << 30, -1 << 31} {
		r := reader{b: appendS32(nil, v)}
		if got, err := r.s32(); err != nil || got != v || !r.done() {
			t.Errorf("s32 %d: got %d %v", v, got, err)
		}
	}
	for _, v := range []uint32{0, 127, 128, 1 << 20, 1<<32 - 1} {
		r := reader{b: appendU32(nil, v)}
		if got, err := r.u32(); err != nil || got != v || !r.done() {
			t.Errorf("u32 %d: got %d %v", v, got, err)
		}
	}
}

// thrown is what the test module's QJS_ThrowRangeError returns.
const thrown = 7

// The derived module as generated (gen/go/qjswasm) has no memory.size or memory.grow left: every
// one reads the seen global or calls the grow function, so no code can see or grow the memory
// behind the host's back (memsize.go).
func TestDerivedModuleHasNoMemorySizeOrGrow(t *testing.T) {
	module, err := os.ReadFile(filepath.Join("..", "..", "gen", "go", "qjswasm", "qjs.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	sections, err := parseModule(module)
	if err != nil {
		t.Fatal(err)
	}
	r := reader{b: sectionOf(t, sections, sectionCode)}
	n, err := r.u32()
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for i := range n {
		size, err := r.u32()
		if err != nil {
			t.Fatal(err)
		}
		fn, err := r.take(int(size))
		if err != nil {
			t.Fatal(err)
		}
		body := reader{b: fn}
		if err := body.skipLocals(); err != nil {
			t.Fatal(err)
		}
		for !body.done() {
			op, _ := body.byte()
			if op == opMemorySize || op == opMemoryGrow {
				t.Errorf("function body %d: opcode 0x%02x at byte %d", i, op, body.pos-1)
				found++
			}
			if err := body.skipImmediates(op); err != nil {
				t.Fatalf("function body %d: %v", i, err)
			}
		}
	}
	if found > 0 {
		t.Fatalf("%d memory instructions left in the derived module", found)
	}
}
