package jsruntime

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"sync"
	"testing"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/jsruntime/internal/engine"
)

// Bridge forgery. The cell controls its wasm instance, so Go trusts no bridge message: a cell
// that reached the raw bridge once emitted an input_image with an https:// URL and stored text
// that made every later load() throw. These tests check Go's side of the bridge message by
// message, then that nothing a cell does through the helpers makes the prelude send what Go
// refuses (which would fail an honest cell with the forgery error).

// forgedMessages are bridge messages the prelude never sends, each with the exact reason Go gives.
var forgedMessages = []struct{ msg, reason string }{
	{"", "empty message"},
	{"?", `unknown operation '?'`},
	{"T\"x\"", `unknown operation 'T'`},
	{"\x01", `unknown operation '\x01'`},
	{"y1", `operation 'y' takes no payload`},
	{"d{}", `operation 'd' takes no payload`},
	{"t", "expected a JSON string"},
	{"t1", "expected a JSON string"},
	{"tnull", "expected a JSON string"},
	{"t'x'", "expected a JSON string"},
	{"t\"unterminated", "invalid JSON string: unexpected end of JSON input"},
	{"t\"a\"\"b\"", "invalid JSON string: invalid character '\"' after top-level value"},
	{"t\"\\x41\"", "invalid JSON string: invalid character 'x' in string escape code"},
	{"x", "expected a JSON string"},
	{"x[\"e\"]", "expected a JSON string"},
	{"l", "expected a JSON string"},
	{"l{\"k\":1}", "expected a JSON string"},
	{"e", "expected a JSON string"},
	{"e[\"1\"]", "expected a JSON string"},
	{"n\"\"", "notify with blank text"},
	{"n\" \\t\\n\\u000b\\f\\r\\u00a0\\ufeff\\u1680\\u2000\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\"", "notify with blank text"},
	{"n1", "expected a JSON string"},
	{"a\"https://example.com/a.wav\"", "audio URL is not a data: URL"},
	{"a\"blob:x\"", "audio URL is not a data: URL"},
	{"a\"\"", "audio URL is not a data: URL"},
	{"a\" data:x\"", "audio URL is not a data: URL"},
	{"a\"data\"", "audio URL is not a data: URL"},
	{"a[\"data:x\"]", "expected a JSON string"},
	{"i\"data:x\"", "expected a JSON array"},
	{"i[\"https://example.com/a.png\",\"high\"]", "image URL is not a data: URL"},
	{"i[\"http://example.com/a.png\",\"auto\"]", "image URL is not a data: URL"},
	{"i[\"HTTPS://example.com/a.png\",\"low\"]", "image URL is not a data: URL"},
	{"i[\"javascript:alert(1)\",\"low\"]", "image URL is not a data: URL"},
	{"i[\"data:x\"]", "expected 2 elements, got 1"},
	{"i[\"data:x\",\"high\",1]", "expected 2 elements, got 3"},
	{"i[\"data:x\",\"HIGH\"]", `image detail "HIGH"`},
	{"i[\"data:x\",\"\"]", `image detail ""`},
	{"i[\"data:x\",null]", "expected a JSON string"},
	{"i[1,\"high\"]", "expected a JSON string"},
	{"i[\"data:x\",\"high\"", "invalid JSON array: unexpected end of JSON input"},
	{"s[\"k\"]", "expected 2 elements, got 1"},
	{"s[\"k\",]", "invalid JSON array: invalid character ']' looking for beginning of value"},
	{"s[\"k\",undefined]", "invalid JSON array: invalid character 'u' looking for beginning of value"},
	{"s[\"k\",NaN]", "invalid JSON array: invalid character 'N' looking for beginning of value"},
	{"s[\"k\",{a:1}]", "invalid JSON array: invalid character 'a' looking for beginning of object key string"},
	{"s[\"k\",'x']", "invalid JSON array: invalid character '\\'' looking for beginning of value"},
	{"s[\"k\",\"unterminated]", "invalid JSON array: unexpected end of JSON input"},
	{"s[\"k\",\"\xed\xa0\x80\"]", "stored value is not valid UTF-8"}, // a raw lone surrogate, as QuickJS writes one
	{"s[\"k\",{\"\xff\":1}]", "stored value is not valid UTF-8"},
	{"s[1,2]", "expected a JSON string"},
	{"s{\"k\":1}", "expected a JSON array"},
	{"s[\"k\",1,2]", "expected 2 elements, got 3"},
	{"f[4,[],\"\"]", "function kind 4"},
	{"f[-1,[],\"\"]", "function kind -1"},
	{"f[0.5,[],\"\"]", "function kind 0.5"},
	{"f[\"0\",[],\"\"]", `function kind "0"`},
	{"f[0,\"a\",\"\"]", "function parameters are not a list of strings"},
	{"f[0,[1],\"\"]", "function parameters are not a list of strings"},
	{"f[0,null,\"\"]", "function parameters are not a list of strings"},
	{"f[0,[],1]", "expected a JSON string"},
	{"f[0,[]]", "expected 3 elements, got 2"},
}

// Every malformed shape of every operation is a forgery, with forgedMessageText and its reason.
func TestAttackForgedMessagesAreRefused(t *testing.T) {
	for _, c := range forgedMessages {
		_, err := decodeHostMessage(c.msg)
		var f *engine.ForgedError
		if !errors.As(err, &f) || err.Error() != forgedMessageText+": "+c.reason {
			t.Errorf("%q: %v, want the forgery %q", c.msg, err, c.reason)
		}
	}
}

// What the prelude does send decodes to exactly what it means, schemes in any case included.
func TestAttackGenuineMessagesDecode(t *testing.T) {
	for msg, want := range map[string]hostMessage{
		"y":                                  {op: opYield},
		"d":                                  {op: opDone},
		"t\"a\\u0000\\ud800b\"":              {op: opText, text: "a\x00\uFFFDb"},
		"u\"a\"\n\\":                         {op: opRawText, text: "\"a\"\n\\"},
		"n\"\\u180e\"":                       {op: opNotify, text: "\u180e"},
		"a\"DATA:audio/wav;base64,\"":        {op: opAudio, text: "DATA:audio/wav;base64,"},
		"i[\"dAtA:x\",\"original\"]":         {op: opImage, text: "dAtA:x", detail: "original"},
		"s[\"k\",{\"a\":[1,\"\\ud800\"]}]":   {op: opStore, key: "k", value: json.RawMessage(`{"a":[1,"\ud800"]}`)},
		"l\"k\"":                             {op: opLoad, text: "k"},
		"e\"1\"":                             {op: opEval, text: "1"},
		"f[3,[\"a\",\"b = 1\"],\"yield a\"]": {op: opFunction, kind: 3, params: []string{"a", "b = 1"}, text: "yield a"},
		"x\"Error: e\"":                      {op: opFail, text: "Error: e"},
	} {
		got, err := decodeHostMessage(msg)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%q: %+v %v, want %+v", msg, got, err, want)
		}
	}
}

// bridgeRecorder is an engine.Host that records what reaches it: it decodes each message as the
// cell's handler does (decodeCall), so served holds the messages a cell would act on.
type bridgeRecorder struct {
	served []hostMessage
	faults []string
}

func (b *bridgeRecorder) Serve(msg string) engine.Reply {
	m, reply, ok := decodeCall(msg, b.Fault)
	if !ok {
		return reply
	}
	b.served = append(b.served, m)
	return engine.Undefined()
}

func (b *bridgeRecorder) Fault(err error) { b.faults = append(b.faults, err.Error()) }

// A cell that reached the raw bridge gets nothing through it: every forged message (an https
// image, a non-data audio URL, a blank notification, a store that is not JSON…) is answered with
// the forgery TypeError, which the engine throws in JavaScript, fails the cell through Fault, and
// is never served. (The engine's side, a thrown TypeError for such a reply and a Fault for a
// non-string message, is internal/engine's TestBridgeThrowsWhatTheHostAnswers; the whole road
// from JavaScript is TestForgedMessagesFailOnlyTheirCell.)
func TestAttackBridgeRefusesForgeries(t *testing.T) {
	rec := &bridgeRecorder{}
	for i, c := range forgedMessages {
		reply := rec.Serve(c.msg)
		if reply != engine.TypeError(forgedMessageText) {
			t.Errorf("%q: replied %+v, want the forgery TypeError", c.msg, reply)
		}
		if len(rec.faults) != i+1 || rec.faults[i] != forgedMessageText+": "+c.reason {
			t.Errorf("%q: faults %q (message %d)", c.msg, rec.faults, i)
		}
	}
	if len(rec.served) != 0 {
		t.Fatalf("forged messages were served: %+v", rec.served)
	}
	if reply := rec.Serve("i[\"data:image/png;base64,AA\",\"low\"]"); !reply.IsUndefined() ||
		!reflect.DeepEqual(rec.served, []hostMessage{{op: opImage, text: "data:image/png;base64,AA", detail: "low"}}) {
		t.Fatalf("a genuine message: replied %+v, served %+v", reply, rec.served)
	}
}

// Everything notify's trim removes Go counts as blank too, and what it keeps Go keeps: the
// notification is refused by the helper, in Codex's words, or delivered; never a forgery.
func TestAttackNotifyWhiteSpaceAgreesWithGo(t *testing.T) {
	d := newRecorder(echoTool)
	s := newTestSession(t, d, codemode.SessionCellExecutionLimits{})
	expectTexts(t, s, `
const blank = ["\t", "\n", "\v", "\f", "\r", " ", "\u00a0", "\ufeff", "\u1680", "\u2000", "\u2001", "\u2002", "\u2003",
  "\u2004", "\u2005", "\u2006", "\u2007", "\u2008", "\u2009", "\u200a", "\u2028", "\u2029", "\u202f", "\u205f", "\u3000"];
const got = [];
for (const c of blank) { try { notify(c + c); got.push("sent") } catch (e) { got.push(e) } }
try { notify(blank.join("")) } catch (e) { got.push(e) }
try { notify({ toJSON() { return " \u3000 " } }) } catch (e) { got.push(e) }
for (const c of ["\u180e", "\u0085", "\u200b", "\u00ad", "\u0000"]) notify(c);
text(JSON.stringify([...new Set(got)]) + " " + got.length);`, []string{`["notify expects non-empty text"] 26`})
	_, notes, _ := d.snapshot()
	// notify converts objects with JSON.stringify, whose quotes are not blank.
	if want := []string{"call-1/1:\" \u3000 \"", "call-1/1:\u180e", "call-1/1:\u0085", "call-1/1:\u200b", "call-1/1:\u00ad", "call-1/1:\x00"}; !reflect.DeepEqual(notes, want) {
		t.Errorf("notifications %q, want %q", notes, want)
	}
}

// The helpers validate the value they send, read once, however often and whatever a getter or a
// proxy answers: an https URL never becomes an input_image, whichever read returns it.
func TestAttackHelpersValidateWhatTheySend(t *testing.T) {
	s := newTestSession(t, nil, codemode.SessionCellExecutionLimits{})
	items, errText := runEveryOutput(t, s, `
const got = [];
const attempt = (f) => { try { f(); got.push("sent") } catch (e) { got.push(String(e)) } };
// A getter that answers a data: URL when asked whether the property is there, and an https: URL
// for its value, and the other way round.
const flip = (key, first, then) => { let n = 0; return { get [key]() { return n++ === 0 ? first : then } } };
attempt(() => image(flip("image_url", "data:image/png;base64,AA", "https://evil.example/a.png")));
attempt(() => image(flip("image_url", "https://evil.example/a.png", "data:image/png;base64,AB")));
attempt(() => audio(flip("audio_url", "data:audio/wav;base64,AA", "https://evil.example/a.wav")));
attempt(() => generatedImage(flip("image_url", "HTTP://evil.example/a.png", "data:x")));
attempt(() => image({ type: "image", data: "https://evil.example/a.png" }));
attempt(() => image({ type: "image", data: "AA", mimeType: "image/png;x=1,https://evil" }));
attempt(() => image(flip("type", "image", "audio")));
attempt(() => audio({ type: "audio", data: "blob:x" }));
attempt(() => image("data:image/png;base64,AA", { toString() { return "high" } }));
attempt(() => image("data:image/png;base64,AA", "HiGh"));
attempt(() => image(" data:image/png;base64,AA"));
attempt(() => image("javascript:alert(1)"));
attempt(() => audio("Data:audio/wav;base64,AA"));
attempt(() => image(new String("data:image/png;base64,AA")));
// What each helper reads of a proxy, in order.
const reads = [];
const proxy = (answers) => new Proxy({}, { get(target, key) { reads.push(String(key)); return answers[key] }, has(target, key) { reads.push("has " + String(key)); return key in answers } });
attempt(() => image(proxy({ image_url: "data:image/png;base64,AC", detail: "LOW" })));
attempt(() => image(proxy({ type: "image", data: "AD", mimeType: "image/gif", _meta: { "codex/imageDetail": "auto" } })));
attempt(() => audio(proxy({ audio_url: "data:audio/wav;base64,AB" })));
attempt(() => generatedImage(proxy({ image_url: "data:image/png;base64,AE", output_hint: "h" })));
text(JSON.stringify(got));
text(JSON.stringify(reads));`)
	want := []codemode.ContentItem{
		codemode.InputImage{ImageURL: "data:image/png;base64,AB", Detail: "high"},
		// generatedImage reads image_url twice (is it there, then its value) and sends the value
		// it checked.
		codemode.InputImage{ImageURL: "data:x", Detail: "high"},
		// An MCP block's data that is not a data: URL is base64 behind its MIME type
		// (docs/protocol/javascript.md#image), and its mimeType goes into the data: URL
		// unchanged: the URL still starts with data:, so no scheme the script forged is reached.
		codemode.InputImage{ImageURL: "data:application/octet-stream;base64,https://evil.example/a.png", Detail: "high"},
		codemode.InputImage{ImageURL: "data:image/png;x=1,https://evil;base64,AA", Detail: "high"},
		codemode.InputAudio{AudioURL: "data:application/octet-stream;base64,blob:x"},
		codemode.InputImage{ImageURL: "data:image/png;base64,AA", Detail: "high"},
		codemode.InputAudio{AudioURL: "Data:audio/wav;base64,AA"},
		codemode.InputImage{ImageURL: "data:image/png;base64,AC", Detail: "low"},
		codemode.InputImage{ImageURL: "data:image/gif;base64,AD", Detail: "auto"},
		codemode.InputAudio{AudioURL: "data:audio/wav;base64,AB"},
		codemode.InputImage{ImageURL: "data:image/png;base64,AE", Detail: "high"},
		codemode.InputText{Text: "h"},
		codemode.InputText{Text: `["Tool call failed: remote image URLs are not supported in tool outputs. Pass a base64 data URI instead",` +
			`"sent","Tool call failed: invalid audio output. Pass a base64 data URI instead",` +
			`"sent","sent","sent",` +
			`"image only accepts MCP image blocks, got \"audio\"",` +
			`"sent",` +
			`"image detail must be a string when provided","sent",` +
			`"Tool call failed: invalid image output. Pass a base64 data URI instead",` +
			`"Tool call failed: invalid image output. Pass a base64 data URI instead","sent",` +
			`"image expects a non-empty image URL string, an object with image_url and optional detail, or a raw MCP image block",` +
			`"sent","sent","sent","sent"]`},
		codemode.InputText{Text: `["image_url","image_url","detail","image_url","type","type","_meta","data","mimeType",` +
			`"audio_url","audio_url","image_url","image_url","detail","output_hint"]`},
	}
	if errText != "<nil>" || !reflect.DeepEqual(items, want) {
		t.Errorf("error %s\ngot  %#v\nwant %#v", errText, items, want)
	}
}

// limitedProvider has small pending limits, so a test can reach them.
var limitedProvider = sync.OnceValue(func() *Provider {
	p, err := NewProvider(Options{PoolSize: 1, MaxPendingTimers: 3, MaxPendingToolCalls: 3})
	if err != nil {
		panic(err)
	}
	return p
})

func newLimitedSession(t *testing.T, d codemode.Delegate) codemode.Session {
	t.Helper()
	return newSessionOn(t, limitedProvider(), d, codemode.SessionCellExecutionLimits{})
}

// A delay whose valueOf calls setTimeout ran between the prelude's limit check and its use: one
// timer more than the limit. The limit is checked after the conversion.
func TestAttackReentrantSetTimeoutAtTheLimit(t *testing.T) {
	s := newLimitedSession(t, newRecorder(echoTool))
	expectTexts(t, s, `
setTimeout(() => {}, 100000);
setTimeout(() => {}, 100000);
try {
  setTimeout(() => {}, { valueOf() { setTimeout(() => {}, 100000); return 100000 } });
  text("a fourth timer was set");
} catch (e) { text(e) }
try { setTimeout(() => {}, 1); text("a fifth timer was set") } catch (e) { text(e) }
text(await tools.echo("after"));`, []string{
		"setTimeout: the cell already has its limit of 3 pending timers",
		"setTimeout: the cell already has its limit of 3 pending timers",
		"after",
	}, testTool("echo"))
}

// A tool input whose toJSON calls a tool ran between the prelude's limit check and its use: the
// fourth call passed the check in JavaScript, Go counted it, and the honest cell failed with the
// forgery error. The limit is checked after the input is serialized.
func TestAttackReentrantToolCallAtTheLimit(t *testing.T) {
	d := newRecorder(echoTool)
	s := newLimitedSession(t, d)
	expectTexts(t, s, `
const settle = (p) => p.then((v) => "resolved " + JSON.stringify(v), (e) => "rejected " + e);
const a = tools.echo(1), b = tools.echo(2);
let inner;
const outer = tools.echo({ toJSON() { inner = tools.echo(3); return 4 } });
text(JSON.stringify(await Promise.all([a, b, inner, outer].map(settle))));
text(JSON.stringify(await tools.echo(5)));`, []string{
		`["resolved 1","resolved 2","resolved 3","rejected tools.echo: the cell already has its limit of 3 pending tool calls"]`,
		"5",
	}, testTool("echo"))
	calls, _, _ := d.snapshot()
	var got []string
	for _, c := range calls {
		got = append(got, c.RuntimeToolCallID+" "+string(c.Input))
	}
	slices.Sort(got) // the delegate runs calls concurrently
	if want := []string{"tool-1 1", "tool-2 2", "tool-3 3", "tool-4 5"}; !reflect.DeepEqual(got, want) {
		t.Errorf("delegate saw %q, want %q", got, want)
	}
}

// A cleared timer gives its place back, in JavaScript and in Go. Go used to keep a cleared timer
// until it came due (a cell that set and cleared long timers in a loop grew Go's heap without
// bound: 80 MB after two million); the robustness branch makes Go drop it and hold the cell to the
// limit too (5b5a8e2), and then this test checks that the two counts agree.
func TestAttackClearedTimersGiveTheirPlaceBack(t *testing.T) {
	s := newLimitedSession(t, newRecorder(echoTool))
	expectTexts(t, s, `
const f = () => text("a cleared timer fired");
for (let round = 0; round < 5; round++) {
  for (let i = 0; i < 3; i++) clearTimeout(setTimeout(f, 1e9));
  await tools.echo(round);
}
const ids = [setTimeout(f, 1e9), setTimeout(f, 1e9)];
await tools.echo("turn");
clearTimeout(ids[0]);
clearTimeout(ids[0]);
clearTimeout(ids[1] + 1000);
const fired = [];
await new Promise((resolve) => { setTimeout(() => fired.push(1), 1); setTimeout(() => { fired.push(2); resolve() }, 2) });
ids.push(setTimeout(f, 1e9), setTimeout(f, 1e9));
try { setTimeout(f, 1e9) } catch (e) { text(e) }
await tools.echo("turn");
text(JSON.stringify([ids, fired]));`, []string{
		"setTimeout: the cell already has its limit of 3 pending timers",
		"[[16,17,20,21],[1,2]]",
	}, testTool("echo"))
}
