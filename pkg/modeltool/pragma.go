package modeltool

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/codemodehq/codemode/pkg/serdejson"
)

// pragmaPrefix starts the optional first line of an exec input that carries options.
const pragmaPrefix = "// @exec:"

// maxJSSafeInteger is Number.MAX_SAFE_INTEGER, the largest pragma value Codex accepts.
const maxJSSafeInteger uint64 = 1<<53 - 1

// The pragma error texts of Codex's parse_exec_source. Each is model-visible.
const (
	errTextEmptySource = "exec expects raw JavaScript source text (non-empty). Provide JS only, " +
		"optionally with first-line `// @exec: {\"yield_time_ms\": 10000, \"max_output_tokens\": 1000}`."
	errTextPragmaWithoutSource = "exec pragma must be followed by JavaScript source on subsequent lines"
	errTextPragmaNotObject     = "exec pragma must be a JSON object with supported fields " +
		"`yield_time_ms` and `max_output_tokens`"
	errTextPragmaInvalidJSON = "exec pragma must be valid JSON with supported fields " +
		"`yield_time_ms` and `max_output_tokens`: "
	errTextPragmaUnknownField = "exec pragma only supports `yield_time_ms` and `max_output_tokens`; got `%s`"
	errTextPragmaNotIntegers  = "exec pragma fields `yield_time_ms` and `max_output_tokens` " +
		"must be non-negative safe integers: "
	errTextPragmaUnsafeInteger = "exec pragma field `%s` must be a non-negative safe integer"
)

// execSourceError is a rejection of exec input by ParseExecSource. Its text is Codex's,
// meant to be returned to the model verbatim.
type execSourceError struct {
	msg string
}

// Error returns the model-visible text.
func (e *execSourceError) Error() string { return e.msg }

func sourceError(msg string) error { return &execSourceError{msg: msg} }

func sourceErrorf(format string, args ...any) error {
	return &execSourceError{msg: fmt.Sprintf(format, args...)}
}

// ExecSource is the parsed input of the exec tool.
type ExecSource struct {
	// Code is the JavaScript module source, without the pragma line.
	Code string
	// YieldTimeMs is the pragma's yield_time_ms, nil when absent (or null).
	YieldTimeMs *uint64
	// MaxOutputTokens is the pragma's max_output_tokens, nil when absent (or null).
	MaxOutputTokens *uint64
}

// ParseExecSource splits the raw exec tool input into JavaScript and pragma options, with
// Codex's rules and error texts: only the first line (after leading whitespace) may be a
// `// @exec: {json}` pragma; it must be a JSON object with at most the fields yield_time_ms
// and max_output_tokens, each a non-negative integer no larger than 2^53−1, and JavaScript
// must follow on later lines. Without a pragma the input is returned unchanged.
//
// Errors embedding a JSON problem carry serde_json's message, e.g. "expected `,` or `}` at
// line 1 column 20" or "invalid type: string \"10\", expected u64". Known divergence: when the
// pragma names a field twice, serde_json keeps the last value, and so does this parser; object
// keys are checked in byte order, as with serde_json built without its preserve_order feature.
func ParseExecSource(input string) (ExecSource, error) {
	if strings.TrimSpace(input) == "" {
		return ExecSource{}, sourceError(errTextEmptySource)
	}
	firstLine, rest, _ := strings.Cut(input, "\n")
	pragma, found := strings.CutPrefix(strings.TrimLeftFunc(firstLine, unicode.IsSpace), pragmaPrefix)
	if !found {
		return ExecSource{Code: input}, nil
	}
	if strings.TrimSpace(rest) == "" {
		return ExecSource{}, sourceError(errTextPragmaWithoutSource)
	}
	directive := strings.TrimSpace(pragma)
	if directive == "" {
		return ExecSource{}, sourceError(errTextPragmaNotObject)
	}
	value, err := serdejson.Parse([]byte(directive))
	if err != nil {
		return ExecSource{}, sourceError(errTextPragmaInvalidJSON + err.Error())
	}
	object := value.AsObject()
	if object == nil {
		return ExecSource{}, sourceError(errTextPragmaNotObject)
	}
	for _, key := range object.Keys() {
		if key != "yield_time_ms" && key != "max_output_tokens" {
			return ExecSource{}, sourceErrorf(errTextPragmaUnknownField, key)
		}
	}
	// serde deserializes the struct fields in the map's (sorted) key order.
	maxOutputTokens, err := optionalUnsigned(object.Get("max_output_tokens"), "usize")
	if err != nil {
		return ExecSource{}, sourceError(errTextPragmaNotIntegers + err.Error())
	}
	yieldTimeMs, err := optionalUnsigned(object.Get("yield_time_ms"), "u64")
	if err != nil {
		return ExecSource{}, sourceError(errTextPragmaNotIntegers + err.Error())
	}
	if yieldTimeMs != nil && *yieldTimeMs > maxJSSafeInteger {
		return ExecSource{}, sourceErrorf(errTextPragmaUnsafeInteger, "yield_time_ms")
	}
	if maxOutputTokens != nil && *maxOutputTokens > maxJSSafeInteger {
		return ExecSource{}, sourceErrorf(errTextPragmaUnsafeInteger, "max_output_tokens")
	}
	return ExecSource{Code: rest, YieldTimeMs: yieldTimeMs, MaxOutputTokens: maxOutputTokens}, nil
}

// optionalUnsigned converts an Option<u64>-typed field: absent or null is nil, a u64 number
// is its value, anything else is serde's invalid type/value error for the Rust type named
// by expected ("u64" or "usize", 64-bit).
func optionalUnsigned(v *serdejson.Value, expected string) (*uint64, error) {
	if v == nil || v.Kind() == serdejson.Null {
		return nil, nil
	}
	if u, ok := v.AsU64(); ok {
		return &u, nil
	}
	if v.Kind() == serdejson.Number && v.NumberKind() == serdejson.NegInt {
		return nil, fmt.Errorf("invalid value: %s, expected %s", v.Unexpected(), expected)
	}
	return nil, fmt.Errorf("invalid type: %s, expected %s", v.Unexpected(), expected)
}
