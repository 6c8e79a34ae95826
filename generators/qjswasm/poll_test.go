package qjswasm

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// runSpin instantiates the derived test module with host as env.jsFunctionProxy and calls spin
// with turns loop turns.
func runSpin(t *testing.T, turns uint32, host func(argc uint32) uint64) error {
	t.Helper()
	out, _, err := Transform(module(3, 165408, proxyFactory+"\x00"), pageSize)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	r := wazero.NewRuntime(ctx)
	defer r.Close(ctx)
	_, err = r.NewHostModuleBuilder(proxyImportModule).NewFunctionBuilder().
		WithFunc(func(_ context.Context, _ api.Module, _ uint32, _ uint64, argc, _ uint32) uint64 { return host(argc) }).
		Export(proxyImportName).Instantiate(ctx)
	if err != nil {
		t.Fatal(err)
	}
	mod, err := r.Instantiate(ctx, out)
	if err != nil {
		t.Fatal(err)
	}
	_, err = mod.ExportedFunction("spin").Call(ctx, 0, 0, uint64(turns), 0)
	return err
}

// Every PollInterval loop turns the derived module calls its host import with PollArgc, and only
// then: 25,000 turns poll twice.
func TestDerivedModulePollsEveryIntervalOfLoopTurns(t *testing.T) {
	polls, other := 0, 0
	err := runSpin(t, 2*PollInterval+PollInterval/2, func(argc uint32) uint64 {
		if argc == PollArgc {
			polls++
		} else {
			other++
		}
		return 0
	})
	if err != nil || polls != 2 || other != 0 {
		t.Fatalf("%v: %d polls, %d other calls; want 2 polls", err, polls, other)
	}
}

// A host that panics in a poll stops the loop there: the call fails with the panic, after exactly
// one interval of turns.
func TestDerivedModuleStopsWhereTheHostPanics(t *testing.T) {
	stop := errors.New("stopped")
	polls := 0
	err := runSpin(t, 1<<30, func(uint32) uint64 {
		polls++
		panic(stop)
	})
	if err == nil || !strings.Contains(err.Error(), "stopped") || polls != 1 {
		t.Fatalf("%v after %d polls; want the call to fail at the first poll", err, polls)
	}
}

// The walker refuses instructions it does not know rather than guess their immediates.
func TestInstrumentRefusesUnknownOpcodes(t *testing.T) {
	for name, body := range map[string][]byte{
		"SIMD":    {0, 0xfd, 12, opEnd},
		"atomics": {0, 0xfe, 0, opEnd},
		"0xfc 99": {0, opPrefixFC, 99, opEnd},
	} {
		if _, _, err := instrumentBody(body, bodyEdit{}); err == nil || !strings.Contains(err.Error(), "unknown") {
			t.Errorf("%s: %v, want an unknown-instruction error", name, err)
		}
	}
}

// The derived module asks the host for every memory.grow (GrowArgc, the pages in argv) and takes
// its answer as memory.grow's; memory.size reads the seen global, not the memory: a host that
// answers a grow of 2 pages with 7 and sets the global to 9 makes grow(2) return 7*65536 + 9, while
// the real memory keeps its size.
func TestDerivedModuleAsksTheHostToGrowAndReadsTheSeenSize(t *testing.T) {
	var asked []uint32
	mod, layout := guarded(t, func(m api.Module, _, argc, argv uint32) uint64 {
		if argc != GrowArgc {
			return 0
		}
		asked = append(asked, argv)
		m.ExportedGlobal(SeenPagesExport).(api.MutableGlobal).Set(9)
		return 0xFFFFFFFF_00000007 // the high half is dropped: memory.grow returns an i32
	})
	if seen := mod.ExportedGlobal(SeenPagesExport).Get(); seen != uint64(layout.InitialPages) {
		t.Fatalf("the seen size starts at %d pages, want the initial %d", seen, layout.InitialPages)
	}
	res, err := mod.ExportedFunction("grow").Call(context.Background(), 2)
	if err != nil {
		t.Fatal(err)
	}
	if got := uint32(res[0]); got != 7*65536+9 || len(asked) != 1 || asked[0] != 2 {
		t.Fatalf("grow(2) = %d after asks %v, want %d after one ask for 2 pages", got, asked, 7*65536+9)
	}
	if pages := mod.Memory().Size() / pageSize; pages != layout.InitialPages {
		t.Fatalf("the real memory has %d pages, want %d: only the host grows it", pages, layout.InitialPages)
	}
}
