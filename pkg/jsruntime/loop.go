package jsruntime

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/jsruntime/internal/engine"
	"github.com/codemodehq/codemode/pkg/jsruntime/internal/jssource"
	"github.com/codemodehq/codemode/pkg/modeltool"
	"github.com/codemodehq/codemode/pkg/serdejson"
)

// Error texts of cells whose runtime failed underneath the script.
const (
	// stackOverflowText is the error of a cell whose runtime trapped on its stack: nesting inside
	// QuickJS's C code (a deeply nested JSON.parse), which the module's stack guard does not see.
	// JavaScript recursion throws the same text as a catchable RangeError instead (ADR 61).
	stackOverflowText = "RangeError: Maximum call stack size exceeded"
	// outOfMemoryTextFormat is the error of a cell that needed more memory than its heap limit.
	outOfMemoryTextFormat = "RangeError: Out of memory: the cell needed more than its heap limit of %d bytes"
	// outOfBudgetTextFormat is the error of a cell within its heap limit whose heap could not
	// grow because the host's memory budget, shared by every cell, was spent: the cell is not at
	// fault for its size, the host is full.
	outOfBudgetTextFormat = "RangeError: Out of memory: the code-mode host's memory budget of %d bytes, shared by every cell, is spent; the cell could not grow its heap (its own limit is %d bytes)"
)

// maxBatch bounds how many tool results one deliver crossing carries.
const maxBatch = 1024

// cellRun is the event loop of one cell. It runs on the goroutine that owns the cell's engine;
// every call into the runtime happens there. Other goroutines (tool calls, timers) only send it
// values over channels.
type cellRun struct {
	s   *session
	c   *cell
	req codemode.ExecuteRequest
	e   vm

	heapLimit uint64
	store     *cellStore
	tools     toolCalls
	notes     notifier
	timers    timerQueue

	settled bool
	errText *string
	// exited is set once the script called exit(): the turn that ends with errCellExited ends the
	// cell as it stood.
	exited bool
	// idle fires when the loop has waited idleShedAfter (see wait); nil until the first wait.
	idle *time.Timer

	// own is held by whoever runs the loop's work: its goroutine, except while it is parked in
	// wait, when a call's settling goroutine may borrow it (runInline). parked is set while the
	// loop's goroutine is parked there.
	own    sync.Mutex
	parked atomic.Bool
	// inlinePaused: a borrowed turn left the cell paused at a frontier, where the loop's goroutine
	// must wait (awaitResume). inlinePanic: what a borrowed turn panicked with, re-raised on the
	// loop's goroutine, whose conclude turns it into the cell's failure. Both under own.
	inlinePaused bool
	inlinePanic  any
	// inlineRelay is the relay of the turn running on a done caller's goroutine, until it is
	// called (handOn); nil otherwise.
	inlineRelay func()

	stats loopStats

	// code is the printed code of the cell's module, and sites its reading for V8's error texts,
	// made when the cell first creates an error (errtext.go).
	code  string
	sites *jssource.Sites
}

// loopStats counts a cell's turns per kind.
type loopStats struct {
	turns, takes, deliveries, timerFires int // takes: turns that carried queued calls or timers
	sheds                                int // waits that shed the engine's resolved exports
	inline                               int // answers whose turn ran on the call's goroutine
}

// observeLoopStats, when set (by tests), receives each cell's stats when its loop ends. It exists
// so tests can check that batching holds: many tool calls, few crossings.
var observeLoopStats func(loopStats)

// runCell runs a cell to its end and hands the outcome to the session. conclude (cell.go)
// publishes the outcome whatever happens to the goroutine: nothing a script or a delegate does may
// take down the process or another cell.
func (s *session) runCell(c *cell, req codemode.ExecuteRequest, snapshot storedValues) {
	r := &cellRun{s: s, c: c, req: req, heapLimit: s.heapLimit(), store: newCellStore(snapshot, s.p.storeLimits)}
	r.tools.init(r, c.ctx)
	r.timers.limit = s.p.limits.maxPendingTimers
	// Undelivered notifications are output too: bounded like unobserved output.
	r.notes.limit, r.notes.done, r.notes.beforeWait = s.p.limits.maxOutputBytes, c.ctx.Done(), r.handOn

	finished := false
	defer s.running.Done()
	defer func() { r.conclude(recover(), finished) }()
	s.hooks.stage(c.id, stageStarting)
	r.run()
	finished = true
}

func (r *cellRun) run() {
	if r.c.ctx.Err() != nil {
		return
	}
	e, err := r.s.p.runtimes().get()
	if err != nil {
		r.fail(fmt.Sprintf("exec runtime unavailable: %v", err))
		return
	}
	r.e = e
	r.s.apply(r.c, event{kind: evStarted}) // start-up does not count against the yield time
	// The script is interrupted when the cell is stopped, or at once when its heap is full.
	e.Attach(r, r.heapLimit)
	stop := e.InterruptOn(r.c.ctx)
	defer func() {
		stop()
		r.timers.stop()
		r.stopIdleAlarm()
	}()

	// QuickJS runs only code our parser printed, cleared of imports (internal/jssource).
	prog, err := jssource.Module(r.req.Source)
	if err != nil {
		r.fail(sourceRefusal(r.req.Source, err))
		return
	}
	r.code = prog.Code
	if err := e.LoadModule(prog.Code + "\n"); err != nil {
		r.engineFailure(err)
		return
	}
	if err := r.turn(func() (string, error) { return e.Begin(r.beginSpec()) }); err != nil {
		r.engineFailure(err)
		return
	}
	r.loop()
}

// loop turns the event loop until the module's evaluation settles or the cell is stopped. Each
// turn delivers ready results or fires a due timer, runs the jobs and takes the queued calls.
func (r *cellRun) loop() {
	r.own.Lock()
	defer r.own.Unlock()
	for !r.settled && r.c.ctx.Err() == nil {
		var err error
		switch {
		case r.tools.hasReady():
			err = r.deliverReady()
		default:
			if id, ok := r.timers.due(); ok {
				r.stats.timerFires++
				err = r.turn(func() (string, error) { return r.e.Deliver("[["+strconv.FormatInt(id, 10)+",2]]", nil) })
				break
			}
			r.wait()
			continue
		}
		if err != nil {
			r.engineFailure(err)
			return
		}
	}
}

// wait blocks until a tool result arrives, a timer is due, the cell is stopped or an observer
// needs the loop. The loop calls it when it has nothing to do; unless a result arrived meanwhile,
// the cell is then quiescent: a pending observer is handed the frontier there and the loop pauses
// until the cell is observed again (pending frontiers, codemode.PendingSession). A wait longer
// than idleShedAfter sheds the engine's resolved exports (see wasm.go).
func (r *cellRun) wait() {
	select {
	case <-r.tools.inbox.ready:
		r.tools.collect()
		return
	default:
	}
	r.s.hooks.stage(r.c.id, stageIdle)
	idle := r.idleAlarm()
	defer r.stopIdleAlarm()
	if r.s.apply(r.c, event{kind: evQuiescent}).pause {
		r.awaitResume(idle)
		return
	}
	clock := r.timers.clock()
	for {
		r.park()
		select {
		case <-r.tools.inbox.ready:
			r.unpark()
			r.tools.collect()
		case <-clock:
			r.unpark()
		case <-r.c.wake:
			r.unpark()
		case <-r.c.ctx.Done():
			r.unpark()
		case <-idle:
			r.unpark()
			idle = nil
			if !r.inlinePaused {
				r.shedIdle()
				continue
			}
		}
		if r.inlinePaused {
			r.inlinePaused = false
			r.awaitResume(idle)
		}
		return
	}
}

// handOn calls the relay of a turn running on a done caller's goroutine, once: the turn runs long
// (the engine's poll) or is about to wait for something the caller's goroutine may have to read
// (a notification's delivery, notifier.beforeWait).
func (r *cellRun) handOn() {
	if f := r.inlineRelay; f != nil {
		r.inlineRelay = nil
		f()
	}
}

// park lets a call's settling goroutine borrow the loop while its goroutine waits (runInline).
func (r *cellRun) park() {
	r.parked.Store(true)
	r.own.Unlock()
	r.s.hooks.loopBorrowable(r.c.id)
}

// unpark takes the loop back once a borrowed turn, if one runs, is over, and re-raises its panic.
func (r *cellRun) unpark() {
	r.own.Lock()
	r.parked.Store(false)
	if p := r.inlinePanic; p != nil {
		r.inlinePanic = nil
		panic(p)
	}
}

// longTurnAfter is how long a turn runs on a done caller's goroutine (runInline) before the
// caller's other duties are handed on (codemode.TurnRunner's relay): a transport's reader then
// reads again, so a terminate waits at most this plus one interrupt poll for a cell that computes.
const longTurnAfter = time.Millisecond

// runInline runs the turn of res, the answer to the cell's one pending tool call, on the goroutine
// that called done (a codemode.TurnRunner's, holding no lock), when the loop is parked waiting for
// it: the answer then wakes no other goroutine, and neither does the next call the turn starts
// (docs/adr/0075-a-round-trip-on-one-thread.md). A turn that runs past longTurnAfter calls relay.
// Anything else (a batch of answers, a due timer, the cell's end, a frontier to pause at) is left
// to the loop's goroutine, which it wakes. It reports false, leaving res to the caller, when the
// loop was not borrowed; once borrowed, res is taken whatever happens (a panic of the turn is the
// loop's to raise).
func (r *cellRun) runInline(res toolResult, relay func()) (borrowed bool) {
	if !r.parked.Load() || !r.own.TryLock() {
		return false
	}
	defer r.s.hooks.loopBorrowable(r.c.id)
	defer r.own.Unlock()
	if !r.parked.Load() || r.inlinePaused || r.inlinePanic != nil || r.tools.running != 1 || !r.tools.inbox.empty() || r.tools.hasReady() {
		return false
	}
	borrowed = true
	defer func() {
		if p := recover(); p != nil {
			r.inlinePanic = p
			r.c.wakeLoop()
		}
	}()
	r.stats.inline++
	r.s.hooks.stage(r.c.id, stageBorrowed)
	r.inlineRelay = relay
	r.e.OnLongTurn(longTurnAfter, r.handOn)
	defer func() {
		r.e.OnLongTurn(0, nil)
		r.inlineRelay = nil
	}()
	r.tools.accept(res)
	if err := r.deliverReady(); err != nil {
		r.engineFailure(err)
	}
	if r.settled || r.c.ctx.Err() != nil || r.tools.hasReady() || r.timers.pending() {
		r.c.wakeLoop()
		return true
	}
	if r.s.apply(r.c, event{kind: evQuiescent}).pause {
		r.inlinePaused = true
		r.c.wakeLoop()
	}
	return true
}

// awaitResume blocks the loop paused at a frontier until an observation resumes it or the cell is
// stopped. If idle fires meanwhile, the loop sheds its engine's exports.
func (r *cellRun) awaitResume(idle <-chan time.Time) {
	for r.paused() {
		select {
		case <-r.c.wake:
		case <-r.c.ctx.Done():
			return
		case <-idle:
			r.shedIdle()
			idle = nil
		}
	}
}

// paused reports whether the cell's lifecycle holds the loop at a frontier.
func (r *cellRun) paused() bool {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	return r.c.life.paused
}

// idleShedAfter is how long a cell's loop waits with nothing to do before its engine drops its
// resolved exports, whose native call stacks are most of what a live cell holds in the Go heap
// (about 200 KB). Resolving them again costs the next turn about 20 µs and 75 KB of garbage
// (measured: an empty turn after a shed, 32 µs instead of 14–22 µs): under 0.2 % of a wait this
// long, while a tool that answers sooner finds them in place.
const idleShedAfter = 10 * time.Millisecond

// idleAlarm arms the loop's idle timer for idleShedAfter and returns its channel; it is nil (never
// ready) when nothing is left to shed.
func (r *cellRun) idleAlarm() <-chan time.Time {
	if r.e.ExportsKept() == 0 {
		return nil
	}
	if r.idle == nil {
		r.idle = time.NewTimer(idleShedAfter)
	} else {
		r.idle.Reset(idleShedAfter)
	}
	return r.idle.C
}

// stopIdleAlarm disarms the idle timer when the loop has work again.
func (r *cellRun) stopIdleAlarm() {
	if r.idle != nil {
		r.idle.Stop()
	}
}

// shedIdle drops the engine's resolved exports while the cell waits (no call is running).
func (r *cellRun) shedIdle() {
	r.e.ShedExports()
	r.stats.sheds++
	r.s.hooks.stage(r.c.id, stageShed)
}

// turn runs one turn in the engine, checks what the turn did to memory and dispatches what
// JavaScript queued.
func (r *cellRun) turn(run func() (string, error)) error {
	r.stats.turns++
	queued, err := run()
	// Memory grows only inside a turn: recording it after each keeps a live cell's peak current
	// for LiveCellUsage at the cost of one atomic store.
	r.recordHeap()
	if err != nil {
		err = r.e.Classify(err)
	}
	if r.outOfMemory() {
		return nil
	}
	if err != nil || queued == "" {
		return err
	}
	r.stats.takes++
	return r.dispatch(queued)
}

// recordHeap records the memory the cell's runtime holds now as the cell's peak so far.
func (r *cellRun) recordHeap() { r.c.peakHeap.Store(r.e.MemoryBytes()) }

// dispatch starts what a turn queued: one record a line, "c id toolIndex[ inputJSON]",
// "t id delayMs" or "k id" (a cleared timer; see prelude.js). Records are checked like every
// bridge message.
func (r *cellRun) dispatch(queued string) error {
	for len(queued) > 0 {
		var record string
		record, queued, _ = strings.Cut(queued, "\n")
		kind, rest, _ := strings.Cut(record, " ")
		switch kind {
		case "c":
			if err := r.tools.start(rest); err != nil {
				return err
			}
		case "t":
			if err := r.timers.add(rest); err != nil {
				return err
			}
		case "k":
			if err := r.timers.clear(rest); err != nil {
				return err
			}

		default:
			return forged("unknown queued record %.20q", record)
		}
	}
	return nil
}

// deliverReady settles the ready tool promises, plus any other results already waiting, in one
// turn.
func (r *cellRun) deliverReady() error {
	// Let tool goroutines that are about to finish hand in their results first, so a burst of
	// results settles in one crossing rather than one each. With no other call in flight (an
	// awaited call's answer) there is nothing to wait for, and yielding would only let another
	// thread take the loop over, a hand-off per round trip (ADR 62).
	if r.tools.running > 0 {
		runtime.Gosched()
	}
	r.tools.collect()
	r.stats.deliveries++
	if res, ok := r.tools.takeOne(); ok {
		return r.turn(func() (string, error) { return r.e.DeliverOne(int32(res.id), string(res.value)) })
	}
	batch, longs := r.tools.takeBatch(maxBatch)
	return r.turn(func() (string, error) { return r.e.Deliver(batch, longs) })
}

// beginSpec is the argument of the prelude's begin: the tools and a fresh seed for Math.random.
func (r *cellRun) beginSpec() string {
	tools := make([][2]string, len(r.req.EnabledTools))
	for i, def := range r.req.EnabledTools {
		tools[i] = [2]string{modeltool.NormalizeIdentifier(def.Name), def.Description}
	}
	var seed [16]byte
	_, _ = rand.Read(seed[:])
	words := [4]int32{}
	for i := range words {
		words[i] = int32(binary.LittleEndian.Uint32(seed[4*i:]))
	}
	if words == [4]int32{} {
		words[0] = 1 // xoshiro's state must not be all zero
	}
	limits := r.s.p.limits
	b, _ := json.Marshal(struct {
		Tools     [][2]string `json:"tools"`
		Seed      [4]int32    `json:"seed"`
		MaxTimers int         `json:"maxTimers"`
		MaxCalls  int         `json:"maxCalls"`
		MaxOutput int         `json:"maxOutput"`
		Main      string      `json:"main"` // the module begin imports (engine.LoadModule)
		Mark      string      `json:"mark"` // the secret part of the prelude's inputMark (toolinput.go)
	}{tools, words, limits.maxPendingTimers, limits.maxPendingToolCalls, limits.maxOutputBytes, r.e.MainName(), r.tools.newMark()})
	return string(b)
}

// Serve answers one bridge message of the cell (engine.Host; the engine calls it inside a wasm
// call).
func (r *cellRun) Serve(msg string) engine.Reply {
	m, reply, ok := decodeCall(msg, r.Fault)
	if !ok {
		return reply
	}
	switch m.op {
	case opText, opRawText:
		return r.output(codemode.InputText{Text: m.text})
	case opLongText:
		return r.longText(m.length)
	case opOffer:
		return r.offer(m.length)
	case opImage:
		return r.output(codemode.InputImage{ImageURL: m.text, Detail: codemode.ImageDetail(m.detail)})
	case opAudio:
		return r.output(codemode.InputAudio{AudioURL: m.text})
	case opNotify:
		if !r.settled {
			r.notify(m.text)
		}
	case opYield:
		r.s.apply(r.c, event{kind: evYield})
	case opStore:
		if msg := r.store.put(m.key, m.value); msg != "" {
			return engine.String(msg)
		}
	case opLoad:
		if v, ok := r.store.get(m.text); ok {
			return engine.String(string(v))
		}
	case opEval:
		return compiled(jssource.Script(m.text))
	case opFunction:
		return compiled(jssource.Function(jssource.FunctionKind(m.kind), m.params, m.text))
	case opDone:
		r.settle(nil)
	case opFail:
		r.fail(m.text)
	case opRecords:
		if err := r.dispatch(m.text); err != nil {
			r.Fault(err)
		}
	case opCheck:
		if _, err := serdejson.Parse([]byte(m.text)); err != nil {
			return engine.String(err.Error())
		}
	case opInput:
		return r.tools.hold(m.text)
	case opExit:
		r.exit()
	case opZone:
		if z, ok := zoneAt(m.text, m.instant); ok {
			return engine.String(z)
		}
	case opStack:
		return r.v8Stack(m.text)
	}
	return engine.Undefined()
}

// errCellExited unwinds the engine from the bridge call of exit(): a Go panic in a host function
// ends the wasm call that is running, with no JavaScript run on the way out (no catch, no
// finally), because exit() must not be catchable (docs/protocol/javascript.md#exit). The
// engine's memory is then as a trap leaves it, and its reset in the pool restores it.
var errCellExited = errors.New("the cell called exit()")

// exit ends the cell successfully and unwinds its engine (errCellExited).
func (r *cellRun) exit() {
	r.exited = true
	r.settle(nil)
	panic(errCellExited)
}

// output appends an item to the cell's unobserved output; a string reply is the error the helper
// throws when the output limit would be exceeded.
func (r *cellRun) output(item codemode.ContentItem) engine.Reply {
	if r.settled {
		return engine.Undefined()
	}
	r.s.mu.Lock()
	err := r.c.out.append(item, r.s.p.limits.maxOutputBytes)
	r.s.mu.Unlock()
	if err != nil {
		return engine.String(err.Error())
	}
	return engine.Undefined()
}

// longText answers a text() whose text the prelude did not send because its length alone exceeds
// the output limit: its UTF-8 form has at least as many bytes as it has UTF-16 units. The answer
// is output's for that text, without copying it out of QuickJS.
func (r *cellRun) longText(length int) engine.Reply {
	limit := r.s.p.limits.maxOutputBytes
	switch {
	case length <= limit:
		r.Fault(forged("a text of %d units reported past the %d-byte output limit", length, limit))
		return engine.TypeError(forgedMessageText)
	case r.settled:
		return engine.Undefined()
	}
	return engine.String(fmt.Sprintf(outputLimitText, limit))
}

// offer answers a long text's length before the text itself is copied out of QuickJS: the
// budget's refusal, or nothing, with the budget reserved for the text (its UTF-8 form has at
// least as many bytes as it has UTF-16 units). A refused text then costs no copy: sixteen cells
// whose 48 MiB texts were refused only after the copy took a host 150 MiB past its budget.
func (r *cellRun) offer(length int) engine.Reply {
	if r.settled {
		return engine.Undefined()
	}
	r.s.mu.Lock()
	err := r.c.out.reserveText(length)
	r.s.mu.Unlock()
	if err != nil {
		return engine.String(err.Error())
	}
	return engine.Undefined()
}

// Fault fails the cell for a forged bridge message (engine.Host).
func (r *cellRun) Fault(err error) { r.fail(err.Error()) }

// sourceRefusal is the error text of a cell whose source src cannot run: Codex's import error, a
// syntax error with V8's message and no position as V8 reports it (ADR 60) or, where V8's message
// is not known, one that reads like QuickJS's own, or the transform's internal refusal.
func sourceRefusal(src string, err error) string {
	var imp *jssource.ImportError
	var syn *jssource.SyntaxError
	if errors.As(err, &syn) {
		if m := syn.V8Message(src); m != "" {
			return "SyntaxError: " + m
		}
	}
	if errors.As(err, &imp) || errors.As(err, &syn) {
		return err.Error()
	}
	return "exec source refused: " + err.Error()
}

// compiled answers eval and the function constructors: the printed code to evaluate, or the
// SyntaxError to throw.
func compiled(p jssource.Program, err error) engine.Reply {
	var syn *jssource.SyntaxError
	switch {
	case err == nil:
		return engine.String(p.Code)
	case errors.As(err, &syn):
		return engine.SyntaxError(syn.ThrowMessage())
	default:
		return engine.SyntaxError(err.Error())
	}
}

func (r *cellRun) settle(errText *string) {
	if !r.settled {
		r.settled = true
		r.errText = errText
	}
}

func (r *cellRun) fail(text string) { r.settle(&text) }

// outOfMemory ends the cell if its heap ran full during the turn, whatever the script did with
// the error (it may have caught it), and reports whether it did.
func (r *cellRun) outOfMemory() bool {
	var text string
	switch r.e.HeapRefused() {
	case engine.NotRefused:
		return false
	case engine.RefusedByBudget:
		text = fmt.Sprintf(outOfBudgetTextFormat, r.s.p.budget.Limit(), r.heapLimit)
	default:
		text = fmt.Sprintf(outOfMemoryTextFormat, r.heapLimit)
	}
	r.settled, r.errText = true, &text
	return true
}

// engineFailure ends the cell after a failed turn. A stopped cell needs no text: its terminate
// response is built by the session.
func (r *cellRun) engineFailure(err error) {
	if r.exited {
		return
	}
	err = r.e.Classify(err)
	if r.outOfMemory() {
		return
	}
	if r.c.ctx.Err() != nil || errors.Is(err, engine.ErrInterrupted) {
		r.settle(nil)
		return
	}
	var trap *engine.Trap
	switch {
	case errors.As(err, &trap):
		r.fail(trapText(trap))
	default:
		r.fail(strings.TrimRight(err.Error(), "\n"))
	}
}

// trapText is the error text of a cell whose runtime trapped: a stack overflow, or Codex's text for
// a runtime that ended unexpectedly.
func trapText(t *engine.Trap) string {
	msg := t.Error()
	if strings.Contains(msg, "stack overflow") || strings.Contains(msg, "out of bounds memory access") {
		return stackOverflowText
	}
	return codemode.ErrRuntimeEnded.Error()
}

// notify starts the delivery of one notify() text here, on the loop, in the script's order among
// its tool calls (codemode.StartNotify contains a panicking StartNotify). Undelivered text is
// bounded as unobserved output is: past the bound the script waits for the delegate (notifier.go).
func (r *cellRun) notify(text string) {
	if r.c.ctx.Err() != nil || !r.notes.reserve(len(text)) {
		return
	}
	codemode.StartNotify(r.c.ctx, r.s.delegate, r.req.ToolCallID, r.c.id, text, func(error) {
		r.notes.delivered1(len(text))
	})
}
