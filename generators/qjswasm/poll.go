package qjswasm

import (
	"bytes"
	"errors"
	"fmt"
)

// The interrupt poll. A running script must be stoppable from Go (terminate, a heap limit, a
// provider's close), and Go's garbage collector must be able to stop the world while a script
// spins: wasm code compiled by wazero is never preempted, so it has to come back to Go now and
// then. wazero's CloseOnContextDone does both by leaving the wasm code at every loop header, which
// made QuickJS's interpreter (a loop turn per bytecode) several times slower.
//
// The derived module calls a poll function the transform adds, which calls qjs's one host import
// (env.jsFunctionProxy) with PollArgc as its argument count, an impossible one for a JavaScript
// call. The host answers such a call by checking whether the engine was asked to stop; if it was,
// the host function panics, and wazero unwinds the whole wasm call stack with no wasm code run on
// the way out. The module polls in two ways:
//
//   - Where QuickJS polls. Its interpreter decrements an interrupt counter at every jump and every
//     call and, every 10,000 of them, calls its interrupt poll (__js_poll_interrupts), which
//     would call an interrupt handler had qjs installed one; regular expressions poll the same
//     way. The transform makes that function call the poll first. Every JavaScript loop and every
//     recursion goes through jumps or calls, so the interpreter needs no other poll, and its own
//     loops (over a frame's arguments, variables and operand stack) count nothing.
//   - At every other loop header: the loops of QuickJS's C code (JSON, string building, sorting,
//     array and typed array methods), which QuickJS does not poll. They decrement a counter
//     global, and when it reaches zero call the poll, which resets it: a stop takes effect within
//     PollInterval loop turns.
//
// Counting at the interpreter's loops too (docs/adr/0052-the-module-polls-for-interrupts.md) cost
// 10 % of a tight JavaScript loop (docs/adr/0061-the-module-guards-its-stack.md).

// PollArgc is the argument count with which the poll function calls env.jsFunctionProxy.
const PollArgc = 0xFFFFFFFF

// PollInterval is the number of loop turns between two polls: a few microseconds of interpreted
// JavaScript, and a host call that costs less than a tenth of a microsecond.
const PollInterval = 10000

// The section ids the poll needs, beside those of transform.go.
const (
	sectionType     = 1
	sectionImport   = 2
	sectionFunction = 3
	sectionCode     = 10
	sectionData     = 11
)

// proxyImport is qjs's host import, the one the poll calls.
const (
	proxyImportModule = "env"
	proxyImportName   = "jsFunctionProxy"
)

// proxyImportType is its signature: (ctx i32, this i64, argc i32, argv i32) -> i64.
var proxyImportType = []byte{0x60, 4, 0x7f, 0x7e, 0x7f, 0x7f, 1, 0x7e}

// voidType is the signature () -> () of the added poll function.
var voidType = []byte{0x60, 0, 0}

// pollPlan is what instrumentLoops needs to know of the module.
type pollPlan struct {
	proxyFunc   uint32 // the function index of env.jsFunctionProxy
	pollFunc    uint32 // the function index the poll function gets
	voidTypeIdx uint32 // the type index of () -> ()
	counter     uint32 // the global index of the counter
	quickJS            // QuickJS's functions: its interrupt poll and its interpreter's dispatch loop
	guard       uint32 // the function index of the interpreter's stack guard (guard.go)
	trampoline  uint32 // the function index of the guard's trampoline (guard.go)
	depth       uint32 // the global index of the interpreter's call depth (guard.go)
	slack       uint32 // the global index of the depth a stack overflow was thrown at (guard.go)
	growFunc    uint32 // the function index of the grow function (memsize.go)
	seen        uint32 // the global index of the memory size the module sees (memsize.go)
}

// withPoll adds the counter global, the poll function and the counting at every loop header. It
// returns the number of loops instrumented. The global section must hold exactly the stack
// pointer (so the counter is global 1) and the module must import no global.
func withPoll(sections []section, q quickJS, layout Layout) ([]section, int, error) {
	plan := pollPlan{counter: 1, depth: 2, slack: 3, seen: 4, quickJS: q}
	typeAt, funcAt, codeAt, globalAt := -1, -1, -1, -1
	for i, s := range sections {
		switch s.id {
		case sectionType:
			typeAt = i
		case sectionFunction:
			funcAt = i
		case sectionCode:
			codeAt = i
		case sectionGlobal:
			globalAt = i
		}
	}
	if typeAt < 0 || funcAt < 0 || codeAt < 0 || globalAt < 0 {
		return nil, 0, errors.New("qjswasm: module lacks a type, function, global or code section")
	}
	types, err := vectorItems(sections[typeAt].body, readFuncType)
	if err != nil {
		return nil, 0, fmt.Errorf("qjswasm: type section: %w", err)
	}
	importAt := sectionIndex(sections, sectionImport)
	if importAt < 0 {
		return nil, 0, errors.New("qjswasm: module has no import section")
	}
	imported, proxy, err := scanImports(sections[importAt].body, types)
	if err != nil {
		return nil, 0, err
	}
	plan.proxyFunc = proxy
	defined, err := vectorCount(sections[funcAt].body)
	if err != nil {
		return nil, 0, fmt.Errorf("qjswasm: function section: %w", err)
	}
	plan.pollFunc = imported + defined
	plan.guard = plan.pollFunc + 1
	plan.voidTypeIdx = uint32(indexOf(types, voidType))
	if int(plan.voidTypeIdx) == len(types) {
		sections[typeAt].body = appendVectorItem(sections[typeAt].body, voidType)
	}
	plan.trampoline = plan.guard + 1
	plan.growFunc = plan.trampoline + 1
	if indexOf(types, growType) == len(types) {
		sections[typeAt].body = appendVectorItem(sections[typeAt].body, growType)
		types = append(types, growType)
	}
	sections[funcAt].body = appendVectorItem(sections[funcAt].body, appendU32(nil, plan.voidTypeIdx))
	for _, t := range [][]byte{interpreterType, throwRangeErrorType, growType} { // the guard's, the trampoline's, grow's
		sections[funcAt].body = appendVectorItem(sections[funcAt].body, appendU32(nil, uint32(indexOf(types, t))))
	}
	sections[globalAt].body = appendVectorItem(sections[globalAt].body, counterGlobal())
	sections[globalAt].body = appendVectorItem(sections[globalAt].body, depthGlobal())
	sections[globalAt].body = appendVectorItem(sections[globalAt].body, depthGlobal()) // the slack's record, also 0
	sections[globalAt].body = appendVectorItem(sections[globalAt].body, seenGlobal(layout.InitialPages))
	code, loops, err := instrumentCode(sections[codeAt].body, plan, imported)
	if err != nil {
		return nil, 0, err
	}
	code = append(code, guardBody(plan, layout)...)
	code = append(code, trampolineBody(plan)...)
	code = append(code, growBody(plan)...)
	exportAt := sectionIndex(sections, sectionExport)
	if sections[exportAt].body, err = withExport(sections[exportAt].body, TrampolineExport, 0x00, plan.trampoline); err != nil {
		return nil, 0, err
	}
	if sections[exportAt].body, err = withGlobalExport(sections[exportAt].body, SeenPagesExport, plan.seen); err != nil {
		return nil, 0, err
	}
	sections[codeAt].body = code
	return sections, loops, nil
}

func sectionIndex(sections []section, id byte) int {
	for i, s := range sections {
		if s.id == id {
			return i
		}
	}
	return -1
}

func indexOf(items [][]byte, item []byte) int {
	for i, it := range items {
		if bytes.Equal(it, item) {
			return i
		}
	}
	return len(items)
}

// readFuncType reads one function type and returns its encoding.
func readFuncType(r *reader) error {
	if form, err := r.byte(); err != nil || form != 0x60 {
		return fmt.Errorf("not a function type (%v)", err)
	}
	for range 2 { // parameters, results
		n, err := r.u32()
		if err != nil {
			return err
		}
		if _, err := r.take(int(n)); err != nil {
			return err
		}
	}
	return nil
}

// vectorItems splits a section body that is a vector into the encodings of its items, each read
// by item.
func vectorItems(body []byte, item func(*reader) error) ([][]byte, error) {
	r := reader{b: body}
	n, err := r.u32()
	if err != nil {
		return nil, err
	}
	items := make([][]byte, 0, n)
	for range n {
		start := r.pos
		if err := item(&r); err != nil {
			return nil, err
		}
		items = append(items, body[start:r.pos])
	}
	if !r.done() {
		return nil, errors.New("trailing bytes")
	}
	return items, nil
}

func vectorCount(body []byte) (uint32, error) {
	r := reader{b: body}
	return r.u32()
}

// appendVectorItem returns body, a vector, with item appended.
func appendVectorItem(body, item []byte) []byte {
	r := reader{b: body}
	n, _ := r.u32()
	out := appendU32(nil, n+1)
	out = append(out, body[r.pos:]...)
	return append(out, item...)
}

// scanImports counts the imported functions and finds env.jsFunctionProxy, checking its
// signature; an imported global would shift the counter's index, so none may be imported.
func scanImports(body []byte, types [][]byte) (funcs, proxy uint32, err error) {
	r := reader{b: body}
	n, err := r.u32()
	if err != nil {
		return 0, 0, fmt.Errorf("qjswasm: import section: %w", err)
	}
	proxy = ^uint32(0)
	for range n {
		module, name, kind, typeIdx, err := readImport(&r)
		if err != nil {
			return 0, 0, fmt.Errorf("qjswasm: import section: %w", err)
		}
		switch kind {
		case 0x00:
			if module == proxyImportModule && name == proxyImportName {
				if int(typeIdx) >= len(types) || !bytes.Equal(types[typeIdx], proxyImportType) {
					return 0, 0, errors.New("qjswasm: env.jsFunctionProxy does not have qjs's signature")
				}
				proxy = funcs
			}
			funcs++
		case 0x03:
			return 0, 0, fmt.Errorf("qjswasm: the module imports a global (%s.%s)", module, name)
		}
	}
	if proxy == ^uint32(0) {
		return 0, 0, errors.New("qjswasm: the module does not import env.jsFunctionProxy")
	}
	return funcs, proxy, nil
}

// readImport reads one import; typeIdx is a function import's type.
func readImport(r *reader) (module, name string, kind byte, typeIdx uint32, err error) {
	for _, dst := range []*string{&module, &name} {
		n, err := r.u32()
		if err != nil {
			return "", "", 0, 0, err
		}
		b, err := r.take(int(n))
		if err != nil {
			return "", "", 0, 0, err
		}
		*dst = string(b)
	}
	if kind, err = r.byte(); err != nil {
		return "", "", 0, 0, err
	}
	switch kind {
	case 0x00: // function: a type index
		typeIdx, err = r.u32()
	case 0x01: // table: a reference type and limits
		if _, err = r.byte(); err == nil {
			err = r.skipLimits()
		}
	case 0x02: // memory: limits
		err = r.skipLimits()
	case 0x03: // global: a value type and mutability
		_, err = r.take(2)
	default:
		err = fmt.Errorf("unknown import kind %d", kind)
	}
	return module, name, kind, typeIdx, err
}

// skipLimits skips table or memory limits: a flag, a minimum, and a maximum when the flag says so.
func (r *reader) skipLimits() error {
	flags, err := r.byte()
	if err != nil {
		return err
	}
	if flags&1 != 0 {
		return r.skipLEBs(2)
	}
	return r.skipLEB()
}

// counterGlobal is the counter: a mutable i32 starting at PollInterval.
func counterGlobal() []byte {
	b := []byte{0x7f, 1, opI32Const}
	b = appendS32(b, PollInterval)
	return append(b, opEnd)
}

// loopCount is what every loop header runs: counter -= 1; if counter == 0 { poll() }.
func loopCount(plan pollPlan) []byte {
	b := appendU32([]byte{opGlobalGet}, plan.counter)
	b = append(b, opI32Const, 1, opI32Sub, opGlobalSet)
	b = appendU32(b, plan.counter)
	b = appendU32(append(b, opGlobalGet), plan.counter)
	b = append(b, opI32Eqz, opIf, blockEmpty, opCallDirect)
	b = appendU32(b, plan.pollFunc)
	return append(b, opEnd)
}

// pollBody is the poll function: counter = PollInterval; drop(proxy(0, 0, PollArgc, 0)).
func pollBody(plan pollPlan) []byte {
	b := []byte{0} // no locals
	b = appendS32(append(b, opI32Const), PollInterval)
	b = appendU32(append(b, opGlobalSet), plan.counter)
	b = append(b, opI32Const, 0, opI64Const, 0, opI32Const)
	b = appendS32(b, int32(-1)) // PollArgc as an i32
	b = append(b, opI32Const, 0, opCallDirect)
	b = appendU32(b, plan.proxyFunc)
	b = append(b, opDrop, opEnd)
	return append(appendU32(nil, uint32(len(b))), b...) // the body's size, then the body
}

// instrumentCode copies the code section with the count at every loop header outside the
// interpreter, the poll at the start of QuickJS's interrupt poll, the calls of the interpreter sent
// through its stack guard, and the poll function appended (the caller appends the guard and its
// trampoline).
func instrumentCode(body []byte, plan pollPlan, imported uint32) ([]byte, int, error) {
	r := reader{b: body}
	n, err := r.u32()
	if err != nil {
		return nil, 0, fmt.Errorf("qjswasm: code section: %w", err)
	}
	out := appendU32(nil, n+4)
	loops := 0
	for i := range n {
		size, err := r.u32()
		if err != nil {
			return nil, 0, fmt.Errorf("qjswasm: function body %d: %w", i, err)
		}
		fn, err := r.take(int(size))
		if err != nil {
			return nil, 0, fmt.Errorf("qjswasm: function body %d: %w", i, err)
		}
		ed := bodyEdit{count: loopCount(plan), from: plan.interpreter, to: plan.guard, growFunc: plan.growFunc, seen: plan.seen}
		switch imported + i {
		case plan.interpreter:
			ed.count = nil // QuickJS polls at its jumps and calls (see the package documentation)
		case plan.pollInterrupts:
			ed.entry = appendU32([]byte{opCallDirect}, plan.pollFunc)
		}
		got, k, err := instrumentBody(fn, ed)
		if err != nil {
			return nil, 0, fmt.Errorf("qjswasm: function body %d: %w", i, err)
		}
		loops += k
		out = appendU32(out, uint32(len(got)))
		out = append(out, got...)
	}
	if !r.done() {
		return nil, 0, errors.New("qjswasm: trailing bytes in the code section")
	}
	return append(out, pollBody(plan)...), loops, nil
}

// bodyEdit is what instrumentBody changes in one function body.
type bodyEdit struct {
	count    []byte // inserted after every loop instruction
	entry    []byte // inserted before the first instruction
	from, to uint32 // calls of function from become calls of function to
	// growFunc and seen replace the memory instructions: memory.grow becomes a call of growFunc,
	// memory.size a read of global seen (memsize.go).
	growFunc, seen uint32
}

// instrumentBody copies one function body (locals, then instructions) with ed's changes. It
// returns the number of loops that count.
func instrumentBody(fn []byte, ed bodyEdit) ([]byte, int, error) {
	r := reader{b: fn}
	if err := r.skipLocals(); err != nil {
		return nil, 0, err
	}
	out := make([]byte, 0, len(fn)+len(fn)/8)
	out = append(out, fn[:r.pos]...)
	out = append(out, ed.entry...)
	loops := 0
	for !r.done() {
		start := r.pos
		op, _ := r.byte()
		if op == opCallDirect {
			callee, err := r.u32()
			if err != nil {
				return nil, 0, err
			}
			if callee == ed.from && ed.from != ed.to {
				callee = ed.to
			}
			out = appendU32(append(out, opCallDirect), callee)
			continue
		}
		if err := r.skipImmediates(op); err != nil {
			return nil, 0, err
		}
		switch op {
		case opMemorySize:
			out = appendU32(append(out, opGlobalGet), ed.seen)
			continue
		case opMemoryGrow:
			out = appendU32(append(out, opCallDirect), ed.growFunc)
			continue
		}
		out = append(out, fn[start:r.pos]...)
		if op == opLoop && ed.count != nil {
			out = append(out, ed.count...)
			loops++
		}
	}
	return out, loops, nil
}
