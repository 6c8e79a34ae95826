package qjswasm

import (
	"bytes"
	"errors"
	"fmt"
)

// QuickJS's own functions in the module. qjs.wasm has no name section, so the transform finds
// the few functions it changes by their shape, and refuses a module in which it does not find
// each exactly once (the source digest is pinned, so this only fails when qjs is upgraded):
//
//   - QuickJS's interrupt poll (__js_poll_interrupts): the function that js_poll_interrupts calls
//     when the context's interrupt counter runs out. It takes the context and starts by storing
//     JS_INTERRUPT_COUNTER_INIT (10,000) into ctx->interrupt_counter.
//   - The interpreter (JS_CallInternal): the function of JS_CallInternal's signature whose loop
//     dispatches on the opcode through a br_table of at least dispatchTargets targets. That loop
//     turns once per bytecode instruction.
//   - QJS_ThrowRangeError, qjs's exported wrapper of JS_ThrowRangeError(ctx, "%s", message).
//   - The text of QuickJS's stack overflow error, "Maximum call stack size exceeded", in the
//     module's data.

// interruptCounterInit is JS_INTERRUPT_COUNTER_INIT, and interruptCounterOffset the offset of
// interrupt_counter in JSContext, as the pinned QuickJS has them.
const (
	interruptCounterInit   = 10000
	interruptCounterOffset = 272
)

// dispatchTargets is the least number of br_table targets that marks the interpreter's opcode
// dispatch (QuickJS has some 250 opcodes; every other br_table of the module has fewer than 40).
const dispatchTargets = 200

// stackOverflowText is QuickJS's (and V8's) stack overflow message.
const stackOverflowText = "Maximum call stack size exceeded"

// throwRangeErrorExport is qjs's exported RangeError thrower.
const throwRangeErrorExport = "QJS_ThrowRangeError"

// Signatures the transform checks.
var (
	// interpreterType is JS_CallInternal's: (ctx, func, this, new_target, argc, argv, flags) -> JSValue.
	interpreterType = []byte{0x60, 7, 0x7f, 0x7e, 0x7e, 0x7e, 0x7f, 0x7f, 0x7f, 1, 0x7e}
	// pollInterruptsType is __js_poll_interrupts's: (ctx) -> int.
	pollInterruptsType = []byte{0x60, 1, 0x7f, 1, 0x7f}
	// throwRangeErrorType is QJS_ThrowRangeError's: (ctx, message) -> JSValue.
	throwRangeErrorType = []byte{0x60, 2, 0x7f, 0x7f, 1, 0x7e}
)

// quickJS locates QuickJS's functions and data in the module. Function indexes count the imported
// functions first, as calls do.
type quickJS struct {
	interpreter     uint32 // JS_CallInternal
	pollInterrupts  uint32 // __js_poll_interrupts
	throwRangeError uint32 // QJS_ThrowRangeError
	overflowText    uint32 // the address of stackOverflowText, NUL-terminated, in linear memory
}

// findQuickJS locates QuickJS's functions and data in sections.
func findQuickJS(sections []section) (quickJS, error) {
	var q quickJS
	types, err := vectorItems(sections[sectionIndex(sections, sectionType)].body, readFuncType)
	if err != nil {
		return q, fmt.Errorf("qjswasm: type section: %w", err)
	}
	imported, _, err := scanImports(sections[sectionIndex(sections, sectionImport)].body, types)
	if err != nil {
		return q, err
	}
	funcTypes, err := functionTypes(sections[sectionIndex(sections, sectionFunction)].body)
	if err != nil {
		return q, err
	}
	bodies, err := functionBodies(sections[sectionIndex(sections, sectionCode)].body)
	if err != nil {
		return q, err
	}
	if len(bodies) != len(funcTypes) {
		return q, errors.New("qjswasm: the function and code sections disagree")
	}
	typeOf := func(i int) []byte {
		if int(funcTypes[i]) < len(types) {
			return types[funcTypes[i]]
		}
		return nil
	}
	var polls, interpreters []uint32
	for i, body := range bodies {
		if bytes.Equal(typeOf(i), pollInterruptsType) && startsWithCounterReset(body) {
			polls = append(polls, imported+uint32(i))
		}
	}
	if len(polls) != 1 {
		return q, fmt.Errorf("qjswasm: expected QuickJS's interrupt poll exactly once, found it %d times", len(polls))
	}
	q.pollInterrupts = polls[0]
	for i, body := range bodies {
		if !bytes.Equal(typeOf(i), interpreterType) {
			continue
		}
		loop, err := dispatchLoop(body)
		if err != nil {
			return q, fmt.Errorf("qjswasm: function %d: %w", imported+uint32(i), err)
		}
		if loop >= 0 {
			interpreters = append(interpreters, imported+uint32(i))
		}
	}
	if len(interpreters) != 1 {
		return q, fmt.Errorf("qjswasm: expected QuickJS's interpreter exactly once, found it %d times", len(interpreters))
	}
	q.interpreter = interpreters[0]
	exported, err := exportedFunction(sections[sectionIndex(sections, sectionExport)].body, throwRangeErrorExport)
	if err != nil {
		return q, err
	}
	if exported < imported || !bytes.Equal(typeOf(int(exported-imported)), throwRangeErrorType) {
		return q, fmt.Errorf("qjswasm: %s does not have qjs's signature", throwRangeErrorExport)
	}
	q.throwRangeError = exported
	if q.overflowText, err = dataAddress(sections, stackOverflowText+"\x00"); err != nil {
		return q, err
	}
	return q, nil
}

// startsWithCounterReset reports whether a function body begins, after its locals, with
// ctx->interrupt_counter = JS_INTERRUPT_COUNTER_INIT: local.get 0, i32.const, i32.store.
func startsWithCounterReset(body []byte) bool {
	r := reader{b: body}
	if err := r.skipLocals(); err != nil {
		return false
	}
	want := []byte{0x20, 0, opI32Const}
	want = appendS32(want, interruptCounterInit)
	want = append(want, 0x36, 2) // i32.store, align 4
	want = appendU32(want, interruptCounterOffset)
	return bytes.HasPrefix(body[r.pos:], want)
}

// dispatchLoop returns the ordinal of the loop that directly encloses a br_table of at least
// dispatchTargets targets, or -1 when the body has none; more than one such loop is an error.
func dispatchLoop(body []byte) (int, error) {
	r := reader{b: body}
	if err := r.skipLocals(); err != nil {
		return -1, err
	}
	var open []int // for each open block, loop or if: the loop's ordinal, or -1
	loops, found := 0, -1
	for !r.done() {
		op, _ := r.byte()
		switch op {
		case opBlock, opIf:
			open = append(open, -1)
		case opLoop:
			open = append(open, loops)
			loops++
		case opEnd:
			if len(open) > 0 {
				open = open[:len(open)-1]
			}
		case opBrTable:
			n, err := r.u32()
			if err != nil {
				return -1, err
			}
			if err := r.skipLEBs(int(n) + 1); err != nil {
				return -1, err
			}
			if n < dispatchTargets {
				continue
			}
			loop := -1
			for i := len(open) - 1; i >= 0 && loop < 0; i-- {
				loop = open[i]
			}
			if loop < 0 || (found >= 0 && found != loop) {
				return -1, errors.New("the opcode dispatch is not in exactly one loop")
			}
			found = loop
			continue
		}
		if err := r.skipImmediates(op); err != nil {
			return -1, err
		}
	}
	return found, nil
}

// skipLocals skips a function body's local declarations.
func (r *reader) skipLocals() error {
	groups, err := r.u32()
	if err != nil {
		return err
	}
	return r.skipLEBs(2 * int(groups)) // each group: a count and a value type
}

// functionTypes reads the function section: the type index of each defined function.
func functionTypes(body []byte) ([]uint32, error) {
	r := reader{b: body}
	n, err := r.u32()
	if err != nil {
		return nil, fmt.Errorf("qjswasm: function section: %w", err)
	}
	out := make([]uint32, n)
	for i := range out {
		if out[i], err = r.u32(); err != nil {
			return nil, fmt.Errorf("qjswasm: function section: %w", err)
		}
	}
	return out, nil
}

// functionBodies splits the code section into function bodies (locals and instructions).
func functionBodies(body []byte) ([][]byte, error) {
	r := reader{b: body}
	n, err := r.u32()
	if err != nil {
		return nil, fmt.Errorf("qjswasm: code section: %w", err)
	}
	out := make([][]byte, n)
	for i := range out {
		size, err := r.u32()
		if err != nil {
			return nil, fmt.Errorf("qjswasm: function body %d: %w", i, err)
		}
		if out[i], err = r.take(int(size)); err != nil {
			return nil, fmt.Errorf("qjswasm: function body %d: %w", i, err)
		}
	}
	return out, nil
}

// exportedFunction finds the function exported as name.
func exportedFunction(body []byte, name string) (uint32, error) {
	r := reader{b: body}
	n, err := r.u32()
	if err != nil {
		return 0, fmt.Errorf("qjswasm: export section: %w", err)
	}
	for range n {
		size, err := r.u32()
		if err != nil {
			return 0, fmt.Errorf("qjswasm: export section: %w", err)
		}
		got, err := r.take(int(size))
		if err != nil {
			return 0, fmt.Errorf("qjswasm: export section: %w", err)
		}
		kind, err := r.byte()
		if err != nil {
			return 0, fmt.Errorf("qjswasm: export section: %w", err)
		}
		idx, err := r.u32()
		if err != nil {
			return 0, fmt.Errorf("qjswasm: export section: %w", err)
		}
		if kind == 0x00 && string(got) == name {
			return idx, nil
		}
	}
	return 0, fmt.Errorf("qjswasm: the module does not export %s", name)
}

// dataAddress returns the linear-memory address of text, which must occur exactly once in the
// module's data, in an active segment placed by a constant offset.
func dataAddress(sections []section, text string) (uint32, error) {
	at := sectionIndex(sections, sectionData)
	if at < 0 {
		return 0, errors.New("qjswasm: the module has no data section")
	}
	r := reader{b: sections[at].body}
	n, err := r.u32()
	if err != nil {
		return 0, fmt.Errorf("qjswasm: data section: %w", err)
	}
	var found []uint32
	for range n {
		flags, err := r.u32()
		if err != nil {
			return 0, fmt.Errorf("qjswasm: data section: %w", err)
		}
		offset := int32(-1)
		switch flags {
		case 0: // active, memory 0, offset expression
			if op, _ := r.byte(); op != opI32Const {
				return 0, errors.New("qjswasm: a data segment's offset is not a constant")
			}
			if offset, err = r.s32(); err != nil {
				return 0, err
			}
			if end, _ := r.byte(); end != opEnd {
				return 0, errors.New("qjswasm: a data segment's offset is not a constant")
			}
		case 1: // passive
		default:
			return 0, fmt.Errorf("qjswasm: data segment kind %d", flags)
		}
		size, err := r.u32()
		if err != nil {
			return 0, err
		}
		data, err := r.take(int(size))
		if err != nil {
			return 0, err
		}
		for i := 0; ; {
			j := bytes.Index(data[i:], []byte(text))
			if j < 0 {
				break
			}
			if offset < 0 {
				return 0, errors.New("qjswasm: the stack overflow text is in a passive data segment")
			}
			found = append(found, uint32(offset)+uint32(i+j))
			i += j + 1
		}
	}
	if len(found) != 1 {
		return 0, fmt.Errorf("qjswasm: expected %q exactly once in the data, found it %d times", text, len(found))
	}
	return found[0], nil
}
