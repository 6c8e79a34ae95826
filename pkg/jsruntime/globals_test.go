package jsruntime_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/jsruntime"
)

func TestGlobalScopeContainsOnlyAllowedItems(t *testing.T) {
	r := jsruntime.RunCellToEnd(t, `text(Reflect.ownKeys(globalThis).map(String).sort().join(","))`)
	got := strings.Split(jsruntime.TextsOf(r.ContentItems)[0], ",")
	for _, banned := range []string{"console", "print", "std", "os", "bjson", "gc", "navigator", "performance",
		"scriptArgs", "setInterval", "clearInterval", "queueMicrotask", "SharedArrayBuffer", "Atomics",
		"WebAssembly", "InternalError", "DOMException", "QJS_PROXY_VALUE"} {
		for _, g := range got {
			if g == banned {
				t.Errorf("global %q is exposed", banned)
			}
		}
	}
	for _, want := range []string{"tools", "ALL_TOOLS", "text", "image", "audio", "generatedImage", "store",
		"load", "notify", "setTimeout", "clearTimeout", "yield_control", "exit", "Object", "Promise", "JSON", "eval"} {
		found := false
		for _, g := range got {
			found = found || g == want
		}
		if !found {
			t.Errorf("global %q is missing", want)
		}
	}
}

func TestOutputHelpersReturnUndefined(t *testing.T) {
	r := jsruntime.RunCellToEnd(t, `
const results = [
  text("a"),
  image("data:image/png;base64,AAA"),
  audio("data:audio/wav;base64,AAA"),
  generatedImage({image_url: "data:image/png;base64,AAA"}),
  notify("n"),
  store("k", 1),
  yield_control(),
  clearTimeout(1),
];
text(JSON.stringify(results.map(v => v === undefined)));`)
	// The result holds the output of every observation: "a", then the verdict after yield_control.
	if got := jsruntime.TextsOf(r.ContentItems); len(got) != 2 || got[1] != "[true,true,true,true,true,true,true,true]" {
		t.Fatalf("helpers returned %v", got)
	}
}

func TestTextHelperConvertsValues(t *testing.T) {
	r := jsruntime.RunCellToEnd(t, `text(undefined); text(null); text(true); text(1.5); text(10n); text("s"); text({a: [1, "x"]}); text([1, 2]); text(() => 1); text(Symbol("q")); text({toJSON() {}});`)
	// What JSON.stringify maps to undefined prints "undefined" (docs/protocol/javascript.md#text).
	want := []string{"undefined", "null", "true", "1.5", "10", "s", `{"a":[1,"x"]}`, "[1,2]", "undefined", "undefined", "undefined"}
	if got := jsruntime.TextsOf(r.ContentItems); !reflect.DeepEqual(got, want) {
		t.Fatalf("texts = %q, want %q", got, want)
	}
}

func TestTextHelperSurfacesStringifyErrors(t *testing.T) {
	r := jsruntime.RunCellToEnd(t, `text("before"); const o = {}; o.self = o; text(o);`)
	if !strings.Contains(jsruntime.ErrorTextOf(r), "circular") || !reflect.DeepEqual(jsruntime.TextsOf(r.ContentItems), []string{"before"}) {
		t.Fatalf("error %q, items %v", jsruntime.ErrorTextOf(r), jsruntime.TextsOf(r.ContentItems))
	}
}

func TestImageHelper(t *testing.T) {
	cases := []struct {
		src    string
		url    string
		detail codemode.ImageDetail
	}{
		{`image("data:image/png;base64,AAA")`, "data:image/png;base64,AAA", "high"},
		{`image("DATA:image/png;base64,AAA", "LOW")`, "DATA:image/png;base64,AAA", "low"},
		{`image({image_url: "data:x", detail: "auto"})`, "data:x", "auto"},
		{`image({image_url: "data:x", detail: "auto"}, "original")`, "data:x", "original"},
		{`image({type: "image", data: "AAA", mimeType: "image/png", _meta: {"codex/imageDetail": "original"}})`, "data:image/png;base64,AAA", "original"},
		{`image({type: "image", data: "AAA", mime_type: "image/jpeg"}, "low")`, "data:image/jpeg;base64,AAA", "low"},
		{`image({type: "image", data: "AAA"})`, "data:application/octet-stream;base64,AAA", "high"},
	}
	for _, c := range cases {
		r := jsruntime.RunCellToEnd(t, c.src)
		if r.ErrorText != nil || len(r.ContentItems) != 1 {
			t.Fatalf("%s: %s %+v", c.src, jsruntime.ErrorTextOf(r), r.ContentItems)
		}
		img := r.ContentItems[0].(codemode.InputImage)
		if img.ImageURL != c.url || img.Detail != c.detail {
			t.Errorf("%s: got %+v", c.src, img)
		}
	}
}

func TestHelperErrorsAreCodexStrings(t *testing.T) {
	shape := "image expects a non-empty image URL string, an object with image_url and optional detail, or a raw MCP image block"
	cases := map[string]string{
		`image("https://example.com/a.png")`:      "Tool call failed: remote image URLs are not supported in tool outputs. Pass a base64 data URI instead",
		`image("HTTP://example.com/a.png")`:       "Tool call failed: remote image URLs are not supported in tool outputs. Pass a base64 data URI instead",
		`image("file:///etc/passwd")`:             "Tool call failed: invalid image output. Pass a base64 data URI instead",
		`image("no-scheme")`:                      "Tool call failed: invalid image output. Pass a base64 data URI instead",
		`image("data:x", "huge")`:                 "image detail must be one of: auto, low, high, original",
		`image("data:x", 5)`:                      "image detail must be a string when provided",
		`image({image_url: "data:x", detail: 1})`: "image detail must be a string when provided",
		`image(5)`:  shape,
		`image("")`: shape,
		`image({content: [{type: "image", data: "AAA"}]})`: shape,
		`image({type: "text", text: "x"})`:                 `image only accepts MCP image blocks, got "text"`,
		`generatedImage({image_url: "https://x/y.png"})`:   "Tool call failed: remote image URLs are not supported in tool outputs. Pass a base64 data URI instead",
		`audio("https://x/y.wav")`:                         "Tool call failed: invalid audio output. Pass a base64 data URI instead",
		`audio({audio_url: "ftp://x"})`:                    "Tool call failed: invalid audio output. Pass a base64 data URI instead",
		`notify("   ")`:                                    "notify expects non-empty text",
		`notify("")`:                                       "notify expects non-empty text",
		`setTimeout("code", 1)`:                            "setTimeout expects a function callback",
		`store("k", () => 1)`:                              "failed to serialize JavaScript value: expected value at line 1 column 1",
		`store("k", undefined)`:                            `Unable to store "k". Only plain serializable objects can be stored.`,
		`store(Symbol("k"), 1)`:                            "store key must be a string",
		`load(Symbol("k"))`:                                "load key must be a string",
		`const o = {}; o.o = o; store(7, o)`:               "TypeError: Converting circular structure to JSON\n    --> starting at object with constructor 'Object'\n    --- property 'o' closes the circle\n    at exec_main.mjs:1:24",
		`store("k", {s: "\ud800"})`:                        "failed to serialize JavaScript value: unexpected end of hex escape at line 1 column 13",
		`generatedImage("x")`:                              "generatedImage expects an image generation result object",
		`content("x")`:                                     "content expects one MCP ContentBlock",
		`throw Symbol("s")`:                                "",
		`throw "plain"`:                                    "plain",
		`try { image(1) } catch (e) { throw typeof e }`:    "string",
		`await Promise.reject("rejected")`:                 "rejected",
		`throw {toString() { return "custom" }}`:           "custom",
	}
	for src, want := range cases {
		if r := jsruntime.RunCellToEnd(t, src); jsruntime.ErrorTextOf(r) != want {
			t.Errorf("%s: error_text %q, want %q", src, jsruntime.ErrorTextOf(r), want)
		}
	}
}

func TestUncaughtErrorTextIsTheStack(t *testing.T) {
	r := jsruntime.RunCellToEnd(t, "text('kept');\nfunction f() { throw new TypeError('boom'); }\nf();")
	got := jsruntime.ErrorTextOf(r)
	if !strings.HasPrefix(got, "TypeError: boom\n") || !strings.Contains(got, "at f (exec_main.mjs:2") {
		t.Fatalf("error_text %q", got)
	}
	if !reflect.DeepEqual(jsruntime.TextsOf(r.ContentItems), []string{"kept"}) {
		t.Fatalf("output before the error was lost: %v", r.ContentItems)
	}
	r = jsruntime.RunCellToEnd(t, `const e = new Error("x"); e.stack = "custom stack"; throw e;`)
	if jsruntime.ErrorTextOf(r) != "custom stack" {
		t.Fatalf("error_text %q", jsruntime.ErrorTextOf(r))
	}
}

func TestAudioAndGeneratedImageHelpers(t *testing.T) {
	r := jsruntime.RunCellToEnd(t, `audio("data:audio/wav;base64,AA"); audio({audio_url: "data:audio/mp3;base64,BB"}); audio({type: "audio", data: "CC", mimeType: "audio/ogg"});
generatedImage({image_url: "data:image/png;base64,DD", output_hint: "a cat"}); generatedImage({image_url: "data:image/png;base64,EE"});`)
	want := []codemode.ContentItem{
		codemode.InputAudio{AudioURL: "data:audio/wav;base64,AA"},
		codemode.InputAudio{AudioURL: "data:audio/mp3;base64,BB"},
		codemode.InputAudio{AudioURL: "data:audio/ogg;base64,CC"},
		codemode.InputImage{ImageURL: "data:image/png;base64,DD", Detail: "high"},
		codemode.InputText{Text: "a cat"},
		codemode.InputImage{ImageURL: "data:image/png;base64,EE", Detail: "high"},
	}
	if r.ErrorText != nil || !reflect.DeepEqual(r.ContentItems, want) {
		t.Fatalf("%s %+v", jsruntime.ErrorTextOf(r), r.ContentItems)
	}
}

func TestSynchronousExitReturnsSuccessfully(t *testing.T) {
	r := jsruntime.RunCellToEnd(t, `text("before"); exit(); text("after");`)
	if r.ErrorText != nil || !reflect.DeepEqual(jsruntime.TextsOf(r.ContentItems), []string{"before"}) {
		t.Fatalf("%s %v", jsruntime.ErrorTextOf(r), jsruntime.TextsOf(r.ContentItems))
	}
	// exit() cannot be caught, and no finally runs (docs/protocol/javascript.md#exit).
	r = jsruntime.RunCellToEnd(t, `try { exit() } catch (e) { text(e) } finally { text("finally") } text("continued")`)
	if r.ErrorText != nil || len(r.ContentItems) != 0 {
		t.Fatalf("%s %v", jsruntime.ErrorTextOf(r), jsruntime.TextsOf(r.ContentItems))
	}
	r = jsruntime.RunCellToEnd(t, `await 1; text("a"); exit();`)
	if r.ErrorText != nil {
		t.Fatalf("exit after await: %s", jsruntime.ErrorTextOf(r))
	}
	// In a timer too the cell ends at once and successfully.
	r = jsruntime.RunCellToEnd(t, `setTimeout(() => exit(), 0); await new Promise(() => {});`)
	if r.ErrorText != nil {
		t.Fatalf("exit in a timer: %q", jsruntime.ErrorTextOf(r))
	}
}

func TestTimers(t *testing.T) {
	r := jsruntime.RunCellToEnd(t, `
const order = [];
const a = setTimeout(() => order.push("a"), 20);
const b = setTimeout(() => order.push("b"), 1, "ignored");
const c = setTimeout(function () { order.push("c:" + arguments.length) }, -5);
const d = setTimeout(() => order.push("d"), NaN);
clearTimeout(d);
clearTimeout(null); clearTimeout(undefined); clearTimeout(-1); clearTimeout(Infinity);
await new Promise(r => setTimeout(r, 40));
text(JSON.stringify([a, b, c, d, order]));`)
	if got := jsruntime.TextsOf(r.ContentItems); r.ErrorText != nil || got[0] != `[1,2,3,4,["c:0","b","a"]]` {
		t.Fatalf("%s %v", jsruntime.ErrorTextOf(r), got)
	}
}

func TestTimersDoNotKeepTheCellAlive(t *testing.T) {
	r := jsruntime.RunCellToEnd(t, `setTimeout(() => text("never"), 60_000); text("done");`)
	if r.ErrorText != nil || !reflect.DeepEqual(jsruntime.TextsOf(r.ContentItems), []string{"done"}) {
		t.Fatalf("%s %v", jsruntime.ErrorTextOf(r), jsruntime.TextsOf(r.ContentItems))
	}
}

func TestThrowingTimerCallbackFailsTheCell(t *testing.T) {
	r := jsruntime.RunCellToEnd(t, `setTimeout(() => { throw "from timer" }, 0); await new Promise(() => {});`)
	if jsruntime.ErrorTextOf(r) != "from timer" {
		t.Fatalf("%q", jsruntime.ErrorTextOf(r))
	}
}

func TestStoreAndLoad(t *testing.T) {
	s := jsruntime.NewTestSession(t, nil, codemode.SessionCellExecutionLimits{})
	r := jsruntime.ExecuteCell(t, s, `store("obj", {a: [1, 2]}); const x = load("obj"); x.a.push(3); text(JSON.stringify([x, load("obj"), load("missing")]));`)
	if got := jsruntime.TextsOf(r.ContentItems); got[0] != `[{"a":[1,2,3]},{"a":[1,2]},null]` {
		t.Fatalf("%s %v", jsruntime.ErrorTextOf(r), got)
	}
	r = jsruntime.ExecuteCell(t, s, `text(JSON.stringify(load("obj"))); store("obj", 2); throw "fails but commits";`)
	if got := jsruntime.TextsOf(r.ContentItems); got[0] != `{"a":[1,2]}` {
		t.Fatalf("%v", got)
	}
	r = jsruntime.ExecuteCell(t, s, `text(JSON.stringify(load("obj")))`)
	if got := jsruntime.TextsOf(r.ContentItems); got[0] != `2` {
		t.Fatalf("store after a script error was not committed: %v", got)
	}
	other := jsruntime.NewTestSession(t, nil, codemode.SessionCellExecutionLimits{})
	r = jsruntime.ExecuteCell(t, other, `text(String(load("obj")))`)
	if got := jsruntime.TextsOf(r.ContentItems); got[0] != "undefined" {
		t.Fatalf("stored values leaked between sessions: %v", got)
	}
}

func TestNotifyDeliversToTheDelegate(t *testing.T) {
	d := jsruntime.NewRecorder(nil)
	s := jsruntime.NewTestSession(t, d, codemode.SessionCellExecutionLimits{})
	r := jsruntime.ExecuteCell(t, s, `notify("one"); notify({two: 2}); text("x");`)
	if r.Kind != codemode.Result {
		t.Fatalf("%+v", r)
	}
	_, notes, _ := d.Snapshot()
	if !reflect.DeepEqual(notes, []string{"call-1/1:one", `call-1/1:{"two":2}`}) {
		t.Fatalf("notes %q", notes)
	}
}
