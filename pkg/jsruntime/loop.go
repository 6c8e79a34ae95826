package jsruntime

import (
	"container/heap"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// stackOverflowText is the error text of a cell whose JavaScript overflowed QuickJS's native stack
// (deep recursion, deeply nested data). Only that cell fails; its runtime is discarded.
const stackOverflowText = "RangeError: Maximum call stack size exceeded (the JavaScript engine's native stack overflowed; the cell's runtime was discarded)"

// fatalText is the error text of a cell whose runtime broke: stackOverflowText when the message
// shows QuickJS's native stack overflowing into its static data, else Codex's text for a vanished
// runtime.
func fatalText(msg string) string {
	for _, s := range []string{"invalid opcode", "out of bounds memory access", "stack overflow"} {
		if strings.Contains(msg, s) {
			return stackOverflowText
		}
	}
	return codemode.ErrRuntimeEnded.Error()
}

// maxBatch bounds how many tool results one deliver crossing carries.
const maxBatch = 1024

// cellRun is the event loop of one cell. It runs on the goroutine that owns the cell's engine;
// every qjs call of the cell happens there. Other goroutines (tool calls, timers) only send it
// values over channels.
type cellRun struct {
	s   *session
	c   *cell
	req codemode.ExecuteRequest
	e   *engine

	schemas []*jsonschema.Schema
	stored  map[string]string // snapshot at start plus this cell's writes
	writes  map[string]string

	results     chan toolResult
	ready       []toolResult
	calls       sync.WaitGroup
	callsCtx    context.Context
	callsCancel context.CancelFunc
	notes       notifier

	timers     timerHeap
	timerSeq   uint64
	timerClock *time.Timer

	settled bool
	errText *string

	stats loopStats
}

// loopStats counts a cell's crossings into JavaScript per kind.
type loopStats struct {
	turns, takes, deliveries, timerFires int // takes: turns that carried queued calls or timers
}

// observeLoopStats, when set (by tests), receives each cell's stats when its loop ends. It exists
// so tests can check that batching holds: many tool calls, few crossings.
var observeLoopStats func(loopStats)

// runCell runs a cell to its end and hands the outcome to the session.
func (s *session) runCell(c *cell, req codemode.ExecuteRequest, snapshot map[string]string) {
	r := &cellRun{
		s:       s,
		c:       c,
		req:     req,
		stored:  snapshot,
		writes:  map[string]string{},
		results: make(chan toolResult, 256),
	}
	r.callsCtx, r.callsCancel = context.WithCancel(c.ctx)
	r.notes.send = r.sendNotification
	r.schemas = make([]*jsonschema.Schema, len(req.EnabledTools))
	for i, def := range req.EnabledTools {
		r.schemas[i] = s.p.schemas.get(def.InputSchema)
	}

	r.runContained()
	if observeLoopStats != nil {
		observeLoopStats(r.stats)
	}

	// Completion: cancel the tool calls nobody awaits any more and wait for them to return, then
	// deliver the queued notifications (a terminate cancels those too), then publish.
	r.callsCancel()
	r.calls.Wait()
	r.notes.wait()
	s.finish(c, r.errText, r.writes)
	// The runtime is released after the response: nobody waits for it. A stopped or trapped
	// runtime is only dropped (see engine.dispose).
	if r.e != nil {
		// Let the observer the response just woke run first: disposing takes about 100 µs.
		runtime.Gosched()
		r.e.dispose()
	}
}

// runContained runs the cell, turning a panic that escaped the engine's guards into the cell's
// failure: nothing a script does may take down the process or another cell.
func (r *cellRun) runContained() {
	defer func() {
		if p := recover(); p != nil {
			if r.e != nil {
				r.e.dead = true
			}
			r.fail(codemode.ErrRuntimeEnded.Error())
		}
	}()
	r.run()
}

func (r *cellRun) run() {
	if r.c.ctx.Err() != nil {
		return
	}
	e, err := r.s.p.pool.get(r.s.heapLimit())
	if err != nil {
		r.fail(fmt.Sprintf("exec runtime unavailable: %v", err))
		return
	}
	r.e = e
	stop := context.AfterFunc(r.c.ctx, e.cancel)
	defer func() {
		stop()
		if r.timerClock != nil {
			r.timerClock.Stop()
		}
	}()
	e.host = r.host

	src, spec, ok := prepareSource(r.req.Source)
	if !ok {
		r.fail(unsupportedImportError(spec))
		return
	}
	if err := e.loadModule(src + "\n"); err != nil {
		if spec, ok := loaderErrorSpecifier(err.Error()); ok {
			r.fail(unsupportedImportError(spec))
			return
		}
		r.engineFailure(err)
		return
	}
	if err := r.turn(e.begin, r.toolSpec()); err != nil {
		r.engineFailure(err)
		return
	}
	r.loop()
}

// loop turns the event loop until the module's evaluation settles or the cell is stopped. Each
// turn delivers ready results or fires a due timer, runs the jobs and takes the queued calls.
func (r *cellRun) loop() {
	for !r.settled && r.c.ctx.Err() == nil {
		var err error
		if len(r.ready) > 0 {
			err = r.deliverReady()
		} else if due, ok := r.dueTimer(); ok {
			r.stats.timerFires++
			err = r.turn(r.e.deliver, "[["+strconv.FormatInt(due, 10)+",2]]")
		} else {
			select {
			case res := <-r.results:
				r.ready = append(r.ready, res)
			case <-r.timerC():
			case <-r.c.ctx.Done():
			}
			continue
		}
		if err != nil {
			r.engineFailure(err)
			return
		}
	}
}

// turn runs one turn in the engine and dispatches what JavaScript queued.
func (r *cellRun) turn(entry uint64, input string) error {
	r.stats.turns++
	queued, err := r.e.turn(entry, input)
	if err != nil || queued == "" {
		return err
	}
	r.stats.takes++
	// One record a line: "0 id toolIndex[ inputJSON]" or "1 id delayMs" (see prelude.js).
	for len(queued) > 0 {
		var record string
		record, queued, _ = strings.Cut(queued, "\n")
		fields := strings.SplitN(record, " ", 4)
		if len(fields) < 3 {
			continue
		}
		switch fields[0] {
		case "0":
			r.startToolCall(fields[1:])
		case "1":
			r.addTimer(fields[1], fields[2])
		}
	}
	return nil
}

// deliverReady settles the ready tool promises, plus any other results already waiting, in one
// turn.
func (r *cellRun) deliverReady() error {
	// Let tool goroutines that are about to finish hand in their results first, so a burst of
	// results settles in one crossing rather than one each.
	runtime.Gosched()
	for len(r.ready) < maxBatch {
		select {
		case res := <-r.results:
			r.ready = append(r.ready, res)
			continue
		default:
		}
		break
	}
	r.stats.deliveries++
	batch := encodeBatch(r.ready)
	r.ready = r.ready[:0]
	return r.turn(r.e.deliver, batch)
}

func (r *cellRun) toolSpec() string {
	spec := make([][2]string, len(r.req.EnabledTools))
	for i, def := range r.req.EnabledTools {
		spec[i] = [2]string{normalizeIdentifier(def.Name), def.Description}
	}
	b, _ := json.Marshal(spec)
	return string(b)
}

// startToolCall dispatches a queued call: id, toolIndex and, when given, the input's JSON.
func (r *cellRun) startToolCall(fields []string) {
	id, _ := strconv.ParseInt(fields[0], 10, 64)
	index, err := strconv.Atoi(fields[1])
	if err != nil || index < 0 || index >= len(r.req.EnabledTools) {
		r.ready = append(r.ready, toolResult{id: id, errMsg: "unknown tool"})
		return
	}
	def := r.req.EnabledTools[index]
	var input json.RawMessage
	if len(fields) > 2 {
		input = json.RawMessage(fields[2])
	}
	if def.ToolName.Name == codemode.PublicToolName && def.ToolName.IsDefaultNamespace() {
		r.ready = append(r.ready, toolResult{id: id, errMsg: execCannotInvokeItself})
		return
	}
	if msg := validateInput(def, r.schemas[index], input); msg != "" {
		r.ready = append(r.ready, toolResult{id: id, errMsg: msg})
		return
	}
	call := codemode.NestedToolCall{
		CellID:            r.c.id,
		RuntimeToolCallID: "tool-" + strconv.FormatInt(id, 10),
		ToolName:          def.ToolName,
		ToolKind:          def.Kind,
		Input:             input,
	}
	r.calls.Add(1)
	go r.invokeTool(id, call)
}

// invokeTool runs on its own goroutine: it calls the delegate and hands the result to the loop.
func (r *cellRun) invokeTool(id int64, call codemode.NestedToolCall) {
	defer r.calls.Done()
	res := toolResult{id: id}
	func() {
		defer func() {
			if p := recover(); p != nil {
				res = toolResult{id: id, errMsg: fmt.Sprintf("tool call panicked: %v", p)}
			}
		}()
		out, err := r.s.delegate.InvokeTool(r.callsCtx, call)
		switch {
		case err != nil:
			res.errMsg = err.Error()
		case len(out) == 0:
			res.ok, res.value = true, json.RawMessage("null")
		default:
			if reason := checkToolResult(out, r.s.p.maxToolResultBytes); reason != "" {
				res.errMsg = reason
			} else {
				res.ok, res.value = true, out
			}
		}
	}()
	select {
	case r.results <- res:
	case <-r.callsCtx.Done():
	}
}

// host serves the prelude's synchronous calls into Go.
func (r *cellRun) host(op byte, payload string) (string, bool) {
	switch op {
	case 'o': // out: JSON content items
		if !r.settled {
			r.s.appendOutput(r.c, decodeItems(payload))
		}
	case 'n': // notify: the text
		if !r.settled {
			r.notes.push(payload)
		}
	case 'y': // yield
		r.s.yieldControl(r.c)
	case 's': // store: the value's JSON, a newline, the key
		if v, k, ok := strings.Cut(payload, "\n"); ok {
			r.stored[k] = v
			r.writes[k] = v
		}
	case 'r': // rewrite: source built at run time
		return rewriteGeneratedImports(payload), true
	case 'l': // load: the key
		v, ok := r.stored[payload]
		return v, ok
	case 'd': // done
		r.settle(nil)
	case 'f': // fail: the error text
		text := payload
		if isFatalEngineError(text) {
			r.e.dead = true
			text = fatalText(text)
		}
		r.settle(&text)
	}
	return "", false
}

func (r *cellRun) settle(errText *string) {
	if !r.settled {
		r.settled = true
		r.errText = errText
	}
}

func (r *cellRun) fail(text string) { r.settle(&text) }

// engineFailure ends the cell after a failed crossing. A stopped cell needs no text: its
// terminate response is built by the session.
func (r *cellRun) engineFailure(err error) {
	if r.c.ctx.Err() != nil {
		r.settle(nil)
		return
	}
	msg := err.Error()
	switch {
	case isFatalEngineError(msg) || errors.Is(err, errEngineDead):
		r.fail(fatalText(msg))
	default:
		r.fail(strings.TrimRight(msg, "\n"))
	}
}

// sendNotification delivers one notify() text; it runs on the notifier's goroutine.
func (r *cellRun) sendNotification(text string) {
	if r.c.ctx.Err() != nil {
		return
	}
	defer func() { _ = recover() }()
	_ = r.s.delegate.Notify(r.c.ctx, r.req.ToolCallID, r.c.id, text)
}

// wireItem is the JSON shape the prelude emits for content items.
type wireItem struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	ImageURL string `json:"image_url"`
	Detail   string `json:"detail"`
	AudioURL string `json:"audio_url"`
}

func decodeItems(s string) []codemode.ContentItem {
	var wire []wireItem
	if err := json.Unmarshal([]byte(s), &wire); err != nil {
		return nil
	}
	items := make([]codemode.ContentItem, 0, len(wire))
	for _, w := range wire {
		switch w.Type {
		case "input_text":
			items = append(items, codemode.InputText{Text: w.Text})
		case "input_image":
			items = append(items, codemode.InputImage{ImageURL: w.ImageURL, Detail: codemode.ImageDetail(w.Detail)})
		case "input_audio":
			items = append(items, codemode.InputAudio{AudioURL: w.AudioURL})
		}
	}
	return items
}

// notifier delivers a cell's notifications in order on one goroutine, started on demand.
type notifier struct {
	send    func(string)
	mu      sync.Mutex
	queue   []string
	running bool
	wg      sync.WaitGroup
}

func (n *notifier) push(text string) {
	n.wg.Add(1)
	n.mu.Lock()
	n.queue = append(n.queue, text)
	start := !n.running
	n.running = true
	n.mu.Unlock()
	if start {
		go n.drain()
	}
}

func (n *notifier) drain() {
	for {
		n.mu.Lock()
		if len(n.queue) == 0 {
			n.running = false
			n.mu.Unlock()
			return
		}
		text := n.queue[0]
		n.queue = n.queue[1:]
		n.mu.Unlock()
		n.send(text)
		n.wg.Done()
	}
}

func (n *notifier) wait() { n.wg.Wait() }

// Timers: JavaScript keeps the callbacks, Go keeps the clock. One time.Timer is armed for the
// earliest due timer; equal due times fire in creation order.

type pendingTimer struct {
	due time.Time
	seq uint64
	id  int64
}

type timerHeap []pendingTimer

func (h timerHeap) Len() int { return len(h) }
func (h timerHeap) Less(i, j int) bool {
	if h[i].due.Equal(h[j].due) {
		return h[i].seq < h[j].seq
	}
	return h[i].due.Before(h[j].due)
}
func (h timerHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *timerHeap) Push(x any)   { *h = append(*h, x.(pendingTimer)) }
func (h *timerHeap) Pop() any {
	old := *h
	t := old[len(old)-1]
	*h = old[:len(old)-1]
	return t
}

// maxTimerDelay caps delays so that due times stay representable.
const maxTimerDelay = 100 * 365 * 24 * time.Hour

// addTimer schedules a queued timer: its id and delay in milliseconds.
func (r *cellRun) addTimer(idText, delayText string) {
	id, _ := strconv.ParseInt(idText, 10, 64)
	ms, _ := strconv.ParseFloat(delayText, 64)
	delay := maxTimerDelay
	if ms < float64(maxTimerDelay/time.Millisecond) {
		delay = time.Duration(ms) * time.Millisecond
	}
	r.timerSeq++
	heap.Push(&r.timers, pendingTimer{due: time.Now().Add(delay), seq: r.timerSeq, id: id})
}

// dueTimer pops the earliest timer if it is due.
func (r *cellRun) dueTimer() (int64, bool) {
	if len(r.timers) == 0 || time.Now().Before(r.timers[0].due) {
		return 0, false
	}
	return heap.Pop(&r.timers).(pendingTimer).id, true
}

// timerC arms the clock for the earliest timer; nil (never ready) without timers.
func (r *cellRun) timerC() <-chan time.Time {
	if len(r.timers) == 0 {
		return nil
	}
	wait := time.Until(r.timers[0].due)
	if r.timerClock == nil {
		r.timerClock = time.NewTimer(wait)
	} else {
		r.timerClock.Reset(wait)
	}
	return r.timerClock.C
}
