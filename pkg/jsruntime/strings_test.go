package jsruntime

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// Strings cross between JavaScript and Go as JSON or as counted byte strings, never as C strings
// that end at NUL, and lone surrogates (which Go's strings cannot hold) become U+FFFD. Before the
// rewrite notify("x\u0000y") arrived as "x" and store("k\0a") and store("k\0b") wrote one key.

// TestNotifyAndTextKeepNULAndReplaceLoneSurrogates checks the output paths.
func TestNotifyAndTextKeepNULAndReplaceLoneSurrogates(t *testing.T) {
	d := newRecorder(nil)
	s := newTestSession(t, d, codemode.SessionCellExecutionLimits{})
	r := executeCell(t, s, `notify("x\u0000y"); notify("a\uD800b"); text("a\0b"); text("\uDC00\uDC00"); text("\uD83D\uDE00")`)
	if want := []string{"a\x00b", "\uFFFD\uFFFD", "\U0001F600"}; r.ErrorText != nil || !reflect.DeepEqual(textsOf(r.ContentItems), want) {
		t.Fatalf("%s %q", errorTextOf(r), textsOf(r.ContentItems))
	}
	_, notes, _ := d.snapshot()
	if want := []string{"call-1/1:x\x00y", "call-1/1:a\uFFFDb"}; !reflect.DeepEqual(notes, want) {
		t.Fatalf("notes %q", notes)
	}
}

// TestStoredKeysAndValuesKeepNUL stores under keys that differ only after a NUL, and a value that
// holds one, then reads them back in the same cell and in the next one.
func TestStoredKeysAndValuesKeepNUL(t *testing.T) {
	s := newTestSession(t, nil, codemode.SessionCellExecutionLimits{})
	r := executeCell(t, s, `store("k\0a", 1); store("k\0b", 2); store("v", "x\0y");
		text(JSON.stringify([load("k\0a"), load("k\0b"), load("v") === "x\0y", load("k") === undefined]))`)
	if got := textsOf(r.ContentItems); r.ErrorText != nil || !reflect.DeepEqual(got, []string{"[1,2,true,true]"}) {
		t.Fatalf("same cell: %s %q", errorTextOf(r), got)
	}
	r = executeCell(t, s, `text(JSON.stringify([load("k\0a"), load("k\0b"), load("v").length, load("v").charCodeAt(1)]))`)
	if got := textsOf(r.ContentItems); r.ErrorText != nil || !reflect.DeepEqual(got, []string{"[1,2,3,0]"}) {
		t.Fatalf("next cell: %s %q", errorTextOf(r), got)
	}
	sess := s.(*session)
	sess.mu.Lock()
	defer sess.mu.Unlock()
	want := storedValues{"k\x00a": "1", "k\x00b": "2", "v": `"x\u0000y"`}
	if !reflect.DeepEqual(sess.stored, want) {
		t.Fatalf("committed %q", sess.stored)
	}
}

// TestToolInputsAndResultsKeepNUL sends NUL and lone surrogates to a tool and back. The delegate
// receives JSON with the lone surrogate replaced (strict decoders refuse it); the cell receives
// the tool's result exactly, lone surrogate included.
func TestToolInputsAndResultsKeepNUL(t *testing.T) {
	d := newRecorder(func(_ context.Context, call codemode.NestedToolCall) (json.RawMessage, error) {
		if call.ToolName.Name == "odd" {
			return json.RawMessage(`["x\u0000y", "\ud800", "\ud83d\ude00"]`), nil
		}
		return call.Input, nil
	})
	s := newTestSession(t, d, codemode.SessionCellExecutionLimits{})
	r := executeCell(t, s, `
const back = await tools.echo({s: "a\0b\uFFFDc", pair: "\uD83D\uDE00"});
try { tools.echo({s: "\uD800"}); text("sent") } catch (e) { text(e) }
const odd = await tools.odd();
text(JSON.stringify([back.s.length, back.s.charCodeAt(1), back.s.charCodeAt(3), back.pair.length]));
text(JSON.stringify([odd[0].length, odd[0].charCodeAt(1), odd[1].length, odd[1].charCodeAt(0), odd[2].codePointAt(0)]));
text(odd[0]); text(odd[1]);`, testTool("echo"), testTool("odd"))
	// A lone surrogate in an input is refused at once, where the script can catch it, with the
	// text of serde_json, the decoder of a Codex client, which would refuse the whole input.
	want := []string{"failed to serialize JavaScript value: unexpected end of hex escape at line 1 column 13",
		"[5,0,65533,2]", "[3,0,1,55296,128512]", "x\x00y", "\uFFFD"}
	if got := textsOf(r.ContentItems); r.ErrorText != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("%s %q", errorTextOf(r), got)
	}
	calls, _, _ := d.snapshot()
	if got := string(calls[0].Input); got != `{"s":"a\u0000b�c","pair":"😀"}` {
		t.Fatalf("delegate input %s", got)
	}
}

// TestErrorTextsKeepNUL checks the error paths: a thrown string, a thrown Error, and a lone
// surrogate in an error message.
func TestErrorTextsKeepNUL(t *testing.T) {
	s := newTestSession(t, nil, codemode.SessionCellExecutionLimits{})
	for _, tc := range []struct {
		src, want  string
		prefixOnly bool // an Error's text goes on with its stack
	}{
		{`throw "a\0b"`, "a\x00b", false},
		{`setTimeout(() => { throw "t\0" }, 0); await new Promise(() => {})`, "t\x00", false},
		{`throw new Error("a\0b")`, "Error: a\x00b\n    at ", true},
		{`throw new Error("a\uD800b")`, "Error: a\uFFFDb\n    at ", true},
	} {
		r := executeCell(t, s, tc.src)
		got := errorTextOf(r)
		if tc.prefixOnly && !strings.HasPrefix(got, tc.want) || !tc.prefixOnly && got != tc.want {
			t.Errorf("%s: error text %q, want %q", tc.src, got, tc.want)
		}
	}
}

// TestCodeBuiltAtRunTimeMayHoldNUL evaluates code that holds a raw NUL: eval and Function send it
// to Go, which returns the code to run; that string must reach QuickJS whole. It failed with
// "string with NUL crosses into QuickJS" before newString learnt to build such strings.
func TestCodeBuiltAtRunTimeMayHoldNUL(t *testing.T) {
	r := runCellToEnd(t, `const nul = String.fromCharCode(0);
text(JSON.stringify([
  eval("'a" + nul + "b'").length,
  new Function("return 'c" + nul + "d'")().charCodeAt(1),
  eval("1 + 1 // trailing comment " + nul),
]))`)
	if got := textsOf(r.ContentItems); r.ErrorText != nil || !reflect.DeepEqual(got, []string{"[3,0,2]"}) {
		t.Fatalf("%s %q", errorTextOf(r), got)
	}
}

// TestReplaceLoneSurrogates covers the rewrite of tool inputs.
func TestReplaceLoneSurrogates(t *testing.T) {
	for in, want := range map[string]string{
		`"plain"`:                   `"plain"`,
		`"\ud800"`:                  `"\ufffd"`,
		`"\uDBFFx"`:                 `"\ufffdx"`,
		`"\udc00\udc00"`:            `"\ufffd\ufffd"`,
		`"\ud83d\ude00"`:            `"\ud83d\ude00"`,
		`"\uD83D\uDE00\ud800"`:      `"\uD83D\uDE00\ufffd"`,
		`"\ud800\ud83d\ude00"`:      `"\ufffd\ud83d\ude00"`,
		`"\ud800\u0041"`:            `"\ufffd\u0041"`,
		`"\\ud800"`:                 `"\\ud800"`,
		`["\\", "\ud800", "\"\n"]`:  `["\\", "\ufffd", "\"\n"]`,
		`{"\ud800": 1, "k": "\\u"}`: `{"\ufffd": 1, "k": "\\u"}`,
	} {
		if got := replaceLoneSurrogates(in); got != want {
			t.Errorf("%s: got %s, want %s", in, got, want)
		}
	}
}
