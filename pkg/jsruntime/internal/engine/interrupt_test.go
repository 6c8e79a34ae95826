package engine

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"
	"time"
)

// TestInterruptOnStopWaitsForAnInterruptInFlight proves the property the pool relies on: once the
// stop of InterruptOn returns, either the engine's stop flag is up (the pool's reset clears it
// before the next cell) or no interrupt will ever come. Before, a cell whose context ended just as
// the cell finished handed a sound-looking engine to the pool, the interrupt closed it a moment
// later, and the next cell on it ended at once with an empty, successful result.
func TestInterruptOnStopWaitsForAnInterruptInFlight(t *testing.T) {
	for i := range 5 {
		e := newTestEngine(t)
		ctx, cancel := context.WithCancel(context.Background())
		stop := e.InterruptOn(ctx)
		cancel()
		stop()
		if !e.stop.Load() {
			t.Fatalf("engine %d: the interrupt was still in flight after stop returned", i)
		}
	}
	// Stopped before its context ends, it never interrupts.
	e := newTestEngine(t)
	ctx, cancel := context.WithCancel(context.Background())
	e.InterruptOn(ctx)()
	cancel()
	if v, err := e.evalSource("after_stop.js", "1 + 1"); err != nil || v != 2 { // the int 2: tag 0, value 2
		t.Fatalf("engine unusable after a stopped watch: %v", err)
	}
}

// An interrupt that began when the cell was stopped holds up the release of its engine until it is
// done: otherwise it could land on the engine's next cell.
func TestStopWaitsForAnInterruptThatBegan(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		release := make(chan struct{})
		interrupted := false
		stop := interruptWhenStopped(ctx, func() {
			<-release
			interrupted = true
		})
		cancel()
		synctest.Wait() // the interrupt has begun and is held
		stopped := make(chan struct{})
		go func() {
			stop()
			close(stopped)
		}()
		synctest.Wait()
		select {
		case <-stopped:
			t.Fatal("stop returned while the interrupt was still running")
		default:
		}
		close(release)
		<-stopped
		if !interrupted {
			t.Fatal("stop returned before the interrupt finished")
		}
	})
}

// Below the import ban: QuickJS's os module, reached from Go without the prelude and the source
// transform, sleeps inside a WASI call (poll_oneoff, answered by wazero with time.Sleep), where no
// interrupt poll runs. os.sleep, a pending os.setTimeout (QJS_Eval then runs QuickJS's event loop,
// which waits for it) and os.sleepAsync each keep the goroutine, and with it the engine, until the
// sleep ends, whatever interrupt came meanwhile; only the loop after the sleep is stopped, at its
// first poll. A cell chooses the duration, so for cells the import ban (the source transform;
// attack_imports_test.go) is the only thing that keeps os out of reach: no global, prototype or
// helper leads to it (TestAttackRealmHoldsOnlyECMAScriptAndTheHelpers). If this test fails because
// the call ends at the interrupt, the layer below closed this gap.
func TestQuickJSSleepOutlastsAnInterruptSoTheImportBanMustHold(t *testing.T) {
	const sleep = 300 * time.Millisecond
	for _, call := range []string{
		fmt.Sprintf("os.sleep(%d); for (;;) {}", sleep.Milliseconds()),
		fmt.Sprintf("os.setTimeout(() => { for (;;) {} }, %d)", sleep.Milliseconds()),
		fmt.Sprintf("os.sleepAsync(%d).then(() => { for (;;) {} })", sleep.Milliseconds()),
	} {
		t.Run(call, func(t *testing.T) {
			e := newTestEngine(t)
			if _, err := e.evalSource("escape.js", `import("qjs:os").then((os) => { globalThis.os = os }); void 0`); err != nil {
				t.Fatal(err)
			}
			v, err := e.evalSource("check.js", "typeof os.sleep")
			if err != nil {
				t.Fatal(err)
			}
			if kind, err := e.readString(v); err != nil || kind != "function" {
				t.Fatalf("QuickJS's os module is not reachable from Go: %q %v", kind, err)
			}
			e.free(v)
			start := time.Now()
			time.AfterFunc(20*time.Millisecond, e.interrupt)
			_, err = e.evalSource("sleep.js", call+"; void 0")
			elapsed := time.Since(start)
			if elapsed < sleep || e.Classify(err) != ErrInterrupted {
				t.Fatalf("after %v: %v; want the sleep to outlast the interrupt and the loop after it to be stopped", elapsed, err)
			}
			t.Logf("%s: an interrupt after 20ms took effect after %v", call, elapsed.Round(time.Millisecond))
		})
	}
}

// OnLongTurn's function runs once, on the script's goroutine, at the first poll past its time,
// and not at all before it.
func TestOnLongTurnCallsOnceAtAPoll(t *testing.T) {
	e := newTestEngine(t)
	const loop = "(() => { let s = 0; for (let i = 0; i < 1e6; i++) s += i; return String(s) })()"
	for _, c := range []struct {
		after time.Duration
		calls int
	}{{0, 1}, {time.Hour, 0}} {
		calls := 0
		e.OnLongTurn(c.after, func() { calls++ })
		v, err := e.evalSource("long.js", loop)
		if err != nil {
			t.Fatal(err)
		}
		e.free(v)
		e.OnLongTurn(0, nil)
		if calls != c.calls {
			t.Fatalf("after %v: called %d times, want %d", c.after, calls, c.calls)
		}
	}
}
