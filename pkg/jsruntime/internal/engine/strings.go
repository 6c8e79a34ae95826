package engine

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/codemodehq/codemode/pkg/serdejson"
)

// Strings out of QuickJS, read in Go. QuickJS keeps a flat string as a JSString: a header, then its
// characters, Latin-1 bytes or UTF-16 code units. Reading those and converting them here costs a
// pass in Go; QuickJS's own UTF-8 copy (QJS_ToCString) costs a conversion in wasm, a malloc, a
// strlen, and it ends the text at its first NUL. The header's layout belongs to the pinned QuickJS
// (gen/go/qjswasm is checked against qjs.wasm's digest), and install verifies it on strings of
// both widths before the engine relies on it (layout.directStrings); a string that is not flat (a
// rope) or an engine without the verified layout reads through JSON instead, which keeps NUL too.

// JSString's header on wasm32: the reference count, the length (31 bits) and the width flag (the
// top bit), the hash, hash_next and first_weak_ref; the characters follow it.
const (
	stringLengthOffset = 4
	stringDataOffset   = 20
	stringWide         = 1 << 31
)

// stringProbes are the strings install reads both ways to verify the layout: Latin-1 and UTF-16,
// each with a NUL, and a lone surrogate.
var stringProbes = map[string]string{
	`"a\0\u00e9" + "z".repeat(3)`:           "a\x00\u00e9zzz",
	`"\u20ac\0\ud800" + "\ud83d\ude00"`:     "\u20ac\x00\uFFFD\U0001F600",
	`"".padEnd(5000, "\u00ff\u0041\u0000")`: strings.Repeat("\u00ffA\x00", 1666) + "\u00ffA",
}

// readText returns the text of the JS string v with NUL kept and every lone surrogate replaced by
// U+FFFD. It does not free v.
func (h *heap) readText(v uint64) (string, error) {
	if valueTag(v) != tagString {
		return "", errors.New("javascript runtime: not a string")
	}
	if h.directStrings {
		if s, ok := h.flatString(uint32(v)); ok {
			return s, nil
		}
	}
	return h.stringViaJSON(v)
}

// flatString reads the characters of the JSString at ptr. It reports false when they are not in
// linear memory (a forged or a non-flat value).
func (h *heap) flatString(ptr uint32) (string, bool) {
	hdr, err := h.w.view(ptr, stringDataOffset)
	if err != nil {
		return "", false
	}
	word := binary.LittleEndian.Uint32(hdr[stringLengthOffset:])
	n := word &^ stringWide
	if word&stringWide == 0 {
		b, err := h.w.view(ptr+stringDataOffset, n)
		if err != nil {
			return "", false
		}
		return latin1Text(b), true
	}
	b, err := h.w.view(ptr+stringDataOffset, 2*n)
	if err != nil || 2*n < n {
		return "", false
	}
	return utf16Text(b), true
}

// latin1Text converts Latin-1 bytes to UTF-8.
func latin1Text(b []byte) string {
	ascii := serdejson.ASCIIPrefix(b)
	if ascii == len(b) {
		return string(b)
	}
	out := make([]byte, 0, len(b)+len(b)/4)
	out = append(out, b[:ascii]...)
	for _, c := range b[ascii:] {
		out = utf8.AppendRune(out, rune(c))
	}
	return string(out)
}

// utf16Text converts little-endian UTF-16 code units to UTF-8, each lone surrogate as U+FFFD.
func utf16Text(b []byte) string {
	out := make([]byte, 0, len(b)/2*3/2)
	for i := 0; i+1 < len(b); i += 2 {
		r := rune(binary.LittleEndian.Uint16(b[i:]))
		if utf16.IsSurrogate(r) {
			if r < 0xDC00 && i+3 < len(b) {
				if pair := utf16.DecodeRune(r, rune(binary.LittleEndian.Uint16(b[i+2:]))); pair != utf8.RuneError {
					out = utf8.AppendRune(out, pair)
					i += 2
					continue
				}
			}
			r = utf8.RuneError
		}
		out = utf8.AppendRune(out, r)
	}
	return string(out)
}

// stringViaJSON reads v as JSON.stringify quotes it (NUL and lone surrogates escaped, so the C copy
// holds it whole) and unquotes it. The function is the one install kept, before any cell ran.
func (h *heap) stringViaJSON(v uint64) (string, error) {
	quoted, err := h.callValue(h.quoteFn, v, "")
	if err != nil {
		return "", err
	}
	defer h.free(quoted)
	text, err := h.readString(quoted)
	if err != nil {
		return "", err
	}
	var s string
	if err := json.Unmarshal([]byte(text), &s); err != nil {
		return "", errors.New("javascript runtime: a string's JSON did not read back")
	}
	return s, nil
}

// verifyStringLayout checks flatString against QuickJS's own JSON of stringProbes.
func (h *heap) verifyStringLayout() bool {
	for src, want := range stringProbes {
		v, err := h.evalSource("codemode_strings.js", src)
		if err != nil {
			return false
		}
		got, ok := h.flatString(uint32(v))
		viaJSON, err := h.stringViaJSON(v)
		h.free(v)
		if !ok || err != nil || got != want || viaJSON != want {
			return false
		}
	}
	return true
}
