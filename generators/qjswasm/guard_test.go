package qjswasm

import (
	"context"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// guarded instantiates the derived test module, whose call export calls the interpreter (through
// the guard), with host as env.jsFunctionProxy.
func guarded(t *testing.T, host func(m api.Module, ctx uint32, argc, argv uint32) uint64) (api.Module, Layout) {
	t.Helper()
	out, layout, err := Transform(module(3, 165408, proxyFactory+"\x00"), 2*StackGuardBytes)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	r := wazero.NewRuntime(ctx)
	t.Cleanup(func() { r.Close(ctx) })
	_, err = r.NewHostModuleBuilder(proxyImportModule).NewFunctionBuilder().
		WithFunc(func(_ context.Context, m api.Module, jsctx uint32, _ uint64, argc, argv uint32) uint64 {
			return host(m, jsctx, argc, argv)
		}).
		Export(proxyImportName).Instantiate(ctx)
	if err != nil {
		t.Fatal(err)
	}
	mod, err := r.Instantiate(ctx, out)
	if err != nil {
		t.Fatal(err)
	}
	return mod, layout
}

// callAt sets the guard's count to depth, calls the interpreter through the guard with argument
// count argc, and returns the result and the count afterwards.
func callAt(t *testing.T, mod api.Module, depth, argc uint32) (uint64, uint32) {
	t.Helper()
	g := mod.ExportedGlobal(CallDepthExport).(api.MutableGlobal)
	g.Set(uint64(depth))
	res, err := mod.ExportedFunction("call").Call(context.Background(), 1, 2, 3, 4, uint64(argc), 6, 7)
	if err != nil {
		t.Fatal(err)
	}
	return res[0], uint32(g.Get())
}

// Below its limits the guard calls the interpreter and leaves the count as it found it; at
// MaxCallDepth, or with the stack pointer within StackGuardBytes of the stack's bottom, it throws
// (QJS_ThrowRangeError runs instead of the interpreter).
func TestGuardThrowsAtItsLimits(t *testing.T) {
	mod, layout := guarded(t, func(api.Module, uint32, uint32, uint32) uint64 {
		t.Fatal("the host was called")
		return 0
	})
	if res, depth := callAt(t, mod, 5, 0); res != 0 || depth != 5 {
		t.Fatalf("below the limit: result %d, count %d; want the interpreter's 0 and 5", res, depth)
	}
	if res, depth := callAt(t, mod, MaxCallDepth, 0); res != thrown || depth != MaxCallDepth {
		t.Fatalf("at MaxCallDepth: result %d, count %d; want the throw", res, depth)
	}
	// Until the frame the guard threw at returns, the stack hook has SlackFrames more.
	if res, depth := callAt(t, mod, MaxCallDepth+SlackFrames-1, 0); res != 0 || depth != MaxCallDepth+SlackFrames-1 {
		t.Fatalf("within the slack: result %d, count %d; want the interpreter's 0", res, depth)
	}
	if res, _ := callAt(t, mod, MaxCallDepth+SlackFrames, 0); res != thrown {
		t.Fatalf("past the slack: result %d; want the throw", res)
	}
	// A call that returns below that frame ends the slack.
	if res, _ := callAt(t, mod, MaxCallDepth-2, 0); res != 0 {
		t.Fatalf("below the limit again: result %d; want the interpreter's 0", res)
	}
	if res, _ := callAt(t, mod, MaxCallDepth, 0); res != thrown {
		t.Fatalf("at MaxCallDepth after the slack: result %d; want the throw", res)
	}
	callAt(t, mod, 0, 0)
	sp := mod.ExportedGlobal(StackPointerExport).(api.MutableGlobal)
	sp.Set(uint64(layout.StackLow + StackGuardBytes - 16))
	if res, _ := callAt(t, mod, 1, 0); res != thrown {
		t.Fatalf("with the stack nearly used up: result %d; want the throw", res)
	}
	sp.Set(uint64(layout.StackLow + StackGuardBytes - StackSlackBytes + 16))
	if res, _ := callAt(t, mod, 2, 0); res != 0 {
		t.Fatalf("with the stack nearly used up, within the slack: result %d; want the interpreter's 0", res)
	}
	sp.Set(uint64(layout.StackLow + StackGuardBytes - StackSlackBytes - 16))
	if res, _ := callAt(t, mod, 2, 0); res != thrown {
		t.Fatalf("past the stack's slack: result %d; want the throw", res)
	}
}

// Every SegmentFrames-th call goes through the host with its arguments in a block on the wasm
// stack; the host's call of the trampoline export makes the interpreter call, and the stack
// pointer and the count are back where they were afterwards.
func TestGuardTrampolinesEverySegment(t *testing.T) {
	var gotArgc, gotCtx uint32
	var block []byte
	mod, layout := guarded(t, func(m api.Module, jsctx, argc, argv uint32) uint64 {
		gotCtx, gotArgc = jsctx, argc
		b, _ := m.Memory().Read(argv, blockBytes)
		block = append([]byte(nil), b...)
		res, err := m.ExportedFunction(TrampolineExport).Call(context.Background(), uint64(jsctx), uint64(argv))
		if err != nil {
			panic(err)
		}
		return res[0] + 100
	})
	res, depth := callAt(t, mod, SegmentFrames-1, 0)
	if gotArgc != TrampolineArgc || gotCtx != 1 || res != 100 || depth != SegmentFrames-1 {
		t.Fatalf("host saw argc %#x ctx %d; result %d, count %d; want a trampoline, the interpreter's 0 + 100", gotArgc, gotCtx, res, depth)
	}
	want := []byte{2, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 6, 0, 0, 0, 7, 0, 0, 0}
	if string(block[:len(want)]) != string(want) {
		t.Fatalf("block %v, want the call's arguments %v", block[:len(want)], want)
	}
	if sp := uint32(mod.ExportedGlobal(StackPointerExport).Get()); sp != layout.StackTop {
		t.Fatalf("stack pointer %d after the call, want %d", sp, layout.StackTop)
	}
}
