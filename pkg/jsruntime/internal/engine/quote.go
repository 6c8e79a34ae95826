package engine

import (
	"encoding/binary"
	"errors"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/codemodehq/codemode/pkg/serdejson"
)

// Strings out of QuickJS as JSON, quoted by Go (ADR 62). A long string of a tool input used to be
// quoted by JSON.stringify in wasm (about 10 ns a character) and then scanned again in JavaScript
// and in Go; the prelude now hands it out through its part entry point while its bridge message
// says how many there are (QuoteParts), and Go quotes it straight from QuickJS's memory, once,
// exactly as JSON.stringify would have: the escapes
// \" \\ \b \f \n \r \t, \u00xx for the other control characters, \udxxx for a lone surrogate, every
// other character as itself in UTF-8. quoteProbes check that against QuickJS's own JSON.stringify
// when the engine is installed (verifyQuoting).

// quoteProbes are the strings install quotes both ways: every escape, both widths, pairs and lone
// surrogates of both kinds, DEL, Latin-1 and U+2028.
var quoteProbes = []string{
	`"a\"b\\c/\b\f\n\r\t\0\x01\x1f\x7f\xe9\xff" + "z".repeat(3)`,
	`"\u20ac\"\\\n\0\ud800x\udc00\ud83d\ude00\u2028\ud800"`,
	`"\udfff"`,
	`""`,
	`"".padEnd(5000, "\u00ff\u0041\u0000\"")`,
}

// maxParts bounds the strings one QuoteParts call takes.
const maxParts = 1 << 16

// QuoteParts takes n strings from the prelude's part entry point, one call each, and returns
// their JSON. It runs inside a bridge call (Host.Serve), on the goroutine running the engine. A
// value that is not a string is a forged message.
func (e *Engine) QuoteParts(n int) ([][]byte, error) {
	if n < 0 || n > maxParts {
		return nil, Forged("%d strings to quote", n)
	}
	quoted := make([][]byte, 0, n)
	for range n {
		v, err := e.w.call(exCall, e.jsctx, e.entry.part, jsUndefined, 0, 0)
		if err != nil {
			return nil, err
		}
		if valueTag(v) != tagString {
			e.free(v)
			return nil, Forged("part %d of %d is not a string", len(quoted)+1, n)
		}
		q, err := e.quoteText(nil, v)
		e.free(v)
		if err != nil {
			return nil, err
		}
		quoted = append(quoted, q)
	}
	return quoted, nil
}

// errNotFlat reports a string whose characters are not in one block of memory (a rope).
var errNotFlat = errors.New("javascript runtime: not a flat string")

// quoteText appends the JSON of the JS string v to dst: read from memory when the string is flat,
// else QuickJS's own JSON.stringify of it. It does not free v.
func (h *heap) quoteText(dst []byte, v uint64) ([]byte, error) {
	if valueTag(v) != tagString {
		return dst, errors.New("javascript runtime: not a string")
	}
	if h.directQuote {
		if out, err := h.quoteFlat(dst, uint32(v)); err == nil {
			return out, nil
		}
	}
	quoted, err := h.callValue(h.quoteFn, v, "")
	if err != nil {
		return dst, err
	}
	defer h.free(quoted)
	// JSON.stringify's output escapes every lone surrogate, so reading it as text loses nothing.
	text, err := h.readText(quoted)
	return append(dst, text...), err
}

// quoteFlat appends the JSON of the flat JSString at ptr to dst.
func (h *heap) quoteFlat(dst []byte, ptr uint32) ([]byte, error) {
	hdr, err := h.w.view(ptr, stringDataOffset)
	if err != nil {
		return dst, errNotFlat
	}
	word := binary.LittleEndian.Uint32(hdr[stringLengthOffset:])
	n := word &^ stringWide
	if word&stringWide == 0 {
		b, err := h.w.view(ptr+stringDataOffset, n)
		if err != nil {
			return dst, errNotFlat
		}
		return quoteLatin1(dst, b), nil
	}
	b, err := h.w.view(ptr+stringDataOffset, 2*n)
	if err != nil || 2*n < n {
		return dst, errNotFlat
	}
	return quoteUTF16(dst, b), nil
}

// quoteClass classifies a Latin-1 byte for quoting: 0 as itself, 1 escaped, 2 two UTF-8 bytes.
var quoteClass = func() (t [256]byte) {
	for c := range 0x20 {
		t[c] = 1
	}
	t['"'], t['\\'] = 1, 1
	for c := 0x80; c < 0x100; c++ {
		t[c] = 2
	}
	return t
}()

// quoteLatin1 appends the JSON of Latin-1 characters to dst, copying runs that need nothing at once.
func quoteLatin1(dst, b []byte) []byte {
	dst = growFor(dst, len(b)+2)
	dst = append(dst, '"')
	for {
		n := serdejson.PlainASCIIPrefix(b)
		dst = append(dst, b[:n]...)
		if n == len(b) {
			return append(dst, '"')
		}
		if c := b[n]; quoteClass[c] == 1 {
			dst = serdejson.AppendEscape(dst, c)
		} else {
			dst = utf8.AppendRune(dst, rune(c))
		}
		b = b[n+1:]
	}
}

// quoteUTF16 appends the JSON of little-endian UTF-16 code units to dst.
func quoteUTF16(dst, b []byte) []byte {
	dst = growFor(dst, len(b)/2*3/2+2)
	dst = append(dst, '"')
	for i := 0; i+1 < len(b); i += 2 {
		r := rune(binary.LittleEndian.Uint16(b[i:]))
		switch {
		case r < 0x80 && quoteClass[r] == 0:
			dst = append(dst, byte(r))
		case r < 0x20 || r == '"' || r == '\\':
			dst = serdejson.AppendEscape(dst, byte(r))
		case utf16.IsSurrogate(r):
			if r < 0xDC00 && i+3 < len(b) {
				if pair := utf16.DecodeRune(r, rune(binary.LittleEndian.Uint16(b[i+2:]))); pair != utf8.RuneError {
					dst = utf8.AppendRune(dst, pair)
					i += 2
					continue
				}
			}
			dst = appendU(dst, r)
		default:
			dst = utf8.AppendRune(dst, r)
		}
	}
	return append(dst, '"')
}

// appendU appends \uxxxx with lowercase hexadecimal digits, as JSON.stringify writes a lone
// surrogate; its other escapes are serde_json's too (serdejson.AppendEscape).
func appendU(dst []byte, r rune) []byte {
	const hex = "0123456789abcdef"
	return append(dst, '\\', 'u', hex[r>>12&15], hex[r>>8&15], hex[r>>4&15], hex[r&15])
}

// growFor makes room for n more bytes in dst at once (one allocation for a long string).
func growFor(dst []byte, n int) []byte {
	if cap(dst)-len(dst) >= n {
		return dst
	}
	out := make([]byte, len(dst), len(dst)+n)
	copy(out, dst)
	return out
}

// verifyQuoting checks quoteFlat against QuickJS's own JSON.stringify of quoteProbes.
func (h *heap) verifyQuoting() bool {
	for _, src := range quoteProbes {
		v, err := h.evalSource("codemode_quote_probe.js", src)
		if err != nil {
			return false
		}
		got, flatErr := h.quoteFlat(nil, uint32(v))
		want, err := h.callValue(h.quoteFn, v, "")
		h.free(v)
		if err != nil {
			return false
		}
		wantText, err := h.readText(want)
		h.free(want)
		if flatErr != nil || err != nil || string(got) != wantText {
			return false
		}
	}
	return true
}
