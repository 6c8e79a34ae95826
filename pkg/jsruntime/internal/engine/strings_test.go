package engine

import (
	"strings"
	"testing"
)

// TestEngineStringsAreValidUTF8 reads JavaScript strings and exceptions straight from an engine.
// QuickJS's C copy of a string encodes a lone surrogate as WTF-8, which is not UTF-8 and which
// protobuf refuses: readString replaces each with U+FFFD. Exception texts (a cell's syntax error
// takes that path) arrive quoted as JSON, so they also keep NUL.
func TestEngineStringsAreValidUTF8(t *testing.T) {
	e := newTestEngine(t)
	for src, want := range map[string]string{
		`"a\uD800b\uDC00\uDC00c"`:    "a\uFFFDb\uFFFD\uFFFDc",
		`"\uD83D\uDE00\uFFFD\uDBFF"`: "\U0001F600\uFFFD\uFFFD",
	} {
		v, err := e.evalSource("strings.js", src)
		if err != nil {
			t.Fatal(err)
		}
		got, err := e.readString(v)
		e.free(v)
		if err != nil || got != want {
			t.Errorf("%s: %q %v, want %q", src, got, err, want)
		}
	}
	for src, want := range map[string]string{
		`throw new Error("x\uD800y")`: "Error: x\uFFFDy\n    at ",
		`throw new Error("x\0y")`:     "Error: x\x00y\n    at ",
		`throw "\0\uDFFF"`:            "\x00\uFFFD",
	} {
		_, err := e.evalSource("strings.js", src)
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: exception text %q, want %q", src, err, want)
		}
	}
}
