package jsruntime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/jsruntime/internal/engine"
)

// The cell controls everything inside its wasm instance, the prelude included, so every bridge
// message and every queued record is checked in Go. These tests feed them malformed input: each
// must fail with forgedMessageText and its reason, and a cell that sends one fails alone.

// forgedReason returns the reason of a forged-message error, or fails the test.
func forgedReason(t *testing.T, what string, err error) string {
	t.Helper()
	var f *engine.ForgedError
	if !errors.As(err, &f) || err.Error() != forgedMessageText+": "+f.Reason {
		t.Fatalf("%s: %v is not a forged-message error", what, err)
	}
	return f.Reason
}

func TestDecodeHostMessageRejectsMalformedPayloads(t *testing.T) {
	for _, tc := range []struct {
		msg    string
		reason string // exact, or a prefix when it ends with "…"
	}{
		{"", "empty message"},
		{"w", "unknown operation 'w'"},
		{"\x00", `unknown operation '\x00'`},
		// A time zone at an instant (locale.js).
		{"z", `expected an instant and a time zone, got ""`},
		{"z0", `expected an instant and a time zone, got "0"`},
		{"z0 ", `expected an instant and a time zone, got "0 "`},
		{"z1.5 UTC", `expected an instant and a time zone, got "1.5 UTC"`},
		{"z01 UTC", `expected an instant and a time zone, got "01 UTC"`},
		{"zx America/New_York", `expected an instant and a time zone, got "x America/New_York"`},
		{"T\"a\"", "unknown operation 'T'"},
		// Operations without payload.
		{"y1", "operation 'y' takes no payload"},
		{"d ", "operation 'd' takes no payload"},
		// A length: a text past the output limit.
		{"o", `expected a length, got ""`},
		{"o0", `expected a length, got "0"`},
		{"o-5", `expected a length, got "-5"`},
		{"o+5", `expected a length, got "+5"`},
		{"o05", `expected a length, got "05"`},
		{"o5.0", `expected a length, got "5.0"`},
		{"o99999999999999999999999", `expected a length, got "99999999999999999999"…`},
		// One JSON string: text, fail, load, eval (and notify, audio below).
		{"t", "expected a JSON string"},
		{"t\"", "expected a JSON string"},
		{"t5", "expected a JSON string"},
		{"t[\"a\"]", "expected a JSON string"},
		{"t\"a", "invalid JSON string: …"},
		{"t\"a\"x", "invalid JSON string: …"},
		{"t\"a\" \"b\"", "invalid JSON string: …"},
		{"t\"\\x\"", "invalid JSON string: …"},
		{"t\"a\nb\"", "invalid JSON string: …"},
		{"x{}", "expected a JSON string"},
		{"lnull", "expected a JSON string"},
		{"e\"", "expected a JSON string"},
		{"e 1", "expected a JSON string"},
		// notify: not blank, by JavaScript's definition of white space.
		{"n\"\"", "notify with blank text"},
		{"n\" \\t\\n\\u00a0\\ufeff\\u2028\\u3000\"", "notify with blank text"},
		{"n5", "expected a JSON string"},
		// audio and image: data: URLs only, image details from the list.
		{"a\"http://x\"", "audio URL is not a data: URL"},
		{"a\"data\"", "audio URL is not a data: URL"},
		{"i\"data:x\"", "expected a JSON array"},
		{"i[\"data:x\"]", "expected 2 elements, got 1"},
		{"i[\"data:x\",\"high\",1]", "expected 2 elements, got 3"},
		{"i[\"data:x\",\"huge\"]", "image detail \"huge\""},
		{"i[\"data:x\",\"HIGH\"]", "image detail \"HIGH\""},
		{"i[\"https://x\",\"high\"]", "image URL is not a data: URL"},
		{"i[\"data:x\",1]", "expected a JSON string"},
		{"i[1,\"high\"]", "expected a JSON string"},
		{"i[\"data:x\",", "invalid JSON array: …"},
		// store: [key string, any JSON value].
		{"s", "expected a JSON array"},
		{"s{}", "expected a JSON array"},
		{"s[\"k\"]", "expected 2 elements, got 1"},
		{"s[\"k\",1,2]", "expected 2 elements, got 3"},
		{"s[1,2]", "expected a JSON string"},
		{"s[\"k\",]", "invalid JSON array: …"},
		{"s[\"k\",undefined]", "invalid JSON array: …"},
		{"s[\"k\",1]x", "invalid JSON array: …"},
		// function constructors: [kind 0-3, [string...], body string].
		{"f[4,[],\"\"]", "function kind 4"},
		{"f[-1,[],\"\"]", "function kind -1"},
		{"f[\"0\",[],\"\"]", "function kind \"0\""},
		{"f[1.5,[],\"\"]", "function kind 1.5"},
		{"f[0,\"a\",\"\"]", "function parameters are not a list of strings"},
		{"f[0,[1],\"\"]", "function parameters are not a list of strings"},
		{"f[0,null,\"\"]", "function parameters are not a list of strings"},
		{"f[0,[],1]", "expected a JSON string"},
		{"f[0,[]]", "expected 3 elements, got 2"},
	} {
		_, err := decodeHostMessage(tc.msg)
		reason := forgedReason(t, tc.msg, err)
		if prefix, ok := strings.CutSuffix(tc.reason, "…"); ok && strings.HasPrefix(reason, prefix) || reason == tc.reason {
			continue
		}
		t.Errorf("%q: reason %q, want %q", tc.msg, reason, tc.reason)
	}
}

func TestDecodeHostMessageAcceptsWhatThePreludeSends(t *testing.T) {
	for msg, want := range map[string]hostMessage{
		"y":                                   {op: opYield},
		"d":                                   {op: opDone},
		`t"a\u0000b"`:                         {op: opText, text: "a\x00b"},
		`x"boom"`:                             {op: opFail, text: "boom"},
		`l"k"`:                                {op: opLoad, text: "k"},
		`e"1+1"`:                              {op: opEval, text: "1+1"},
		`n"\ud800"`:                           {op: opNotify, text: "\uFFFD"},
		`a"DATA:audio/wav;base64,AA"`:         {op: opAudio, text: "DATA:audio/wav;base64,AA"},
		`i["data:image/png;base64,AA","low"]`: {op: opImage, text: "data:image/png;base64,AA", detail: "low"},
		`s["k",{"a":[1,null]}]`:               {op: opStore, key: "k", value: json.RawMessage(`{"a":[1,null]}`)},
		`f[3,["a","b"],"yield a"]`:            {op: opFunction, kind: 3, params: []string{"a", "b"}, text: "yield a"},
		"z-86400000 America/New_York":         {op: opZone, instant: -86400000, text: "America/New_York"},
	} {
		got, err := decodeHostMessage(msg)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%q: %+v %v, want %+v", msg, got, err, want)
		}
	}
}

// newBareCellRun is a cell's loop without an engine, for feeding dispatch queued records.
func newBareCellRun(t *testing.T, tools ...codemode.ToolDefinition) *cellRun {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	d := newRecorder(func(context.Context, codemode.NestedToolCall) (json.RawMessage, error) {
		return json.RawMessage("1"), nil
	})
	s := &session{p: sharedProvider(), delegate: d}
	r := &cellRun{s: s, c: &cell{id: "1", ctx: ctx, cancel: cancel}, req: codemode.ExecuteRequest{EnabledTools: tools}}
	r.tools.init(r, ctx)
	r.timers.limit = s.p.limits.maxPendingTimers
	t.Cleanup(func() {
		r.tools.cancelAndWait()
		r.timers.stop()
	})
	return r
}

// TestDispatchRejectsForgedRecords feeds queued records the prelude would never send. A record
// is checked before anything of it starts, so the valid records before a forged one in the same
// batch still run.
func TestDispatchRejectsForgedRecords(t *testing.T) {
	for _, tc := range []struct {
		batch, reason string
	}{
		{"", ""},
		{"q 1", `unknown queued record "q 1"`},
		{"c1 0", `unknown queued record "c1 0"`},
		{"\n", `unknown queued record ""`},
		{"c 2 0", `tool call id "2" out of sequence`},
		{"c 0 0", `tool call id "0" out of sequence`},
		{"c x 0", `tool call id "x" out of sequence`},
		{"c 1 0\nc 1 0", `tool call id "1" out of sequence`},
		{"c 1 0\nc 3 0", `tool call id "3" out of sequence`},
		{"c 1 1", `tool call of unknown tool "1"`},
		{"c 1 -1", `tool call of unknown tool "-1"`},
		{"c 1", `tool call of unknown tool ""`},
		{"c 1 0 {", "tool call input is not JSON"},
		{"c 1 0 1 2", "tool call input is not JSON"},
		{"c 1 0 ", "tool call input is not JSON"},
		{"t 2 0", `timer id "2" out of sequence`},
		{"t 1 -1", `timer delay "-1"`},
		{"t 1 x", `timer delay "x"`},
		{"t 1", `timer delay ""`},
		{"t 1 0\nt 1 0", `timer id "1" out of sequence`},
		{"k 1", "cleared timer 1 is not pending"},
		{"t 1 0\nk 1\nk 1", "cleared timer 1 is not pending"},
		{"k one", `cleared timer id "one"`},
		{"c 1 0 {\"a\":1}\nt 1 5\nk 1\nc 2 0", ""},
	} {
		r := newBareCellRun(t, testTool("echo"))
		err := r.dispatch(tc.batch)
		if tc.reason == "" {
			if err != nil {
				t.Errorf("%q: %v", tc.batch, err)
			}
			continue
		}
		if reason := forgedReason(t, tc.batch, err); reason != tc.reason {
			t.Errorf("%q: reason %q, want %q", tc.batch, reason, tc.reason)
		}
	}
}

// TestDispatchRejectsToolCallsPastTheLimit checks Go's side of MaxPendingToolCalls.
func TestDispatchRejectsToolCallsPastTheLimit(t *testing.T) {
	r := newBareCellRun(t, testTool("echo"))
	limit := r.s.p.limits.maxPendingToolCalls
	r.tools.pending = limit - 1
	r.tools.lastID = 41
	if err := r.dispatch("c 42 0"); err != nil {
		t.Fatal(err)
	}
	if reason := forgedReason(t, "past the limit", r.dispatch("c 43 0")); reason != fmt.Sprintf("more than %d pending tool calls", limit) {
		t.Fatalf("reason %q", reason)
	}
}

// forgingPrelude is the real prelude, after whose installation the bridge is within reach of cell
// code as the global forge: the cell of the threat model, which controls everything inside its
// wasm instance. The global is part of the runtime's image, so every reset keeps it.
func forgingPrelude() engine.Prelude {
	p := thePrelude()
	p.Source = composePrelude(localeSource, `(function (bridge, operations) {
  const entries = (`+preludeSource+`)(bridge, operations);
  globalThis.forge = bridge;
  return entries;
})`)
	return p
}

// forgingProvider returns a provider of one runtime that installed forgingPrelude.
func forgingProvider(t *testing.T) *Provider {
	t.Helper()
	p, err := newProvider(Options{PoolSize: -1}, forgingPrelude())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p
}

// waitIdle waits until p's pool holds an idle runtime: a cell's runtime goes back to the pool
// just after its result is delivered, and a cell started before that gets another runtime.
func waitIdle(t testing.TB, p *Provider) {
	t.Helper()
	for deadline := time.Now().Add(guardTimeout); p.pool.Idle() == 0; time.Sleep(100 * time.Microsecond) {
		if time.Now().After(deadline) {
			t.Fatal("no runtime went back to the pool")
		}
	}
}

// TestForgedMessagesFailOnlyTheirCell sends forged messages through the real bridge: each fails
// its cell with forgedMessageText and the reason, even when the script catches the exception the
// bridge throws, and output after it is dropped. The runtime is reset and reused, never
// replaced, and the next cell works.
func TestForgedMessagesFailOnlyTheirCell(t *testing.T) {
	p := forgingProvider(t)
	s := newCappedSession(t, p, nil)
	cells := 0
	for src, reason := range map[string]string{
		`forge("w")`:                  "unknown operation 'w'",
		`forge("t" + "[1]")`:          "expected a JSON string",
		`forge('s["k"]')`:             "expected 2 elements, got 1",
		`forge('i["data:x","huge"]')`: `image detail "huge"`,
		`forge('n"  "')`:              "notify with blank text",
		`forge("o5")`:                 "a text of 5 units reported past the 67108864-byte output limit",
		`forge("j1 1 {}")`:            "part 1 of 1 is not a string",
		`forge("jx 0 {}")`:            `tool input for call "x"`,
		`forge("j1 01 {}")`:           `tool input with "01" strings`,
		`forge(5)`:                    "bridge called with a non-string message",
		`forge()`:                     "bridge called with a non-string message",
		`forge(new String("y"))`:      "bridge called with a non-string message",
		`text("before"); try { forge("Q") } catch (e) { text("caught " + e.name) } text("after")`: "unknown operation 'Q'",
		`await null; forge("y1")`:                                     "operation 'y' takes no payload",
		`setTimeout(() => forge(""), 0); await new Promise(() => {})`: "empty message",
	} {
		waitIdle(t, p)
		r := executeCell(t, s, src)
		want := forgedMessageText + ": " + reason
		if r.Kind != codemode.Result || errorTextOf(r) != want {
			t.Errorf("%s: %v %q, want %q", src, r.Kind, errorTextOf(r), want)
		}
		if got := textsOf(r.ContentItems); strings.HasPrefix(src, "text") && !reflect.DeepEqual(got, []string{"before"}) {
			t.Errorf("%s: output %q continued after the forged message", src, got)
		}
		waitIdle(t, p)
		r = executeCell(t, s, `text(typeof forge)`)
		if r.ErrorText != nil || !reflect.DeepEqual(textsOf(r.ContentItems), []string{"function"}) {
			t.Fatalf("after %s: %s %q", src, errorTextOf(r), textsOf(r.ContentItems))
		}
		cells += 2
	}
	waitIdle(t, p)
	if got := p.pool.Stats(); got != (engine.PoolStats{Created: 1, Reused: cells, Hits: uint64(cells)}) {
		t.Fatalf("pool %+v, want %d cells on the one runtime, each a hit", got, cells)
	}
}
