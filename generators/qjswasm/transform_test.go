package qjswasm

import (
	"bytes"
	"strings"
	"testing"
)

// module builds a minimal module shaped like qjs.wasm: one memory of minPages without maximum, one
// mutable i32 global (the stack pointer), an export of the memory, and a data segment holding
// qjs's proxy factory.
func module(minPages uint32, stackTop int32, data string) []byte {
	sections := []section{
		{id: sectionMemory, body: memorySection(minPages)},
		{id: sectionGlobal, body: globalSection(uint32(stackTop))},
		{id: sectionExport, body: append(appendU32(nil, 1), append(append(appendU32(nil, 6), "memory"...), 0x02, 0)...)},
	}
	seg := []byte{1, 0, 0x41, 0, 0x0b} // one active segment at offset 0
	seg = appendU32(seg, uint32(len(data)))
	seg = append(seg, data...)
	sections = append(sections, section{id: 11, body: seg})
	return encodeModule(sections)
}

func TestTransformMovesTheStackAndExportsItsPointer(t *testing.T) {
	src := module(3, 165408, "x\x00"+proxyFactory+"\x00y")
	out, layout, err := Transform(src, 2*pageSize)
	if err != nil {
		t.Fatal(err)
	}
	want := Layout{OriginalStackTop: 165408, StackLow: 3 * pageSize, StackTop: 5*pageSize - 16, InitialPages: 5}
	if layout != want {
		t.Fatalf("layout %+v, want %+v", layout, want)
	}
	sections, err := parseModule(out)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := singleMemoryMin(sections[0].body); got != 5 {
		t.Errorf("memory minimum %d pages, want 5", got)
	}
	if got, _ := singleStackPointer(sections[1].body); got != want.StackTop {
		t.Errorf("stack pointer %d, want %d", got, want.StackTop)
	}
	if !bytes.HasSuffix(sections[2].body, append(append(appendU32(nil, uint32(len(StackPointerExport))), StackPointerExport...), 0x03, 0)) {
		t.Errorf("export section does not end with the stack pointer's export: %q", sections[2].body)
	}
	if bytes.Contains(out, []byte(proxyFactory)) || !bytes.Contains(out, []byte(safeProxyFactory)) {
		t.Error("the proxy factory was not replaced")
	}
	if len(out) != len(src)+len(StackPointerExport)+3 {
		t.Errorf("module grew by %d bytes; only the export should add any", len(out)-len(src))
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
