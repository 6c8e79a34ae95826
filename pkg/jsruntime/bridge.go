package jsruntime

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/codemodehq/codemode/pkg/jsruntime/internal/engine"
	"github.com/codemodehq/codemode/pkg/jsruntime/internal/jssource"
)

// The bridge is how the prelude talks to Go: one host function taking one string, an operation
// character followed by its payload. Payloads are JSON built by the prelude from JSON.stringify of
// strings, which escapes NUL and lone surrogates, so no text is cut short or mangled on the way.
//
// The cell controls everything inside its wasm instance, the prelude and the bridge included, so
// nothing that arrives here is trusted: every message is decoded strictly and checked against the
// same rules the prelude's helpers apply. A message that fails is a forged one; it fails the cell
// with forgedMessageText and is otherwise ignored.

// hostOp is the first character of a bridge message.
type hostOp byte

// The operations. The prelude receives this table (operationsJSON) when it is installed, so the
// two sides share one definition.
const (
	opText     hostOp = 't' // append input_text: a JSON string
	opRawText  hostOp = 'u' // append input_text: the text itself (one without NUL; see emitText)
	opLongText hostOp = 'o' // a text longer than the output limit: its length in UTF-16 units
	opOffer    hostOp = 'v' // a long text about to be sent: its length in UTF-16 units; the reply is its refusal
	opImage    hostOp = 'i' // append input_image: JSON [url, detail]
	opAudio    hostOp = 'a' // append input_audio: a JSON string (the URL)
	opNotify   hostOp = 'n' // deliver a notification: a JSON string
	opYield    hostOp = 'y' // yield_control(): no payload
	opStore    hostOp = 's' // store(): JSON [key, value]
	opLoad     hostOp = 'l' // load(): a JSON string (the key); the reply is the value's JSON
	opEval     hostOp = 'e' // eval(): a JSON string (the source); the reply is the code to run
	opFunction hostOp = 'f' // a function constructor: JSON [kind, [params...], body]
	opDone     hostOp = 'd' // the module's evaluation fulfilled: no payload
	opFail     hostOp = 'x' // the cell failed: a JSON string (the error text)
	opRecords  hostOp = 'r' // queued records to start now, in order: the text take would return
	opCheck    hostOp = 'k' // may serde_json parse this JSON? the reply is its refusal
	opInput    hostOp = 'j' // a tool input: "id skeleton", its long strings beside it; the reply is its refusal
	opExit     hostOp = 'q' // exit(): no payload; the call never returns
	opZone     hostOp = 'z' // a time zone at an instant: "MS ZONE"; the reply is "OFFSET ABBREVIATION" (zones.go)
	opStack    hostOp = 'g' // an error was created: JSON [name, message, frames]; the reply is JSON [message, frames text] (errtext.go)
)

// hostOperations names every operation for the prelude.
var hostOperations = map[string]hostOp{
	"text": opText, "rawText": opRawText, "longText": opLongText, "offer": opOffer, "image": opImage, "audio": opAudio, "notify": opNotify, "yield": opYield,
	"store": opStore, "load": opLoad, "eval": opEval, "function": opFunction, "done": opDone,
	"fail": opFail, "records": opRecords, "check": opCheck, "input": opInput, "exit": opExit, "zone": opZone, "stack": opStack,
}

// operationsJSON is the table as the prelude receives it: {"text": "t", ...}.
func operationsJSON() string {
	table := make(map[string]string, len(hostOperations))
	for name, op := range hostOperations {
		table[name] = string(rune(op))
	}
	b, _ := json.Marshal(table)
	return string(b)
}

// preludeSource is the script that installs the cell's globals and talks to Go over the bridge.
//
//go:embed prelude.js
var preludeSource string

// localeSource installs the cell's en-US locale methods and Intl (docs/adr/0063-en-us-locale-and-a-small-intl.md).
//
//go:embed locale.js
var localeSource string

// thePrelude is the prelude as every engine installs it: named codemode_prelude.js in stack
// traces, and called with the table of operations. It is one block: the locale script's
// statements, the prelude's function, and a function that hands the bridge to the locale script
// (for time zones) before calling the prelude's; the block's value, the script's, is that last
// function. The locale's frames are the prelude's file's, left out of the stacks a cell sees.
func thePrelude() engine.Prelude {
	return engine.Prelude{File: "codemode_prelude.js", Source: composePrelude(localeSource, preludeSource), Argument: operationsJSON()}
}

// composePrelude joins the locale script and the prelude's function (an expression) as thePrelude
// describes.
func composePrelude(locale, prelude string) string {
	return "{\n" + locale + "\nconst installPrelude = " + prelude + ";\n" +
		"(function (host, operations) {\n  connectLocale(host, JSON.parse(operations).zone);\n  return installPrelude(host, operations);\n})\n}\n"
}

// forgedMessageText starts the error text of a cell that sent a message the prelude would never
// send (the engine throws a TypeError with it, see engine.Forged).
const forgedMessageText = engine.ForgedMessageText

// forged reports a forged message: an *engine.ForgedError with the formatted reason.
func forged(format string, args ...any) error { return engine.Forged(format, args...) }

// hostMessage is a decoded, validated bridge message.
type hostMessage struct {
	op hostOp
	// text is the payload of opText, opNotify, opFail, opLoad (key), opEval (source), opAudio
	// (URL), opImage (URL), opRecords (the records), opCheck (the JSON) and opInput (the id and
	// the skeleton).
	text string
	// detail is the image detail of opImage.
	detail string
	// length is the length of opLongText's text, past the output limit.
	length int
	// key and value are the stored value of opStore; value is valid JSON.
	key   string
	value json.RawMessage
	// kind, params and body are the function constructor of opFunction; kind is a
	// jssource.FunctionKind, in the order the prelude lists the constructors.
	kind   int
	params []string
	// instant is opZone's time in milliseconds since the epoch; text is its zone name.
	instant int64
}

// decodeHostMessage parses and validates one message.
func decodeHostMessage(msg string) (hostMessage, error) {
	if msg == "" {
		return hostMessage{}, forged("empty message")
	}
	m := hostMessage{op: hostOp(msg[0])}
	payload := msg[1:]
	var err error
	switch m.op {
	case opRecords, opCheck, opRawText, opInput, opStack:
		m.text = payload
	case opLongText, opOffer:
		m.length, err = decodeLength(payload)
	case opYield, opDone, opExit:
		if payload != "" {
			err = forged("operation %q takes no payload", m.op)
		}
	case opText, opFail, opLoad, opEval:
		m.text, err = decodeJSONString(payload)
	case opNotify:
		m.text, err = decodeNotification(payload)
	case opAudio:
		m.text, err = decodeDataURL(payload, "audio")
	case opImage:
		m.text, m.detail, err = decodeImage(payload)
	case opStore:
		m.key, m.value, err = decodeStore(payload)
	case opFunction:
		m.kind, m.params, m.text, err = decodeFunction(payload)
	case opZone:
		m.instant, m.text, err = decodeZone(payload)
	default:
		err = forged("unknown operation %q", m.op)
	}
	return m, err
}

// decodeLength reads a payload that must be a length in decimal, without sign or leading zero.
func decodeLength(payload string) (int, error) {
	n, err := strconv.Atoi(payload)
	if err != nil || n <= 0 || strconv.Itoa(n) != payload {
		return 0, forged("expected a length, got %.20q", payload)
	}
	return n, nil
}

// decodeJSONString reads a payload that must be exactly one JSON string. Lone surrogates become
// U+FFFD, as V8's JSON.stringify output would when it reaches serde.
func decodeJSONString(payload string) (string, error) {
	if len(payload) < 2 || payload[0] != '"' {
		return "", forged("expected a JSON string")
	}
	var s string
	if err := json.Unmarshal([]byte(payload), &s); err != nil {
		return "", forged("invalid JSON string: %v", err)
	}
	return s, nil
}

func decodeNotification(payload string) (string, error) {
	s, err := decodeJSONString(payload)
	if err == nil && isBlankJS(s) {
		err = forged("notify with blank text")
	}
	return s, err
}

// decodeDataURL reads a JSON string that must be a data: URL.
func decodeDataURL(payload, what string) (string, error) {
	url, err := decodeJSONString(payload)
	if err == nil && !hasDataScheme(url) {
		err = forged("%s URL is not a data: URL", what)
	}
	return url, err
}

func decodeImage(payload string) (url, detail string, err error) {
	parts, err := decodeArray(payload, 2)
	if err != nil {
		return "", "", err
	}
	if url, err = decodeDataURL(string(parts[0]), "image"); err != nil {
		return "", "", err
	}
	if detail, err = decodeJSONString(string(parts[1])); err != nil {
		return "", "", err
	}
	switch detail {
	case "auto", "low", "high", "original":
		return url, detail, nil
	}
	return "", "", forged("image detail %q", detail)
}

// decodeZone reads opZone's payload: an integer number of milliseconds, a space, a zone name.
func decodeZone(payload string) (int64, string, error) {
	ms, zone, ok := strings.Cut(payload, " ")
	n, err := strconv.ParseInt(ms, 10, 64)
	if !ok || err != nil || strconv.FormatInt(n, 10) != ms || zone == "" {
		return 0, "", forged("expected an instant and a time zone, got %.40q", payload)
	}
	return n, zone, nil
}

func decodeStore(payload string) (string, json.RawMessage, error) {
	parts, err := decodeArray(payload, 2)
	if err != nil {
		return "", nil, err
	}
	key, err := decodeJSONString(string(parts[0]))
	if err != nil {
		return "", nil, err
	}
	// JSON.stringify escapes lone surrogates, so the prelude's JSON is UTF-8; raw bytes are kept
	// as they are (a string would have them replaced), and Go's JSON scanner does not check them.
	if !utf8.Valid(parts[1]) {
		return "", nil, forged("stored value is not valid UTF-8")
	}
	return key, parts[1], nil
}

func decodeFunction(payload string) (kind int, params []string, body string, err error) {
	parts, err := decodeArray(payload, 3)
	if err != nil {
		return 0, nil, "", err
	}
	if err := json.Unmarshal(parts[0], &kind); err != nil || kind < int(jssource.PlainFunction) || kind > int(jssource.AsyncGeneratorFunction) {
		return 0, nil, "", forged("function kind %s", parts[0])
	}
	if len(parts[1]) == 0 || parts[1][0] != '[' || json.Unmarshal(parts[1], &params) != nil {
		return 0, nil, "", forged("function parameters are not a list of strings")
	}
	body, err = decodeJSONString(string(parts[2]))
	return kind, params, body, err
}

// decodeArray reads a JSON array of exactly n elements.
func decodeArray(payload string, n int) ([]json.RawMessage, error) {
	if len(payload) == 0 || payload[0] != '[' {
		return nil, forged("expected a JSON array")
	}
	var parts []json.RawMessage
	if err := json.Unmarshal([]byte(payload), &parts); err != nil {
		return nil, forged("invalid JSON array: %v", err)
	}
	if len(parts) != n {
		return nil, forged("expected %d elements, got %d", n, len(parts))
	}
	for _, p := range parts {
		if len(bytes.TrimSpace(p)) == 0 {
			return nil, forged("empty array element")
		}
	}
	return parts, nil
}

// hasDataScheme reports whether url starts with the data: scheme, in any case.
func hasDataScheme(url string) bool {
	return len(url) >= 5 && strings.EqualFold(url[:5], "data:")
}

// isBlankJS reports whether String.prototype.trim would leave s empty: JavaScript's white space
// and line terminators, which differ from Go's unicode.IsSpace (U+FEFF is one, U+0085 is not).
func isBlankJS(s string) bool {
	for _, r := range s {
		switch {
		case r == '\t', r == '\n', r == '\v', r == '\f', r == '\r', r == ' ', r == 0xA0, r == 0xFEFF,
			r == 0x1680, r >= 0x2000 && r <= 0x200A, r == 0x2028, r == 0x2029, r == 0x202F, r == 0x205F,
			r == 0x3000:
		default:
			return false
		}
	}
	return true
}

// decodeCall decodes a bridge message for a handler: a forged one is reported to fault and
// answered with the TypeError every forged message gets; a message whose payload could not be
// read otherwise gets undefined.
func decodeCall(msg string, fault func(error)) (hostMessage, engine.Reply, bool) {
	m, err := decodeHostMessage(msg)
	if err == nil {
		return m, engine.Undefined(), true
	}
	var f *engine.ForgedError
	if errors.As(err, &f) {
		fault(err)
		return m, engine.TypeError(forgedMessageText), false
	}
	return m, engine.Undefined(), false
}
