package qjswasm

// The stack guard. QuickJS checks its C stack before every JavaScript call and throws a catchable
// RangeError ("Maximum call stack size exceeded") when the call would not fit, but the check is
// compiled out of the WASI build qjs ships. Unbounded recursion then ran until wazero refused to
// grow its native call stack, a trap that ends the whole cell.
//
// The derived module puts the check back: every call of the interpreter (JS_CallInternal) goes
// through an added guard function of the same signature, which throws QuickJS's own RangeError
// through qjs's QJS_ThrowRangeError, as QuickJS's check does, when either
//
//   - the wasm stack pointer is less than StackGuardBytes above the bottom of the stack region
//     (a JavaScript frame takes a few hundred bytes of it plus its variables; below the region lies
//     the heap, which an overflow would overwrite), or
//   - MaxCallDepth interpreter calls are active: a count in a global, which the guard raises
//     before and lowers after the call.
//
// The count is needed because wazero's native stack runs out first. Its compiled interpreter frame
// takes some 8 to 9 KB of native stack (its compiler gives every spilled value a slot of its own),
// and wazero refuses to grow one call's native stack once it is past 50 MB: it doubles the stack,
// so the limit falls anywhere between 50 and 100 MB, some 6,000 to 11,000 JavaScript frames,
// depending on the sizes the stack went through. So the guard also starts a new native stack every
// SegmentFrames calls: it calls the host (env.jsFunctionProxy with argc TrampolineArgc and the
// call's arguments in a block on the wasm stack), and the host calls the interpreter back through
// the exported trampoline (TrampolineExport) as a new wazero call, which has a stack of its own.
// No native stack then holds more than SegmentFrames frames, and the depth is the guard's alone.
//
// A trap or an interrupt unwinds the wasm stack without lowering the count, so the engine resets
// it with the stack pointer (the count is exported as CallDepthExport).

// MaxCallDepth is the number of nested interpreter calls (JavaScript frames) the guard allows:
// more than V8 allows the same one-argument recursive function in Codex's host
// (docs/adr/0061-the-module-guards-its-stack.md).
const MaxCallDepth = 12000

// SegmentFrames is the number of interpreter calls between two trampolines: a native stack of some
// 9 MB, far from wazero's limit even with C frames between the JavaScript ones. A power of two.
const SegmentFrames = 1024

// StackGuardBytes is how much of the wasm stack the guard keeps free: room for the error's
// construction and for the variables of the frame that passed the guard.
const StackGuardBytes = 1 << 20

// The slack of a stack overflow. QuickJS writes the RangeError's stack when the error unwinds
// the frame that made the failed call, and runs the prelude's stack hook then
// (docs/adr/0060-v8-error-texts-and-stack-frames.md): at the limit, so the guard would refuse
// the hook's own calls and the error's stack would be null. The guard that throws records the
// depth it threw at (a global, 0 when unarmed); until the frame at that depth returns, the guard
// allows SlackFrames more calls and StackSlackBytes more of the stack, room for the hook, and
// throws again past them. A trap leaves the record behind; the first call that returns after the
// reset clears it.
const (
	SlackFrames     = 64
	StackSlackBytes = StackGuardBytes / 2
)

// CallDepthExport is the export name of the guard's count of interpreter calls.
const CallDepthExport = "codemode_call_depth"

// TrampolineExport is the export name of the trampoline: (ctx, block) -> JSValue calls the
// interpreter with the arguments the guard stored in block.
const TrampolineExport = "codemode_call_interpreter"

// TrampolineArgc is the argument count with which the guard calls env.jsFunctionProxy to start a
// new native stack; argv is then the block of the call's arguments.
const TrampolineArgc = 0xFFFFFFFE

// The block of a trampolined call's arguments: func_obj, this_obj and new_target (i64), then
// argc, argv and flags (i32), at these offsets; blockBytes keeps the stack 16-byte aligned.
const (
	blockFunc, blockThis, blockNewTarget = 0, 8, 16
	blockArgc, blockArgv, blockFlags     = 24, 28, 32
	blockBytes                           = 48
)

// Opcodes of the guard beside those of instructions.go.
const (
	opElse    = 0x05
	opSelect  = 0x1b
	opI32And  = 0x71
	opI32Load = 0x28
	opI64Load = 0x29
	opI32Stor = 0x36
	opI64Stor = 0x37
	blockI64  = 0x7e
)

// depthGlobal is the count: a mutable i32 starting at 0.
func depthGlobal() []byte {
	return []byte{0x7f, 1, opI32Const, 0, opEnd}
}

// guardBody is the guard function (see above); it has the interpreter's signature.
func guardBody(plan pollPlan, layout Layout) []byte {
	depth := func(b []byte, op byte) []byte { return appendU32(append(b, op), plan.depth) }
	slack := func(b []byte, op byte) []byte { return appendU32(append(b, op), plan.slack) }
	b := []byte{0} // no locals
	// The common path reads only the stack pointer and the depth, as without the slack: a call
	// past the limits goes into the block, where the slack is looked at.
	// if sp < limit || depth >= MaxCallDepth {
	b = append(b, opGlobalGet, 0, opI32Const)
	b = appendS32(b, int32(layout.StackLow+StackGuardBytes))
	b = append(b, opI32LtU)
	b = depth(b, opGlobalGet)
	b = appendS32(append(b, opI32Const), MaxCallDepth)
	b = append(b, opI32GeU, opI32Or, opIf, blockEmpty)
	//   if slack == 0 || sp < limit-StackSlackBytes || depth >= MaxCallDepth+SlackFrames {
	b = slack(b, opGlobalGet)
	b = append(b, opI32Eqz, opGlobalGet, 0, opI32Const)
	b = appendS32(b, int32(layout.StackLow+StackGuardBytes-StackSlackBytes))
	b = append(b, opI32LtU, opI32Or)
	b = depth(b, opGlobalGet)
	b = appendS32(append(b, opI32Const), MaxCallDepth+SlackFrames)
	b = append(b, opI32GeU, opI32Or, opIf, blockEmpty)
	//     if slack == 0 { slack = depth }
	b = slack(b, opGlobalGet)
	b = depth(b, opGlobalGet)
	b = slack(b, opGlobalGet)
	b = slack(append(b, opSelect), opGlobalSet)
	//     return QJS_ThrowRangeError(ctx, text) } }
	b = append(b, opLocalGet, 0, opI32Const)
	b = appendS32(b, int32(plan.overflowText))
	b = appendU32(append(b, opCallDirect), plan.throwRangeError)
	b = append(b, opReturn, opEnd, opEnd)
	// depth += 1
	b = depth(b, opGlobalGet)
	b = append(b, opI32Const, 1, opI32Add)
	b = depth(b, opGlobalSet)
	// if depth % SegmentFrames == 0 { trampoline } else { interpreter(args) }
	b = depth(b, opGlobalGet)
	b = appendS32(append(b, opI32Const), SegmentFrames-1)
	b = append(b, opI32And, opI32Eqz, opIf, blockI64)
	b = append(b, trampolineCall(plan)...)
	b = append(b, opElse)
	for i := range byte(7) {
		b = append(b, opLocalGet, i)
	}
	b = appendU32(append(b, opCallDirect), plan.interpreter)
	b = append(b, opEnd)
	// depth -= 1, the result stays on the stack
	b = depth(b, opGlobalGet)
	b = append(b, opI32Const, 1, opI32Sub)
	b = depth(b, opGlobalSet)
	// if slack != 0 && depth < slack { slack = 0 }: the frame the guard threw at has returned
	b = slack(b, opGlobalGet)
	b = append(b, opIf, blockEmpty)
	b = slack(b, opGlobalGet)
	b = append(b, opI32Const, 0)
	b = depth(b, opGlobalGet)
	b = slack(b, opGlobalGet)
	b = append(b, opI32GeU, opSelect)
	b = slack(b, opGlobalSet)
	b = append(b, opEnd)
	b = append(b, opEnd)
	return append(appendU32(nil, uint32(len(b))), b...)
}

// trampolineCall stores the call's arguments in a block on the wasm stack and calls the host with
// it: sp -= blockBytes; store; r = proxy(ctx, 0, TrampolineArgc, sp); sp += blockBytes; r.
func trampolineCall(plan pollPlan) []byte {
	b := []byte{opGlobalGet, 0, opI32Const}
	b = appendS32(b, blockBytes)
	b = append(b, opI32Sub, opGlobalSet, 0)
	store := func(local byte, op byte, align byte, offset uint32) {
		b = append(b, opGlobalGet, 0, opLocalGet, local, op, align)
		b = appendU32(b, offset)
	}
	store(1, opI64Stor, 3, blockFunc)
	store(2, opI64Stor, 3, blockThis)
	store(3, opI64Stor, 3, blockNewTarget)
	store(4, opI32Stor, 2, blockArgc)
	store(5, opI32Stor, 2, blockArgv)
	store(6, opI32Stor, 2, blockFlags)
	b = append(b, opLocalGet, 0, opI64Const, 0, opI32Const)
	b = appendS32(b, -2) // TrampolineArgc as an i32
	b = append(b, opGlobalGet, 0, opCallDirect)
	b = appendU32(b, plan.proxyFunc)
	b = append(b, opGlobalGet, 0, opI32Const)
	b = appendS32(b, blockBytes)
	return append(b, opI32Add, opGlobalSet, 0)
}

// trampolineBody is the exported trampoline: (ctx, block) -> interpreter(ctx, the block's
// arguments). The guard counted the call already.
func trampolineBody(plan pollPlan) []byte {
	b := []byte{0, opLocalGet, 0}
	load := func(op byte, align byte, offset uint32) {
		b = append(b, opLocalGet, 1, op, align)
		b = appendU32(b, offset)
	}
	load(opI64Load, 3, blockFunc)
	load(opI64Load, 3, blockThis)
	load(opI64Load, 3, blockNewTarget)
	load(opI32Load, 2, blockArgc)
	load(opI32Load, 2, blockArgv)
	load(opI32Load, 2, blockFlags)
	b = appendU32(append(b, opCallDirect), plan.interpreter)
	b = append(b, opEnd)
	return append(appendU32(nil, uint32(len(b))), b...)
}
