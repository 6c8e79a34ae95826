package jsruntime

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/codemodehq/codemode/pkg/jsruntime/internal/engine"
	"github.com/codemodehq/codemode/pkg/jsruntime/internal/jssource"
)

// V8's error texts (docs/adr/0060-v8-error-texts-and-stack-frames.md). The prelude's stack hook
// sends every error QuickJS creates here, with its frames; Go answers with V8's message where
// QuickJS's differs and the frames as V8 prints them, from the cell's printed code
// (jssource.Sites). A cell that creates no error never comes here. docs/runtime-parity.md lists
// every text rewritten, with the parity case that proves it.

// errorFrame is one of QuickJS's call sites, innermost first.
type errorFrame struct {
	fn     string
	file   string
	line   int
	col    int
	native bool
	// called is set when frames of the prelude came before it: it is a call, not where the
	// error was created.
	called bool
}

// v8Stack answers the stack hook: payload is JSON [name, message, constructor name, then for each frame fn, file,
// line, col, flags ("n" native, "c" a call)]. The reply is "=" and the frames text when the
// message stays, else "!", the new message's length in UTF-16 units, ":", the message and the
// frames text: the prelude reads it with slices.
func (r *cellRun) v8Stack(payload string) engine.Reply {
	name, message, ctor, frames, ok := decodeStack(payload)
	if !ok {
		r.Fault(forged("malformed stack message"))
		return engine.TypeError(forgedMessageText)
	}
	if r.sites == nil && r.code != "" {
		r.sites = jssource.NewSites(r.code)
	}
	msg, text := rewriteError(r.sites, name, message, ctor, frames)
	if msg == message {
		return engine.String("=" + text)
	}
	return engine.String("!" + strconv.Itoa(len(utf16.Encode([]rune(msg)))) + ":" + msg + text)
}

func decodeStack(payload string) (name, message, ctor string, frames []errorFrame, ok bool) {
	var list []any
	if json.Unmarshal([]byte(payload), &list) != nil || len(list) < 3 || (len(list)-3)%5 != 0 {
		return "", "", "", nil, false
	}
	name, ok1 := list[0].(string)
	message, ok2 := list[1].(string)
	ctor, ok3 := list[2].(string)
	if !ok1 || !ok2 || !ok3 {
		return "", "", "", nil, false
	}
	// QuickJS gives as many frames as Error.stackTraceLimit, which the script sets: the frames past
	// maxErrorFrames are dropped, so that no error costs Go more than that many frames' reading.
	for i := 3; i < len(list) && len(frames) < maxErrorFrames; i += 5 {
		fn, _ := list[i].(string)
		file, _ := list[i+1].(string)
		line, _ := list[i+2].(float64)
		col, _ := list[i+3].(float64)
		flags, _ := list[i+4].(string)
		frames = append(frames, errorFrame{fn: fn, file: file, line: int(line), col: int(col), native: flags == "n", called: flags == "c"})
	}
	return name, message, ctor, frames, true
}

// maxErrorFrames is the most frames an error's stack shows (V8 shows 10 by default).
const maxErrorFrames = 100

// accessFailure returns the property and the value of QuickJS's text for a property access of
// undefined or null, where verb is "read" ("cannot read property 'x' of undefined") or "set".
func accessFailure(message, verb string) (prop, of string, ok bool) {
	rest, found := strings.CutPrefix(message, "cannot "+verb+" property '")
	if !found {
		return "", "", false
	}
	for _, of := range []string{"undefined", "null"} {
		if p, found := strings.CutSuffix(rest, "' of "+of); found {
			return p, of, true
		}
	}
	return "", "", false
}

// fixedTexts are QuickJS's messages whose V8 text needs nothing from the code: name and
// QuickJS's message to V8's message.
var fixedTexts = map[[2]string]string{
	{"TypeError", "empty array"}:                            "Reduce of empty array with no initial value",
	{"RangeError", "invalid array length"}:                  "Invalid array length",
	{"TypeError", "BigInt are forbidden in JSON.stringify"}: "Do not know how to serialize a BigInt",
	{"TypeError", "circular reference"}:                     "Converting circular structure to JSON",
	{"TypeError", "cannot convert symbol to string"}:        "Cannot convert a Symbol value to a string",
	{"TypeError", "toPrimitive"}:                            "Cannot convert object to primitive value",
	{"TypeError", "invalid 'instanceof' right operand"}:     "Right-hand side of 'instanceof' is not an object",
	{"RangeError", "Date value is NaN"}:                     "Invalid time value",
	{"TypeError", "invalid value used as WeakMap key"}:      "Invalid value used as weak map key",
	{"TypeError", "invalid value used in WeakSet"}:          "Invalid value used in weak set",
	{"RangeError", "bad normalization form"}:                "The normalization form should be one of NFC, NFD, NFKC, NFKD.",
	{"RangeError", "BigInt division by zero"}:               "Division by zero",
}

// readOnlyGlobals are the global object's read-only properties: assigning one is not assigning a
// constant.
var readOnlyGlobals = map[string]bool{"undefined": true, "NaN": true, "Infinity": true}

// digitsTexts are V8's messages for a digits argument out of range, by method.
var digitsTexts = map[string]string{
	"toFixed":       "toFixed() digits argument must be between 0 and 100",
	"toPrecision":   "toPrecision() argument must be between 1 and 100",
	"toExponential": "toExponential() argument must be between 0 and 100",
}

// rewriteError returns V8's message and frames for an error QuickJS created; ctor names the
// error's constructor. sites is nil when the cell has no code (an error before the module loaded).
func rewriteError(sites *jssource.Sites, name, message, ctor string, frames []errorFrame) (string, string) {
	message0 := message
	prop := ""
	if p, of, ok := accessFailure(message, "read"); ok && name == "TypeError" {
		prop = p
		message = "Cannot read properties of " + of + " (reading '" + p + "')"
	} else if p, of, ok := accessFailure(message, "set"); ok && name == "TypeError" {
		message = "Cannot set properties of " + of + " (setting '" + p + "')"
	} else if v, ok := strings.CutSuffix(message, " is not initialized"); ok && name == "ReferenceError" {
		message = "Cannot access '" + v + "' before initialization"
	} else if v8, ok := fixedTexts[[2]string{name, message}]; ok {
		message = v8
	}
	var top jssource.Site
	topOK, scriptMade := false, false
	// topFrame: the error was made in the cell's own code, whose position Sites can read.
	topFrame := len(frames) > 0 && !frames[0].native && !frames[0].called && frames[0].file == jssource.ModuleFile && sites != nil
	if topFrame {
		top, topOK = sites.At(frames[0].line, frames[0].col, true, prop)
		if message == "not a function" && (!topOK || top.Callee == "") {
			// QuickJS reports a call with arguments inside them: the call is the one open there.
			top, topOK = sites.At(frames[0].line, frames[0].col, false, "")
		}
		// An error the script made (new TypeError(…), TypeError(…)), which QuickJS may report
		// inside its arguments.
		if st, ok := sites.EnclosingConstruction(frames[0].line, frames[0].col, ctor, message0); ok {
			top, topOK = st, true
			scriptMade = true
		}
	}
	if name == "AggregateError" && message == "" && !scriptMade && !(len(frames) > 0 && frames[0].native && constructingNatives[frames[0].fn]) {
		// Promise.any's rejection, which QuickJS makes without a message; V8 makes it in a
		// microtask, without frames.
		return "All promises were rejected", ""
	}
	if len(frames) == 0 || frames[0].native && constructingNatives[frames[0].fn] {
		// No frame to tell the engine's error from the script's (Error.stackTraceLimit = 0), or a
		// native that calls the script's constructor (Reflect.construct(TypeError, …)).
		scriptMade = true
	}
	if scriptMade {
		// A script's or a library's own message never changes: only its frames are V8's, which
		// show no frame for the Reflect.construct that called the constructor.
		if len(frames) > 1 && frames[0].native && frames[0].fn == "construct" {
			frames = frames[1:]
			frames[0].called = true
		}
		return message0, v8Frames(sites, frames, top, topOK, false, message0)
	}
	// QuickJS's own SyntaxErrors (a module that does not link, JSON.parse) are at the position
	// its parser reports, which is no call site to map.
	rawTop := name == "SyntaxError" && !(topOK && top.New)
	if rawTop && len(frames) == 1 && frames[0].file == jssource.ModuleFile && sites != nil {
		// The module did not compile: V8 reports its message alone.
		if m := sites.CompileMessage(message, frames[0].line, frames[0].col); m != "" {
			return m, ""
		}
	}
	switch {
	case name == "TypeError" && message == "not a function" && topOK && top.Callee != "":
		if top.New {
			message = top.Callee + " is not a constructor"
		} else {
			message = top.Callee + " is not a function"
		}
	case name == "TypeError" && message == "value is not iterable" && topFrame:
		if text, st, ok := sites.Iterable(frames[0].line, frames[0].col); ok {
			message = text + " is not iterable"
			top, topOK = st, true
		}
	case name == "TypeError" && message == "Cannot convert undefined or null to object" && topFrame:
		if text, st, ok := sites.Destructure(frames[0].line, frames[0].col); ok {
			message = text
			top, topOK = st, true
		}
	case name == "TypeError" && strings.HasSuffix(message, " is read-only") && topOK && top.Assignment:
		message = "Assignment to constant variable."
		if v := strings.TrimSuffix(strings.TrimPrefix(message0, "'"), "' is read-only"); readOnlyGlobals[v] {
			message = "Cannot assign to read only property '" + v + "' of object '#<Object>'"
		}
	case name == "TypeError" && message == "not an object" && len(frames) > 1 && frames[0].native:
		if n := nativeName(sites, frames[0], frames[1:]); strings.HasPrefix(n, "Object.") || strings.HasPrefix(n, "Reflect.") {
			message = n + " called on non-object"
		}
	case name == "TypeError" && message == "Right-hand side of 'instanceof' is not an object":
		if st, ok := operatorSite(sites, frames, topFrame); ok {
			top, topOK = st, true
		}
	case name == "TypeError" && message == "class constructors must be invoked with 'new'" && len(frames) > 1 && frames[0].fn != "":
		message = "Class constructor " + frames[0].fn + " cannot be invoked without 'new'"
		frames = frames[1:]
		topOK = false
	case name == "TypeError" && message == "cannot convert BigInt to number":
		message = "Cannot mix BigInt and other types, use explicit conversions"
		if len(frames) > 0 && frames[0].native {
			message = "Cannot convert a BigInt value to a number"
		}
		if st, ok := operatorSite(sites, frames, topFrame); ok {
			top, topOK = st, true
		}
	case name == "URIError" && len(frames) > 0 && frames[0].native:
		message = "URI malformed"
	case name == "RangeError" && message == "invalid number of digits" && len(frames) > 0 && frames[0].native && digitsTexts[frames[0].fn] != "":
		message = digitsTexts[frames[0].fn]
	}
	if name == "SyntaxError" && len(frames) > 1 && frames[0].file == jssource.EvalFile && frames[0].fn == "" && frames[1].native && frames[1].fn == "parse" {
		// QuickJS's JSON.parse reports where in the text it failed as a frame of its own.
		frames = frames[1:]
	}
	if message == "Cannot convert a Symbol value to a string" {
		if st, ok := operatorSite(sites, frames, topFrame); ok {
			top, topOK = st, true
		}
	}
	return message, v8Frames(sites, frames, top, topOK, rawTop, message)
}

// constructingNatives are the natives that call a function they are given, the script's error
// constructor among them: an error whose innermost frame is one of them may be the script's.
var constructingNatives = map[string]bool{"construct": true, "apply": true, "call": true}

// v8Frames writes frames as V8 prints them; top is V8's site of the innermost frame when topOK,
// rawTop keeps the innermost frame's position as QuickJS reported it.
func v8Frames(sites *jssource.Sites, frames []errorFrame, top jssource.Site, topOK, rawTop bool, message string) string {
	var b strings.Builder
	for i, f := range frames {
		if f.native && (f.fn == "Array" || f.fn == "call" || f.fn == "apply" || f.fn == "concat" && i == 0 && message == "Cannot convert a Symbol value to a string") {
			continue // V8 shows no frame for its Array constructor, Function.prototype.call and apply, nor a template's conversions
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString("    at ")
		switch {
		case f.native:
			b.WriteString(nativeName(sites, f, frames[i+1:]))
			b.WriteString(" (<anonymous>)")
		case f.file == jssource.ModuleFile && sites != nil && !(i == 0 && rawTop):
			line, col := f.line, f.col
			if i == 0 && topOK {
				line, col = top.Line, top.Column
			} else if s, ok := sites.At(f.line, f.col, i == 0 && !f.called, ""); ok {
				line, col = s.Line, s.Column
			}
			writeFrame(&b, sites.FunctionName(f.line, f.col, f.fn), f.file, line, col)
		default:
			writeFrame(&b, f.fn, f.file, f.line, f.col)
		}
	}
	return b.String()
}

// operatorSite is V8's site of a conversion a binary operator failed in the cell's code.
func operatorSite(sites *jssource.Sites, frames []errorFrame, topFrame bool) (jssource.Site, bool) {
	if !topFrame {
		return jssource.Site{}, false
	}
	return sites.OperatorBefore(frames[0].line, frames[0].col)
}

// writeFrame writes V8's "name (file:line:col)", or "file:line:col" for code outside functions.
func writeFrame(b *strings.Builder, name, file string, line, col int) {
	loc := file + ":" + strconv.Itoa(line) + ":" + strconv.Itoa(col)
	if name == "" {
		b.WriteString(loc)
		return
	}
	b.WriteString(name + " (" + loc + ")")
}

// globalHolders are the globals whose methods V8 names with the global's name (JSON.stringify).
var globalHolders = map[string]bool{
	"JSON": true, "Math": true, "Object": true, "Reflect": true, "Array": true, "Number": true, "String": true,
	"Promise": true, "BigInt": true, "Symbol": true, "Date": true,
}

// nativeName is V8's name of a native frame: the callee as the calling frame wrote it when it
// names a global's method (JSON.stringify) or a constructor called with new (new Set), else
// QuickJS's name.
func nativeName(sites *jssource.Sites, f errorFrame, callers []errorFrame) string {
	if sites == nil || len(callers) == 0 || callers[0].native || callers[0].file != jssource.ModuleFile {
		return f.fn
	}
	s, ok := sites.At(callers[0].line, callers[0].col, false, "")
	if !ok || s.Callee == "" {
		return f.fn
	}
	if s.New {
		return "new " + s.Callee
	}
	if holder, method, found := strings.Cut(s.Callee, "."); found && globalHolders[holder] && method == f.fn {
		return s.Callee
	}
	if typ := receiverTypes[f.fn]; typ != "" && strings.HasSuffix(s.Callee, "."+f.fn) {
		return typ + "." + f.fn
	}
	return f.fn
}

// receiverTypes name the type V8 shows before a native method that only one builtin type has
// (V8 names the receiver's type: Array.map).
var receiverTypes = map[string]string{
	"map": "Array", "filter": "Array", "reduce": "Array", "reduceRight": "Array", "find": "Array",
	"findIndex": "Array", "findLast": "Array", "findLastIndex": "Array", "some": "Array", "every": "Array",
	"flatMap": "Array", "forEach": "Array", "sort": "Array", "toSorted": "Array", "splice": "Array", "push": "Array",
	"repeat": "String", "padStart": "String", "padEnd": "String", "normalize": "String",
	"localeCompare": "String", "toISOString": "Date", "toFixed": "Number", "toPrecision": "Number", "toExponential": "Number",
}
