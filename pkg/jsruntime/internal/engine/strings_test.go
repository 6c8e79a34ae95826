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

// TestReadTextKeepsEveryCharacter reads strings of both widths, with NUL, lone surrogates, pairs
// and a megabyte of text, straight from QuickJS's memory and, with the layout check off, through
// JSON: both give the same UTF-8, every lone surrogate as U+FFFD.
func TestReadTextKeepsEveryCharacter(t *testing.T) {
	e := newTestEngine(t)
	if !e.directStrings {
		t.Fatal("the pinned QuickJS's string layout did not verify")
	}
	cases := map[string]string{
		`"plain"`:                              "plain",
		`"nul\0inside\0"`:                      "nul\x00inside\x00",
		`"caf\u00e9 \u00ff"`:                   "caf\u00e9 \u00ff",
		`"\u20ac \ud83d\ude00 \ud800x \udc00"`: "\u20ac \U0001F600 \uFFFDx \uFFFD",
		`"\ud83d"`:                             "\uFFFD",
		`"x".repeat(1 << 20)`:                  strings.Repeat("x", 1<<20),
		`"\u00e9\u0000".repeat(70000)`:         strings.Repeat("\u00e9\x00", 70000),
		`"".padEnd(70001, "\u4e2d\u0000")`:     strings.Repeat("\u4e2d\x00", 35000) + "\u4e2d",
	}
	for _, direct := range []bool{true, false} {
		e.directStrings = direct
		for src, want := range cases {
			v, err := e.evalSource("text.js", src)
			if err != nil {
				t.Fatal(err)
			}
			got, err := e.readText(v)
			e.free(v)
			if err != nil || got != want {
				t.Errorf("direct %v, %.30s: %.40q %v, want %.40q", direct, src, got, err, want)
			}
		}
	}
}

// A string whose header claims more characters than the memory holds is not read from memory:
// it falls back to JSON, which QuickJS's own code answers.
func TestFlatStringRefusesALengthBeyondTheMemory(t *testing.T) {
	e := newTestEngine(t)
	if _, ok := e.flatString(uint32(len(e.mem.buf)) - 8); ok {
		t.Fatal("a header at the end of the memory was read")
	}
	v, err := e.evalSource("text.js", `"x".repeat(100)`)
	if err != nil {
		t.Fatal(err)
	}
	defer e.free(v)
	hdr, _ := e.w.view(uint32(v), stringDataOffset)
	saved := append([]byte(nil), hdr...)
	hdr[stringLengthOffset+3] = 0x7f // a length of about 2^31 Latin-1 characters
	_, ok := e.flatString(uint32(v))
	copy(hdr, saved)
	if ok {
		t.Fatal("a forged length was read")
	}
}
