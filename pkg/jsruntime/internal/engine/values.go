package engine

import (
	"encoding/json"
	"errors"
	"strings"
	"unicode/utf8"
)

// Values crossing between Go and QuickJS: allocations in wasm memory, strings and JSON in, strings
// and exceptions out.

// malloc allocates n bytes of wasm memory.
func (h *heap) malloc(n uint32) (uint32, error) {
	p, err := h.w.call(exMalloc, uint64(n))
	if err != nil {
		return 0, err
	}
	if p == 0 {
		return 0, errors.New("javascript runtime: out of memory")
	}
	return uint32(p), nil
}

// cString copies s into a new NUL-terminated allocation.
func (h *heap) cString(s string) (uint64, error) {
	p, err := h.malloc(uint32(len(s) + 1))
	if err != nil {
		return 0, err
	}
	return uint64(p), h.w.writeCString(p, s)
}

// free releases a JS value; undefined needs no release.
func (h *heap) free(v uint64) {
	if v != jsUndefined && v != 0 {
		_, _ = h.w.call(exFreeValue, h.jsctx, v)
	}
}

// newString makes a JS string of s. QuickJS's string constructors exported to wasm read C strings,
// which end at the first NUL, so a string holding NUL (code that eval builds at run time, say) is
// made by parsing it as a JSON string instead, whose escapes carry NUL intact.
func (h *heap) newString(s string) (uint64, error) {
	if strings.IndexByte(s, 0) >= 0 {
		return h.fromCString(exParseJSON, jsonQuote(s))
	}
	return h.fromCString(exNewString, s)
}

// smallJSON is the size below which an entry point receives JSON as a string to parse itself:
// QJS_ParseJSON costs about 2 µs more than JSON.parse for a few bytes, and saves a pass over the
// data for large ones.
const smallJSON = 4 << 10

// jsonArgument makes the argument of an entry point from the JSON text s: the text itself when
// it is small, else its parsed value.
func (h *heap) jsonArgument(s string) (uint64, error) {
	if len(s) < smallJSON {
		return h.newString(s)
	}
	return h.parseJSON(s)
}

// parseJSON makes the JS value of the JSON text s, which has no NUL (Go's encoders escape it).
func (h *heap) parseJSON(s string) (uint64, error) {
	if strings.IndexByte(s, 0) >= 0 {
		return 0, errors.New("javascript runtime: JSON with NUL crosses into QuickJS")
	}
	return h.fromCString(exParseJSON, s)
}

// fromCString calls maker(ctx, s as a C string) and returns the value it makes: s is written to
// the scratch buffer, or to an allocation of its own when it does not fit.
func (h *heap) fromCString(maker export, s string) (uint64, error) {
	ptr := h.scratch
	if len(s)+1 > scratchSize {
		p, err := h.malloc(uint32(len(s) + 1))
		if err != nil {
			return 0, err
		}
		defer h.w.call(exFree, uint64(p))
		ptr = p
	}
	if err := h.w.writeCString(ptr, s); err != nil {
		return 0, err
	}
	v, err := h.w.call(maker, h.jsctx, uint64(ptr))
	if err == nil && valueTag(v) == tagException {
		err = h.takeException()
	}
	return v, err
}

// jsonQuote returns s as a JSON string: NUL and the other control characters escaped, nothing
// else changed (json.Marshal would also escape <, > and &).
func jsonQuote(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}

// readString returns the text of the JS string v and releases the C copy QuickJS made of it. It
// does not free v. The copy is a C string, so the text ends at its first NUL: the prelude sends
// only JSON, whose strings escape NUL. A lone surrogate, which the copy encodes as the three bytes
// of its code point (WTF-8, as a forged message could hold one), becomes U+FFFD, so that the text
// is valid UTF-8 for whatever carries it on (protobuf refuses anything else).
func (h *heap) readString(v uint64) (string, error) {
	packed, err := h.w.call(exToCString, h.jsctx, v)
	if err != nil {
		return "", err
	}
	if packed == 0 {
		return "", h.takeException()
	}
	ptrLen, err := h.w.readU64(uint32(packed))
	if err != nil {
		return "", err
	}
	addr, n := uint32(ptrLen>>32), uint32(ptrLen)
	b, err := h.w.view(addr, n)
	if err != nil {
		return "", err
	}
	s := wellFormed(b)
	if _, err := h.w.call(exFreeCString, h.jsctx, uint64(addr)); err != nil {
		return "", err
	}
	_, err = h.w.call(exFree, packed)
	return s, err
}

// wellFormed returns b as a string with every byte sequence that is not UTF-8 replaced by U+FFFD:
// one replacement per lone surrogate (ED A0–BF xx), as Go's JSON decoder does for an escaped one,
// and one per other invalid byte.
func wellFormed(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var out strings.Builder
	out.Grow(len(b) + 8)
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n == 1 {
			if len(b) >= 3 && b[0] == 0xED && b[1]&0xE0 == 0xA0 && b[2]&0xC0 == 0x80 {
				n = 3
			}
			out.WriteRune(utf8.RuneError)
		} else {
			out.Write(b[:n])
		}
		b = b[n:]
	}
	return out.String()
}

// takeException takes the pending exception and renders it with the prelude's errorText, which
// arrives quoted as JSON so that NUL survives.
func (h *heap) takeException() error {
	exc, err := h.w.call(exGetException, h.jsctx)
	if err != nil {
		return err
	}
	defer h.free(exc)
	if h.entry.describe == 0 {
		return errors.New("javascript exception during runtime setup")
	}
	if err := h.w.writeU64(h.argv, exc); err != nil {
		return err
	}
	text, err := h.w.call(exCall, h.jsctx, h.entry.describe, jsUndefined, 1, uint64(h.argv))
	if err != nil {
		return err
	}
	defer h.free(text)
	if valueTag(text) != tagString {
		return errors.New("uncaught exception")
	}
	s, err := h.readText(text)
	if err != nil {
		return err
	}
	var unquoted string
	if json.Unmarshal([]byte(s), &unquoted) == nil {
		s = unquoted
	}
	return &jsError{text: s}
}

// jsError is a JavaScript exception, as error text.
type jsError struct{ text string }

func (e *jsError) Error() string { return e.text }
