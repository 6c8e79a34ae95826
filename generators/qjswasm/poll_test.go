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
