package jsruntime

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// Bounds on data crossing into JavaScript. QuickJS parses JSON recursively on a 64 KiB C stack, so
// a deeply nested tool result could corrupt the runtime; it is rejected before it gets there.
const (
	// DefaultMaxToolResultBytes is the largest tool result delivered to a cell by default.
	DefaultMaxToolResultBytes = 64 << 20
	// MaxToolResultDepth is the deepest nesting of arrays and objects in a delivered tool result.
	MaxToolResultDepth = 256
)

// execCannotInvokeItself is Codex's error for a nested call of the exec tool.
const execCannotInvokeItself = "exec cannot invoke itself"

// toolResult is the outcome of one nested tool call, ready to settle its JS promise.
type toolResult struct {
	id     int64
	value  json.RawMessage // set when ok
	errMsg string          // the rejection string otherwise
	ok     bool
	// longBytes counts the bytes of value's long string tokens (longstrings.go).
	longBytes int
	// fromDelegate is set on results of calls that occupied a slot.
	fromDelegate bool
}

// checkToolResult applies the size and depth bounds; it returns the reason a result is refused,
// and the bytes of its long string tokens.
func checkToolResult(v json.RawMessage, maxBytes int) (refusal string, longBytes int) {
	if len(v) > maxBytes {
		return fmt.Sprintf("tool result of %d bytes exceeds the limit of %d bytes", len(v), maxBytes), 0
	}
	if longBytes, ok := scanToolResult(v); ok {
		return "", longBytes
	}
	return refusalOf(v), 0
}

// refusalOf says why a result scanJSON refused is refused: too deep anywhere, or else not JSON.
func refusalOf(v json.RawMessage) string {
	depth, maxDepth := 0, 0
	inString, escaped := false, false
	for _, b := range v {
		if inString {
			switch {
			case escaped:
				escaped = false
			case b == '\\':
				escaped = true
			case b == '"':
				inString = false
			}
			continue
		}
		switch b {
		case '"':
			inString = true
		case '[', '{':
			depth++
			if depth > maxDepth {
				maxDepth = depth
			}
			if maxDepth > MaxToolResultDepth {
				return fmt.Sprintf("tool result is nested deeper than %d levels", MaxToolResultDepth)
			}
		case ']', '}':
			depth--
		}
	}
	if !json.Valid(v) {
		return "tool result is not valid JSON"
	}
	return ""
}

// maxConcurrentToolCalls bounds the delegate calls one cell has running at once; further calls
// wait in a queue, in order. A goroutine per call would otherwise let one cell start hundreds of
// thousands of them.
const maxConcurrentToolCalls = 1024

// toolCalls is a cell's nested tool calls: those queued for a slot, those started through the
// delegate, and the results ready to be delivered. Everything but inbox belongs to the loop
// goroutine.
type toolCalls struct {
	r       *cellRun
	inbox   resultInbox
	ready   []toolResult
	waiting []pendingCall // queued for a slot, oldest first
	head    int           // waiting[head:] are still queued
	running int
	lastID  int64
	// turnRunner is the delegate, when its done callers may run the answer's turn
	// (cellRun.runInline).
	turnRunner codemode.TurnRunner
	pending    int // started by JavaScript and not yet delivered
	wg         sync.WaitGroup
	ctx        context.Context
	cancel     context.CancelFunc
	// mark is the JSON token that stands for a long string in a tool input's skeleton, and held
	// the inputs Go checked for records still to come, by call id (toolinput.go).
	mark []byte
	held map[int64]json.RawMessage
}

// pendingCall is a call waiting for a slot.
type pendingCall struct {
	id   int64
	call codemode.NestedToolCall
}

func (t *toolCalls) init(r *cellRun, parent context.Context) {
	t.r = r
	t.inbox = newResultInbox()
	t.turnRunner, _ = r.s.delegate.(codemode.TurnRunner)
	t.ctx, t.cancel = context.WithCancel(parent)
}

// start dispatches a record queued by a tools.<name>(input) call: "id toolIndex[ inputJSON]".
// The prelude numbers calls from 1 without gaps; anything else is a forged record.
func (t *toolCalls) start(record string) error {
	idText, rest, _ := strings.Cut(record, " ")
	indexText, input, hasInput := strings.Cut(rest, " ")
	id, err := strconv.ParseInt(idText, 10, 64)
	if err != nil || id != t.lastID+1 {
		return forged("tool call id %q out of sequence", idText)
	}
	index, err := strconv.Atoi(indexText)
	if err != nil || index < 0 || index >= len(t.r.req.EnabledTools) {
		return forged("tool call of unknown tool %q", indexText)
	}
	if t.pending >= t.r.s.p.limits.maxPendingToolCalls {
		return forged("more than %d pending tool calls", t.r.s.p.limits.maxPendingToolCalls)
	}
	t.lastID = id
	t.pending++
	t.r.c.calls.started(id)
	var raw json.RawMessage
	switch {
	case hasInput && input == "@":
		held, ok := t.takeHeld(id)
		if !ok {
			return forged("tool call %d of an input never sent", id)
		}
		raw = held
	case hasInput:
		if !json.Valid([]byte(input)) {
			return forged("tool call input is not JSON")
		}
		raw = json.RawMessage(replaceLoneSurrogates(input))
	}
	t.dispatch(id, index, raw)
	return nil
}

// replaceLoneSurrogates returns the JSON text input with every escaped lone surrogate (\ud800 with
// no low surrogate after it, or a low one alone) replaced by \ufffd. JSON.stringify escapes lone
// surrogates rather than failing, Go's decoder reads them as U+FFFD, but stricter decoders (Rust's
// serde_json, which Codex uses) refuse the whole input; the delegate gets what Go would read.
// Backslashes occur only inside strings of valid JSON, so every one starts an escape.
func replaceLoneSurrogates(input string) string {
	var out strings.Builder
	done := 0 // input[:done] is in out; it stays 0 until something is replaced
	for i := 0; i < len(input); i++ {
		switch {
		case input[i] != '\\':
			continue
		case input[i+1] != 'u':
			i++ // a two-character escape: skip the escaped character, which may be a backslash
			continue
		}
		r := hexRune(input[i+2 : i+6])
		switch {
		case !utf16.IsSurrogate(r):
			i += 5
		case r < 0xDC00 && lowSurrogateEscape(input[i+6:]):
			i += 11 // a pair
		default:
			out.WriteString(input[done:i])
			out.WriteString(`\ufffd`)
			done = i + 6
			i += 5
		}
	}
	if done == 0 {
		return input
	}
	out.WriteString(input[done:])
	return out.String()
}

// lowSurrogateEscape reports whether s starts with the escape of a low surrogate.
func lowSurrogateEscape(s string) bool {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return false
	}
	r := hexRune(s[2:6])
	return r >= 0xDC00 && r <= 0xDFFF
}

// hexRune reads four hexadecimal digits (valid JSON has them after \u).
func hexRune(h string) rune {
	n, _ := strconv.ParseUint(h, 16, 32)
	return rune(n)
}

// dispatch checks a call and runs it, or queues it when the cell has no free slot.
func (t *toolCalls) dispatch(id int64, index int, input json.RawMessage) {
	def := t.r.req.EnabledTools[index]
	if def.ToolName.Name == codemode.PublicToolName && def.ToolName.IsDefaultNamespace() {
		t.ready = append(t.ready, toolResult{id: id, errMsg: execCannotInvokeItself})
		return
	}
	call := codemode.NestedToolCall{
		CellID:            t.r.c.id,
		RuntimeToolCallID: "tool-" + strconv.FormatInt(id, 10),
		ToolName:          def.ToolName,
		ToolKind:          def.Kind,
		Input:             input,
	}
	if t.running >= maxConcurrentToolCalls {
		t.waiting = append(t.waiting, pendingCall{id: id, call: call})
		return
	}
	t.launch(id, call)
}

// launch starts a call in a free slot through the delegate (codemode.StartToolCall contains a
// panicking StartToolCall). Its outcome is handed to the loop by the goroutine that calls done.
func (t *toolCalls) launch(id int64, call codemode.NestedToolCall) {
	t.running++
	t.wg.Add(1)
	codemode.StartToolCall(t.ctx, t.r.s.delegate, call, func(out json.RawMessage, err error) {
		if len(out) > checkInlineBytes {
			go t.hand(t.outcome(id, out, err)) // not on a transport's reader
			return
		}
		res := t.outcome(id, out, err)
		if t.turnRunner != nil {
			if relay, ok := t.turnRunner.RunTurnHere(call); ok && t.r.runInline(res, relay) {
				t.wg.Done()
				return
			}
		}
		t.hand(res)
	})
}

// checkInlineBytes is the largest result whose bounds done checks on the goroutine that calls
// it; a larger one is checked on a goroutine of its own, so that a transport's reader does not
// spend milliseconds validating a big result while other messages wait.
const checkInlineBytes = 64 << 10

// hand gives a call's result to the loop without waiting: done may run on the loop itself (the
// answer came before StartToolCall returned) or on a transport's reader, which must not wait for a
// loop busy in a turn (resultInbox).
func (t *toolCalls) hand(res toolResult) {
	t.inbox.put(res)
	t.wg.Done()
}

// outcome turns what the delegate answered into the call's result: an error rejects the promise
// with its text, no result resolves it with null, and a result must pass the size and depth
// bounds.
func (t *toolCalls) outcome(id int64, out json.RawMessage, err error) toolResult {
	res := toolResult{id: id, fromDelegate: true}
	switch {
	case err != nil:
		res.errMsg = err.Error()
	case len(out) == 0:
		res.ok, res.value = true, json.RawMessage("null")
	default:
		if reason, long := checkToolResult(out, t.r.s.p.maxToolResultBytes); reason != "" {
			res.errMsg = reason
		} else {
			res.ok, res.value, res.longBytes = true, out, long
		}
	}
	return res
}

// hasReady reports whether results wait to be delivered.
func (t *toolCalls) hasReady() bool { return len(t.ready) > 0 }

// collect moves the results that already arrived into ready and fills the freed slots from the
// queue.
func (t *toolCalls) collect() {
	start := len(t.ready)
	t.ready = t.inbox.takeAll(t.ready)
	for _, res := range t.ready[start:] {
		t.freeSlot(res)
	}
}

// accept records a result the loop received, freeing its slot for the next queued call.
func (t *toolCalls) accept(res toolResult) {
	t.ready = append(t.ready, res)
	t.freeSlot(res)
}

// freeSlot frees the slot of a call whose result arrived for the next queued call.
func (t *toolCalls) freeSlot(res toolResult) {
	if res.fromDelegate {
		t.running--
		t.startWaiting()
	}
}

// takeBatch removes up to n ready results and renders them for the prelude's deliver.
func (t *toolCalls) takeBatch(n int) (batch string, longs []string) {
	k := min(n, len(t.ready))
	batch, longs = encodeBatch(t.ready[:k])
	t.r.c.calls.delivered(t.ready[:k])
	t.pending -= k
	t.ready = append(t.ready[:0], t.ready[k:]...)
	return batch, longs
}

// singleResultMax is the largest result deliverOne takes; a larger one goes in a batch, where
// the engine parses it (engine.jsonArgument) or its long strings are made from Go.
const singleResultMax = 4 << 10

// takeOne removes the one ready result when it is a small successful one, which deliverOne
// settles without a batch (ADR 62).
func (t *toolCalls) takeOne() (toolResult, bool) {
	if len(t.ready) != 1 {
		return toolResult{}, false
	}
	r := t.ready[0]
	if !r.ok || len(r.value) >= singleResultMax || r.id > math.MaxInt32 {
		return toolResult{}, false
	}
	t.r.c.calls.delivered(t.ready[:1])
	t.pending--
	t.ready = t.ready[:0]
	return r, true
}

// startWaiting launches queued calls while slots are free.
func (t *toolCalls) startWaiting() {
	for t.running < maxConcurrentToolCalls && t.head < len(t.waiting) {
		p := t.waiting[t.head]
		t.waiting[t.head] = pendingCall{}
		t.head++
		t.launch(p.id, p.call)
	}
	if t.head == len(t.waiting) {
		t.waiting, t.head = t.waiting[:0], 0
	}
}

// cancelAndWait cancels the calls nobody awaits any more and waits for their goroutines.
func (t *toolCalls) cancelAndWait() {
	t.cancel()
	t.wg.Wait()
}

// encodeBatch renders results as the JSON the prelude's deliver expects, with the long strings
// of results that have them split off (longstrings.go): [id, 3, skeleton, places].
func encodeBatch(results []toolResult) (string, []string) {
	var longs []string
	var b strings.Builder
	b.WriteByte('[')
	for i, r := range results {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('[')
		b.WriteString(strconv.FormatInt(r.id, 10))
		if skeleton, places, values, ok := splitResult(r, len(longs)); ok {
			b.WriteString(",3,")
			b.Write(skeleton)
			b.WriteByte(',')
			b.WriteString(places)
			longs = append(longs, values...)
		} else if r.ok {
			b.WriteString(",1,")
			b.Write(r.value)
		} else {
			msg, _ := json.Marshal(r.errMsg)
			b.WriteString(",0,")
			b.Write(msg)
		}
		b.WriteByte(']')
	}
	b.WriteByte(']')
	return b.String(), longs
}

// splitResult splits the long strings off an ok result when they are at least half of it (below
// that, finding their paths costs about what making them from Go saves).
func splitResult(r toolResult, first int) (skeleton []byte, places string, values []string, ok bool) {
	if !r.ok || 2*r.longBytes < len(r.value) {
		return nil, "", nil, false
	}
	return splitLongStrings(r.value, first, maxLongStrings-first)
}
