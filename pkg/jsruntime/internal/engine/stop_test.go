package engine

import (
	"errors"
	"runtime"
	"testing"
)

// signalHost answers every bridge message with undefined and hands it to on, on the goroutine that
// runs the script.
type signalHost struct{ on func(msg string) }

func (h signalHost) Serve(msg string) Reply {
	h.on(msg)
	return Undefined()
}

func (signalHost) Fault(error) {}

// runStopped runs src, a function of the bridge, on e; the bridge message "stop" interrupts e from
// another goroutine, as a terminate does, every message is recorded, and each is handed to on (if
// set). It returns the call's error, classified, and the messages.
func runStopped(e *Engine, src string, on func(string)) ([]string, error) {
	var got []string
	e.Attach(signalHost{on: func(msg string) {
		got = append(got, msg)
		if msg == "stop" {
			done := make(chan struct{})
			go func() { e.interrupt(); close(done) }()
			<-done
		}
		if on != nil {
			on(msg)
		}
	}}, 256<<20)
	defer e.Detach()
	fn, err := e.evalSource("stopped.js", src)
	if err != nil {
		return nil, err
	}
	v, err := e.callValue(fn, e.hostFn, "")
	if err == nil {
		e.free(v)
	}
	return got, e.Classify(err)
}

// Every kind of long-running work stops at the interrupt, inside it: the interpreter's loop, a
// regular expression's backtracking and JSON.parse's C loops (the message after the work never
// arrives); the stop is a clean unwind that the pool's reset repairs, so the runtime serves the
// next script instead of being replaced.
func TestInterruptStopsEveryLongRunningWorkAndTheEngineIsReset(t *testing.T) {
	p, err := Start(testConfig(t), 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for name, src := range map[string]string{
		"while (true)":       `(function (host) { host("stop"); while (true) {} })`,
		"catastrophic regex": `(function (host) { host("stop"); /(a+)+$/.test("a".repeat(40) + "b"); host("after") })`,
		"huge JSON.parse": `(function (host) { const big = "[" + "[1,2,3,{\"k\":\"v\"}],".repeat(400000) + "0]";
			host("stop"); JSON.parse(big); host("after") })`,
		"recursion": `(function (host) { host("stop"); const f = (n) => n === 0 ? 0 : 1 + f(n - 1); for (;;) f(1000) })`,
	} {
		e, err := p.Get()
		if err != nil {
			t.Fatal(err)
		}
		got, err := runStopped(e, src, nil)
		if !errors.Is(err, ErrInterrupted) || len(got) != 1 {
			t.Errorf("%s: %v, messages %q; want an interrupt inside the work", name, err, got)
		}
		p.WillReturn()
		p.Put(e)
		e2, err := p.Get()
		if err != nil {
			t.Fatal(err)
		}
		if e2 != e {
			t.Fatalf("%s: the interrupted runtime was replaced, not reset", name)
		}
		if v, err := e2.evalSource("after.js", "1 + 1"); err != nil || v != 2 { // the int 2: tag 0, value 2
			t.Fatalf("%s: the reset runtime does not run: %v", name, err)
		}
		p.WillReturn()
		p.Put(e2)
	}
	if s := p.Stats(); s.Created != 1 || s.Replaced != 0 {
		t.Fatalf("pool %+v: every interrupted runtime should have been reset and reused", s)
	}
}

// A spinning script does not hold up Go's garbage collector: the module's polls return to Go,
// where the collector can stop the goroutine. Without them (wazero's compiled code is never
// preempted), runtime.GC would wait for the loop to end, and every goroutine of the process with it.
func TestSpinningScriptDoesNotStallTheGarbageCollector(t *testing.T) {
	e := newTestEngine(t)
	spinning := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		_, err := runStopped(e, `(function (host) { host("spinning"); while (true) {} })`, func(string) { close(spinning) })
		done <- err
	}()
	<-spinning
	runtime.GC() // returns only if the spinning goroutine reached a safe point
	runtime.GC()
	e.interrupt()
	if err := <-done; !errors.Is(err, ErrInterrupted) {
		t.Fatalf("the spinning script ended with %v", err)
	}
}
