package jsruntime

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"

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

// v8Stack answers the stack hook: payload is JSON [name, message, [[fn, file, line, col,
// native, called], ...]]; the reply is JSON [message, frames text].
func (r *cellRun) v8Stack(payload string) engine.Reply {
	name, message, frames, ok := decodeStack(payload)
	if !ok {
		r.Fault(forged("malformed stack message"))
		return engine.TypeError(forgedMessageText)
	}
	if r.sites == nil && r.code != "" {
		r.sites = jssource.NewSites(r.code)
	}
	msg, text := rewriteError(r.sites, name, message, frames)
	b, _ := json.Marshal([2]string{msg, text})
	return engine.String(string(b))
}

func decodeStack(payload string) (name, message string, frames []errorFrame, ok bool) {
	var raw [3]json.RawMessage
	if json.Unmarshal([]byte(payload), &raw) != nil || json.Unmarshal(raw[0], &name) != nil || json.Unmarshal(raw[1], &message) != nil {
		return "", "", nil, false
	}
	var list [][6]any
	if json.Unmarshal(raw[2], &list) != nil {
		return "", "", nil, false
	}
	for _, f := range list {
		fn, _ := f[0].(string)
		file, _ := f[1].(string)
		line, _ := f[2].(float64)
		col, _ := f[3].(float64)
		native, _ := f[4].(bool)
		called, _ := f[5].(bool)
		frames = append(frames, errorFrame{fn: fn, file: file, line: int(line), col: int(col), native: native, called: called})
	}
	return name, message, frames, true
}

// readFailure is QuickJS's text for a property read of undefined or null.
var readFailure = regexp.MustCompile(`^cannot read property '(.*)' of (undefined|null)$`)

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
}

// digitsTexts are V8's messages for a digits argument out of range, by method.
var digitsTexts = map[string]string{
	"toFixed":       "toFixed() digits argument must be between 0 and 100",
	"toPrecision":   "toPrecision() argument must be between 1 and 100",
	"toExponential": "toExponential() argument must be between 0 and 100",
}

// rewriteError returns V8's message and frames for an error QuickJS created. sites is nil when
// the cell has no code (an error before the module loaded).
func rewriteError(sites *jssource.Sites, name, message string, frames []errorFrame) (string, string) {
	prop := ""
	if m := readFailure.FindStringSubmatch(message); m != nil && name == "TypeError" {
		prop = m[1]
		message = "Cannot read properties of " + m[2] + " (reading '" + m[1] + "')"
	} else if v8, ok := fixedTexts[[2]string{name, message}]; ok {
		message = v8
	}
	var top jssource.Site
	topOK := false
	if len(frames) > 0 && !frames[0].native && !frames[0].called && frames[0].file == jssource.ModuleFile && sites != nil {
		top, topOK = sites.At(frames[0].line, frames[0].col, true, prop)
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
	case name == "TypeError" && strings.HasSuffix(message, " is read-only") && topOK && top.Assignment:
		message = "Assignment to constant variable."
	case name == "TypeError" && message == "class constructors must be invoked with 'new'" && len(frames) > 1 && frames[0].fn != "":
		message = "Class constructor " + frames[0].fn + " cannot be invoked without 'new'"
		frames = frames[1:]
		topOK = false
	case name == "TypeError" && message == "cannot convert BigInt to number":
		message = "Cannot mix BigInt and other types, use explicit conversions"
		if len(frames) > 0 && frames[0].native {
			message = "Cannot convert a BigInt value to a number"
		}
	case name == "URIError" && len(frames) > 0 && frames[0].native:
		message = "URI malformed"
	case name == "RangeError" && message == "invalid number of digits" && len(frames) > 0 && frames[0].native && digitsTexts[frames[0].fn] != "":
		message = digitsTexts[frames[0].fn]
	}
	var b strings.Builder
	for i, f := range frames {
		if f.native && (f.fn == "Array" || f.fn == "concat" && i == 0 && message == "Cannot convert a Symbol value to a string") {
			continue // V8 shows no frame for its Array constructor, nor for a template's conversions
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
	return message, b.String()
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
	return f.fn
}
