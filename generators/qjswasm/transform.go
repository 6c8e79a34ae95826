// Package qjswasm derives codemode's QuickJS module from the qjs.wasm that the pinned
// github.com/fastschema/qjs module embeds. qjs takes replacement bytes through its public
// Option.QuickJSWasmBytes; this package produces them, and tools/generate.sh writes them to
// gen/go/qjswasm so the drift gate covers the result.
//
// The transform gives QuickJS a larger C stack. qjs.wasm places its 64 KiB shadow stack between
// its static data and its heap, so recursion deeper than about 275 JavaScript frames overwrites
// static data. The derived module grows the initial memory by the requested number of bytes and
// moves the stack pointer to the new top: the stack then grows down through the new region, which
// nothing else uses (wasi-libc's allocator grows above the initial memory). It also exports the
// stack pointer global, so the host can reset it after a trap unwound the stack without running
// the epilogues that would have restored it.
//
// It also replaces the JavaScript source of qjs's function-proxy factory, a string in the module's
// data. qjs's wrapper reaches its native bridge with `proxy.call(this, …, ...args)`, which looks
// `call` up on Function.prototype and iterates the arguments at every call: a cell that overrides
// Function.prototype.call (or the array iterator) receives the raw bridge. The replacement captures
// Reflect.apply when the wrapper is created, before any cell code runs, and passes one argument
// through an array literal, so no property a cell can change is consulted.
//
// It makes a running script stoppable without wazero's CloseOnContextDone: QuickJS's own interrupt
// poll and every loop header outside the interpreter call the host (poll.go). And it guards the
// stack: every JavaScript call goes through a guard that throws QuickJS's catchable RangeError
// before the wasm stack or the call depth runs out, and that starts a new native stack every
// SegmentFrames calls (guard.go).
//
// Finally it drops the DWARF custom sections (".debug_*"). When a module has DWARF line
// information, wazero's compiler records a source offset for every instruction it emits (some
// 77,000 entries for QuickJS) and its compilation cache stores and reloads them with two read
// system calls per entry: 155,000 reads, tens of milliseconds, at every process start. The only
// use of that information is file:line in the stack of a wasm trap, which no user of codemode
// sees (traps end the cell with codemode's own texts).
package qjswasm

import (
	"bytes"
	"errors"
	"fmt"
)

// StackPointerExport is the export name under which the derived module exposes its stack pointer.
const StackPointerExport = "codemode_stack_pointer"

// pageSize is the WebAssembly page size.
const pageSize = 64 << 10

// Section ids of the WebAssembly binary format.
const (
	sectionCustom = 0
	sectionMemory = 5
	sectionGlobal = 6
	sectionExport = 7
)

// Layout describes where the derived module's stack lives in linear memory.
type Layout struct {
	// OriginalStackTop is the stack pointer's initial value in the source module.
	OriginalStackTop uint32
	// StackLow and StackTop bound the added stack region: the stack starts at StackTop and grows
	// down towards StackLow, which is the source module's initial memory size.
	StackLow, StackTop uint32
	// InitialPages is the derived module's initial memory size in 64 KiB pages.
	InitialPages uint32
	// Loops is the number of loop headers that count towards the interrupt poll (poll.go).
	Loops int
}

// StackBytes is the size of the added stack region.
func (l Layout) StackBytes() uint32 { return l.StackTop - l.StackLow }

// section is one section of a module: its id and its body.
type section struct {
	id   byte
	body []byte
}

// Transform returns a copy of module whose stack is stackBytes (a multiple of 64 KiB) larger, as
// described in the package documentation, and the resulting layout. It refuses modules whose
// shape it does not know: exactly one memory without a maximum, exactly one global (the mutable
// i32 stack pointer initialised by a constant), and no export of that global yet.
func Transform(module []byte, stackBytes uint32) ([]byte, Layout, error) {
	if stackBytes == 0 || stackBytes%pageSize != 0 {
		return nil, Layout{}, fmt.Errorf("qjswasm: stack size %d is not a positive multiple of %d", stackBytes, pageSize)
	}
	sections, err := parseModule(module)
	if err != nil {
		return nil, Layout{}, err
	}
	var layout Layout
	for i, s := range sections {
		switch s.id {
		case sectionMemory:
			minPages, err := singleMemoryMin(s.body)
			if err != nil {
				return nil, Layout{}, err
			}
			layout.StackLow = minPages * pageSize
			layout.InitialPages = minPages + stackBytes/pageSize
			sections[i].body = memorySection(layout.InitialPages)
		case sectionGlobal:
			top, err := singleStackPointer(s.body)
			if err != nil {
				return nil, Layout{}, err
			}
			layout.OriginalStackTop = top
		}
	}
	if layout.InitialPages == 0 || layout.OriginalStackTop == 0 {
		return nil, Layout{}, errors.New("qjswasm: module has no memory section or no global section")
	}
	// The stack pointer stays 16-byte aligned below the top, as wasm-ld places it.
	layout.StackTop = layout.InitialPages*pageSize - 16
	if layout.StackTop/pageSize*pageSize < layout.StackLow || layout.InitialPages > 65536 {
		return nil, Layout{}, fmt.Errorf("qjswasm: stack of %d bytes does not fit a 32-bit memory", stackBytes)
	}
	for i, s := range sections {
		switch s.id {
		case sectionGlobal:
			sections[i].body = globalSection(layout.StackTop)
		case sectionExport:
			body, err := withGlobalExport(s.body, StackPointerExport, 0)
			if err == nil {
				body, err = withGlobalExport(body, CallDepthExport, 2) // the guard's count (guard.go)
			}
			if err != nil {
				return nil, Layout{}, err
			}
			sections[i].body = body
		}
	}
	sections, err = withoutDWARF(sections)
	if err != nil {
		return nil, Layout{}, err
	}
	q, err := findQuickJS(sections)
	if err != nil {
		return nil, Layout{}, err
	}
	if sections, layout.Loops, err = withPoll(sections, q, layout); err != nil {
		return nil, Layout{}, err
	}
	out := encodeModule(sections)
	if err := patchProxyFactory(out); err != nil {
		return nil, Layout{}, err
	}
	return out, layout, nil
}

// withoutDWARF drops the custom sections whose names start with ".debug_" (see the package
// documentation); other custom sections (names, producers, target features) stay.
func withoutDWARF(sections []section) ([]section, error) {
	kept := sections[:0:0]
	for _, s := range sections {
		if s.id == sectionCustom {
			r := reader{b: s.body}
			n, err := r.u32()
			if err != nil {
				return nil, fmt.Errorf("qjswasm: custom section name: %w", err)
			}
			name, err := r.take(int(n))
			if err != nil {
				return nil, fmt.Errorf("qjswasm: custom section name: %w", err)
			}
			if bytes.HasPrefix(name, []byte(".debug_")) {
				continue
			}
		}
		kept = append(kept, s)
	}
	return kept, nil
}

// proxyFactory is the source qjs evaluates to wrap its native bridge (function.c), as it sits in
// the module's data, NUL-terminated.
const proxyFactory = "(proxy, fnHandler, ctx, is_async) => function QJS_FunctionProxy (...args) { " +
	"  if (typeof proxy !== 'function') throw new TypeError('proxy is not a function'); " +
	"  return proxy.call(this, fnHandler, ctx, is_async, undefined, ...args); }"

// safeProxyFactory replaces proxyFactory. Its wrapper takes exactly one argument, the message.
const safeProxyFactory = "(proxy, fnHandler, ctx, is_async) => { const apply = Reflect.apply; " +
	"return function QJS_FunctionProxy (message) { " +
	"return apply(proxy, undefined, [fnHandler, ctx, is_async, undefined, message]); }; }"

// patchProxyFactory overwrites proxyFactory in place, padding with spaces, so no offset moves.
func patchProxyFactory(module []byte) error {
	old := append([]byte(proxyFactory), 0)
	if n := bytes.Count(module, old); n != 1 {
		return fmt.Errorf("qjswasm: expected qjs's function-proxy factory exactly once in the module, found it %d times", n)
	}
	if len(safeProxyFactory) > len(proxyFactory) {
		return errors.New("qjswasm: replacement proxy factory is longer than the original")
	}
	i := bytes.Index(module, old)
	copy(module[i:], safeProxyFactory)
	for j := i + len(safeProxyFactory); j < i+len(proxyFactory); j++ {
		module[j] = ' '
	}
	return nil
}

var wasmHeader = []byte{0x00, 'a', 's', 'm', 0x01, 0x00, 0x00, 0x00}

func parseModule(module []byte) ([]section, error) {
	if !bytes.HasPrefix(module, wasmHeader) {
		return nil, errors.New("qjswasm: not a WebAssembly 1.0 binary module")
	}
	r := reader{b: module, pos: len(wasmHeader)}
	var sections []section
	for !r.done() {
		id, err := r.byte()
		if err != nil {
			return nil, err
		}
		size, err := r.u32()
		if err != nil {
			return nil, err
		}
		body, err := r.take(int(size))
		if err != nil {
			return nil, fmt.Errorf("qjswasm: section %d: %w", id, err)
		}
		sections = append(sections, section{id: id, body: body})
	}
	return sections, nil
}

func encodeModule(sections []section) []byte {
	out := append([]byte(nil), wasmHeader...)
	for _, s := range sections {
		out = append(out, s.id)
		out = appendU32(out, uint32(len(s.body)))
		out = append(out, s.body...)
	}
	return out
}

// singleMemoryMin reads a memory section that declares one memory without a maximum.
func singleMemoryMin(body []byte) (uint32, error) {
	r := reader{b: body}
	count, err := r.u32()
	if err != nil || count != 1 {
		return 0, fmt.Errorf("qjswasm: expected exactly one memory, got %d (%v)", count, err)
	}
	flags, err := r.byte()
	if err != nil || flags != 0 {
		return 0, fmt.Errorf("qjswasm: expected a memory without maximum (flags 0), got flags %d (%v)", flags, err)
	}
	minPages, err := r.u32()
	if err != nil || !r.done() {
		return 0, fmt.Errorf("qjswasm: malformed memory section (%v)", err)
	}
	return minPages, nil
}

// singleStackPointer reads a global section holding one mutable i32 initialised by i32.const.
func singleStackPointer(body []byte) (uint32, error) {
	r := reader{b: body}
	count, err := r.u32()
	if err != nil || count != 1 {
		return 0, fmt.Errorf("qjswasm: expected exactly one global, got %d (%v)", count, err)
	}
	valType, _ := r.byte()
	mutable, _ := r.byte()
	opcode, _ := r.byte()
	if valType != 0x7f || mutable != 1 || opcode != 0x41 {
		return 0, fmt.Errorf("qjswasm: the global is not a mutable i32 initialised by i32.const")
	}
	top, err := r.s32()
	if err != nil {
		return 0, err
	}
	if end, err := r.byte(); err != nil || end != 0x0b || !r.done() {
		return 0, errors.New("qjswasm: malformed global section")
	}
	return uint32(top), nil
}

func memorySection(minPages uint32) []byte {
	return appendU32([]byte{1, 0}, minPages)
}

func globalSection(stackTop uint32) []byte {
	b := []byte{1, 0x7f, 1, 0x41}
	b = appendS32(b, int32(stackTop))
	return append(b, 0x0b)
}

// withGlobalExport appends an export of global index to an export section.
func withGlobalExport(body []byte, name string, index uint32) ([]byte, error) {
	return withExport(body, name, 0x03, index)
}

// withExport appends an export of kind (0x00 a function, 0x03 a global) and index to an export
// section.
func withExport(body []byte, name string, kind byte, index uint32) ([]byte, error) {
	r := reader{b: body}
	count, err := r.u32()
	if err != nil {
		return nil, fmt.Errorf("qjswasm: malformed export section: %w", err)
	}
	rest := body[r.pos:]
	if bytes.Contains(rest, []byte(name)) {
		return nil, fmt.Errorf("qjswasm: module already exports %q", name)
	}
	out := appendU32(nil, count+1)
	out = append(out, rest...)
	out = appendU32(out, uint32(len(name)))
	out = append(out, name...)
	out = append(out, kind)
	return appendU32(out, index), nil
}
