package codemodetest

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// globalsCases cover the JavaScript surface of a cell (docs/protocol/javascript.md#evaluation, docs/protocol/javascript.md#globals). They belong to the
// session contract because every transport must carry the content items they produce unchanged.
func globalsCases() []testCase {
	return []testCase{
		{"global_scope_contains_the_helpers_and_no_host_objects", testGlobalScope},
		{"global_scope_contains_only_allowed_items", testGlobalScopeOnlyAllowed},
		{"v8_console_is_not_exposed_on_global_this", testNoConsole},
		{"output_helpers_return_undefined", testOutputHelpersReturnUndefined},
		{"text_helper_serializes_objects", testTextSerializes},
		{"text_helper_surfaces_stringify_errors", testTextStringifyErrors},
		{"image_helper_defaults_to_high_detail", testImageDefaultDetail},
		{"image_helper_accepts_low_detail", testImageLowDetail},
		{"image_helper_accepts_raw_mcp_image_block_with_original_detail", testImageRawMCPBlock},
		{"image_helper_second_arg_overrides_explicit_object_detail", testImageSecondArgOverridesObject},
		{"image_helper_second_arg_overrides_raw_mcp_image_detail", testImageSecondArgOverridesMCP},
		{"image_helpers_reject_remote_urls", testImageRejectsRemoteURLs},
		{"image_helpers_reject_invalid_image_outputs", testImageRejectsInvalid},
		{"image_helper_rejects_unsupported_detail", testImageRejectsUnsupportedDetail},
		{"image_helper_rejects_raw_mcp_result_container", testImageRejectsResultContainer},
		{"audio_helper_accepts_audio_url_object_and_raw_mcp_audio_block", testAudioAccepts},
		{"audio_helper_rejects_non_data_urls", testAudioRejects},
		{"generated_image_helper_appends_image_and_output_hint", testGeneratedImage},
		{"all_tools_lists_enabled_tools_in_request_order", testAllTools},
		{"tool_names_are_normalized_to_identifiers", testToolNameNormalization},
		{"empty_tool_name_is_normalized_to_an_underscore", testEmptyToolNameNormalization},
		{"set_timeout_runs_callbacks_without_keeping_the_cell_alive", testSetTimeout},
		{"clear_timeout_cancels_a_timer", testClearTimeout},
		{"imports_are_unsupported", testImportsUnsupported},
	}
}

const (
	pngURL = "data:image/png;base64,iVBORw0KGgo="
	wavURL = "data:audio/wav;base64,UklGRg=="
)

// catching returns JavaScript that runs stmt and prints either "ok" or typeof and text of what
// it threw.
func catching(stmt string) string {
	return fmt.Sprintf(`try { %s; text("ok"); } catch (e) { text(typeof e + ": " + e); }`, stmt)
}

// thrown is the text catching prints for a helper that throws message as a plain string.
func thrown(message string) string { return "string: " + message }

func image(url string, detail codemode.ImageDetail) codemode.InputImage {
	return codemode.InputImage{ImageURL: url, Detail: detail}
}

func testGlobalScope(t *testing.T, h *harness) {
	f := h.session()
	r := f.run(`
const helpers = { tools: "object", ALL_TOOLS: "object", text: "function", image: "function", audio: "function",
  generatedImage: "function", store: "function", load: "function", notify: "function", setTimeout: "function",
  clearTimeout: "function", yield_control: "function", exit: "function" };
const wrong = Object.entries(helpers).filter(([k, type]) => typeof globalThis[k] !== type).map(([k]) => k);
text("wrong helpers: " + wrong.join(","));
text("ALL_TOOLS is array: " + Array.isArray(ALL_TOOLS));
const forbidden = ["console", "Atomics", "SharedArrayBuffer", "WebAssembly", "print", "std", "os", "bjson",
  "navigator", "gc", "performance", "setInterval", "clearInterval", "require", "process", "fetch", "Deno", "Bun"];
text("present: " + forbidden.filter((k) => k in globalThis).join(","));
text("standard: " + [typeof JSON, typeof Promise, typeof Map, typeof eval, typeof Math].join(","));`)
	checkResult(t, "result", r, "1", texts("wrong helpers: ", "ALL_TOOLS is array: true", "present: ",
		"standard: object,function,function,function,object")...)
}

// allowedGlobals is Codex 0.169's global scope, observed on its host: every own property of
// globalThis must be one of these (an engine may lack some, such as Intl, but may add none).
// Temporal, which Codex's baseline had, is absent in 0.169 (docs/protocol/javascript.md#evaluation).
var allowedGlobals = []string{
	"AggregateError", "ALL_TOOLS", "Array", "ArrayBuffer", "AsyncDisposableStack", "BigInt", "BigInt64Array",
	"BigUint64Array", "Boolean", "clearTimeout", "DataView", "Date", "DisposableStack", "Error", "EvalError",
	"FinalizationRegistry", "Float16Array", "Float32Array", "Float64Array", "Function", "Infinity", "Int16Array",
	"Int32Array", "Int8Array", "Intl", "Iterator", "JSON", "Map", "Math", "NaN", "Number", "Object", "Promise",
	"Proxy", "RangeError", "ReferenceError", "Reflect", "RegExp", "Set", "String", "SuppressedError", "Symbol",
	"SyntaxError", "TypeError", "URIError", "Uint16Array", "Uint32Array", "Uint8Array",
	"Uint8ClampedArray", "WeakMap", "WeakRef", "WeakSet", "as_settled", "audio", "content", "decodeURI", "decodeURIComponent", "encodeURI", "encodeURIComponent", "escape", "exit", "eval",
	"generatedImage", "globalThis", "image", "isFinite", "isNaN", "load", "notify", "parseFloat", "parseInt",
	"setTimeout", "store", "stream_settled", "text", "tools", "undefined", "unescape", "yield_control",
}

func testGlobalScopeOnlyAllowed(t *testing.T, h *harness) {
	f := h.session()
	r := f.run(`text(JSON.stringify(Object.getOwnPropertyNames(globalThis).sort()));`, withTools(functionTool("echo")))
	got := textsOf(t, r)
	if r.Kind != codemode.Result || r.ErrorText != nil || len(got) != 1 {
		t.Fatalf("global scope inspection: %s", describe(r))
	}
	var globals []string
	if err := json.Unmarshal([]byte(got[0]), &globals); err != nil {
		t.Fatalf("global scope inspection returned %q: %v", got[0], err)
	}
	allowed := map[string]bool{}
	for _, g := range allowedGlobals {
		allowed[g] = true
	}
	for _, g := range globals {
		if !allowed[g] {
			t.Errorf("unexpected global %s in %q", g, globals)
		}
	}
}

func testNoConsole(t *testing.T, h *harness) {
	f := h.session()
	r := f.run(`text(typeof console); text(String("console" in globalThis)); text(String(Object.getOwnPropertyNames(globalThis).includes("console")));`)
	checkResult(t, "result", r, "1", texts("undefined", "false", "false")...)
}

func testOutputHelpersReturnUndefined(t *testing.T, h *harness) {
	f := h.session()
	r := f.run(fmt.Sprintf(`const rs = [text("t"), image(%[1]q), audio(%[2]q), generatedImage({ image_url: %[1]q })];
text(rs.map((v) => v === undefined).join(","));`, pngURL, wavURL))
	checkResult(t, "result", r, "1", codemode.InputText{Text: "t"}, image(pngURL, codemode.ImageDetailHigh),
		codemode.InputAudio{AudioURL: wavURL}, image(pngURL, codemode.ImageDetailHigh), codemode.InputText{Text: "true,true,true,true"})
}

func testTextSerializes(t *testing.T, h *harness) {
	f := h.session()
	r := f.run(`text({ a: 1, b: [true, null] }); text([1, "x"]); text(null); text(undefined); text(true); text(1.5); text(12n); text("plain");
text(Symbol("s")); text(() => 1); text({ toJSON() { return undefined; } });`)
	checkResult(t, "result", r, "1",
		texts(`{"a":1,"b":[true,null]}`, `[1,"x"]`, "null", "undefined", "true", "1.5", "12", "plain", "undefined", "undefined", "undefined")...)
}

// A value JSON.stringify rejects makes text() throw, and nothing is appended.
func testTextStringifyErrors(t *testing.T, h *harness) {
	f := h.session()
	r := f.run(`const o = {}; o.self = o;
try { text(o); text("no error"); } catch (e) { text("caught " + (typeof e === "string" ? e : e.constructor.name)); }`)
	got := textsOf(t, r)
	if r.Kind != codemode.Result || r.ErrorText != nil || len(got) != 1 || !strings.HasPrefix(got[0], "caught ") {
		t.Fatalf("result %s, want only the caught stringify error", describe(r))
	}
}

func testImageDefaultDetail(t *testing.T, h *harness) {
	f := h.session()
	r := f.run(fmt.Sprintf(`image(%q); image({ image_url: %q });`, pngURL, pngURL))
	checkResult(t, "result", r, "1", image(pngURL, codemode.ImageDetailHigh), image(pngURL, codemode.ImageDetailHigh))
}

func testImageLowDetail(t *testing.T, h *harness) {
	f := h.session()
	r := f.run(fmt.Sprintf(`image(%[1]q, "low"); image({ image_url: %[1]q, detail: "low" }); image(%[1]q, "LOW");`, pngURL))
	low := image(pngURL, codemode.ImageDetailLow)
	checkResult(t, "result", r, "1", low, low, low)
}

func testImageRawMCPBlock(t *testing.T, h *harness) {
	f := h.session()
	r := f.run(`image({ type: "image", data: "iVBORw0KGgo=", mimeType: "image/png", _meta: { "codex/imageDetail": "original" } });
image({ type: "image", data: "AAAA", mime_type: "image/jpeg" });
image({ type: "image", data: "AAAA" });`)
	checkResult(t, "result", r, "1", image(pngURL, codemode.ImageDetailOriginal),
		image("data:image/jpeg;base64,AAAA", codemode.ImageDetailHigh),
		image("data:application/octet-stream;base64,AAAA", codemode.ImageDetailHigh))
}

func testImageSecondArgOverridesObject(t *testing.T, h *harness) {
	f := h.session()
	r := f.run(fmt.Sprintf(`image({ image_url: %q, detail: "low" }, "original");`, pngURL))
	checkResult(t, "result", r, "1", image(pngURL, codemode.ImageDetailOriginal))
}

func testImageSecondArgOverridesMCP(t *testing.T, h *harness) {
	f := h.session()
	r := f.run(`image({ type: "image", data: "iVBORw0KGgo=", mimeType: "image/png", _meta: { "codex/imageDetail": "original" } }, "auto");`)
	checkResult(t, "result", r, "1", image(pngURL, codemode.ImageDetailAuto))
}

func testImageRejectsRemoteURLs(t *testing.T, h *harness) {
	f := h.session()
	r := f.run(catching(`image("https://example.com/a.png")`) + catching(`image("http://example.com/a.png")`) +
		catching(`generatedImage({ image_url: "https://example.com/a.png" })`))
	msg := thrown("Tool call failed: remote image URLs are not supported in tool outputs. Pass a base64 data URI instead")
	checkResult(t, "result", r, "1", texts(msg, msg, msg)...)
}

func testImageRejectsInvalid(t *testing.T, h *harness) {
	f := h.session()
	r := f.run(catching(`image("ftp://example.com/a.png")`) + catching(`image("not a url")`))
	msg := thrown("Tool call failed: invalid image output. Pass a base64 data URI instead")
	checkResult(t, "result", r, "1", texts(msg, msg)...)
}

func testImageRejectsUnsupportedDetail(t *testing.T, h *harness) {
	f := h.session()
	r := f.run(catching(fmt.Sprintf(`image(%q, "ultra")`, pngURL)) + catching(fmt.Sprintf(`image(%q, 5)`, pngURL)))
	checkResult(t, "result", r, "1", texts(thrown("image detail must be one of: auto, low, high, original"),
		thrown("image detail must be a string when provided"))...)
}

func testImageRejectsResultContainer(t *testing.T, h *harness) {
	f := h.session()
	r := f.run(catching(`image({ content: [{ type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" }], isError: false })`) +
		catching(`image({ type: "text", text: "hi" })`))
	checkResult(t, "result", r, "1",
		texts(thrown("image expects a non-empty image URL string, an object with image_url and optional detail, or a raw MCP image block"),
			thrown(`image only accepts MCP image blocks, got "text"`))...)
}

func testAudioAccepts(t *testing.T, h *harness) {
	f := h.session()
	r := f.run(fmt.Sprintf(`audio(%[1]q); audio({ audio_url: %[1]q }); audio({ type: "audio", data: "UklGRg==", mimeType: "audio/wav" });`, wavURL))
	a := codemode.InputAudio{AudioURL: wavURL}
	checkResult(t, "result", r, "1", a, a, a)
}

func testAudioRejects(t *testing.T, h *harness) {
	f := h.session()
	r := f.run(catching(`audio("https://example.com/a.wav")`) + catching(`audio("file:///tmp/a.wav")`))
	msg := thrown("Tool call failed: invalid audio output. Pass a base64 data URI instead")
	checkResult(t, "result", r, "1", texts(msg, msg)...)
}

func testGeneratedImage(t *testing.T, h *harness) {
	f := h.session()
	r := f.run(fmt.Sprintf(`generatedImage({ image_url: %[1]q, output_hint: "a red square" }); generatedImage({ image_url: %[1]q });`, pngURL))
	checkResult(t, "result", r, "1", image(pngURL, codemode.ImageDetailHigh), codemode.InputText{Text: "a red square"},
		image(pngURL, codemode.ImageDetailHigh))
}

func testAllTools(t *testing.T, h *harness) {
	f := h.session()
	r := f.run(`text(JSON.stringify(ALL_TOOLS)); text(Object.keys(tools).sort().join(","));`,
		withTools(dynamicTool(), functionTool("echo")))
	got := textsOf(t, r)
	if r.Kind != codemode.Result || r.ErrorText != nil || len(got) != 2 {
		t.Fatalf("result %s", describe(r))
	}
	var list []map[string]any
	if err := json.Unmarshal([]byte(got[0]), &list); err != nil {
		t.Fatalf("ALL_TOOLS is not a JSON array: %q", got[0])
	}
	wantList := []map[string]any{
		{"name": "hidden_dynamic_tool", "description": "a dynamic tool"},
		{"name": "echo", "description": "test tool echo"},
	}
	if !sameJSON([]byte(got[0]), mustJSON(wantList)) {
		t.Fatalf("ALL_TOOLS = %s, want %s", got[0], mustJSON(wantList))
	}
	if got[1] != "echo,hidden_dynamic_tool" {
		t.Fatalf("tools has keys %q, want echo,hidden_dynamic_tool", got[1])
	}
}

// Each character that cannot appear in an identifier becomes "_".
func testToolNameNormalization(t *testing.T, h *harness) {
	f := h.session()
	f.rec.Handle("9lives", Returns(`"nine"`))
	r := f.run(`text(ALL_TOOLS.map((t) => t.name).join(" ")); text(await tools._lives({}));`,
		withTools(functionTool("9lives"), functionTool("a.b-c d"), functionTool("$ok_1")))
	checkResult(t, "result", r, "1", texts("_lives a_b_c_d $ok_1", "nine")...)
	calls := f.rec.ToolCalls()
	if len(calls) != 1 || calls[0].Call.ToolName.Name != "9lives" {
		t.Fatalf("the call through the normalized name must report the tool's own name, got %+v", calls)
	}
}

// An empty name becomes "_". A transport may refuse the definition instead: Codex's gRPC host
// requires non-empty tool names (docs/protocol/grpc.md#identifiers-and-validation), so over gRPC Execute fails and the case is skipped.
func testEmptyToolNameNormalization(t *testing.T, h *harness) {
	f := h.session()
	c, err := f.tryExecute(`text(ALL_TOOLS.map((t) => t.name).join(" "));`, withTools(functionTool("")))
	if err != nil {
		t.Skipf("the provider refuses an empty tool name: %v", err)
	}
	checkResult(t, "result", f.initial(c), c.CellID, texts("_")...)
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// A timer a script awaits runs; a timer nobody awaits neither runs nor keeps the cell alive
// (it would otherwise hold the Result for an hour and outlive opTimeout).
func testSetTimeout(t *testing.T, h *harness) {
	f := h.session()
	r := f.run(`
const first = setTimeout(() => {}, 0);
const second = setTimeout(() => {}, 0);
text(typeof first + " " + first + " " + second);
await new Promise((resolve) => setTimeout(resolve, 10));
text("after timer");
setTimeout(() => text("never"), 3600000);
` + catching(`setTimeout("text('x')", 0)`))
	checkResult(t, "result", r, "1", texts("number 1 2", "after timer", thrown("setTimeout expects a function callback"))...)
}

func testClearTimeout(t *testing.T, h *harness) {
	f := h.session()
	r := f.run(`const id = setTimeout(() => text("cleared timer ran"), 0);
clearTimeout(id); clearTimeout(undefined); clearTimeout(null); clearTimeout(-1);
await new Promise((resolve) => setTimeout(resolve, 20));
text("done");`)
	checkResult(t, "result", r, "1", texts("done")...)
}

// A static import fails the cell with "Unsupported import in exec: {specifier}"; a dynamic one
// rejects with Codex 0.169's "unsupported import in exec", a string without the specifier.
func testImportsUnsupported(t *testing.T, h *harness) {
	f := h.session()
	const message = "Unsupported import in exec: fs"
	r := f.run(`import fs from "fs"; text("imported");`)
	if r.Kind != codemode.Result || r.ErrorText == nil || !strings.Contains(*r.ErrorText, message) || len(r.ContentItems) != 0 {
		t.Fatalf("static import: %s, want a failed Result mentioning %q", describe(r), message)
	}
	r = f.run(`try { await import("fs"); text("imported"); } catch (e) { text(typeof e + ": " + e); }`)
	checkResult(t, "dynamic import", r, "2", texts("string: unsupported import in exec")...)
}
