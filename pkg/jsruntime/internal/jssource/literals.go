package jssource

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// appendString appends the string literal raw (quotes included) in canonical form. QuickJS
// receives source as a C string, so a raw NUL would end the source there: it becomes \x00
// (also after a backslash, where it stands for itself). A line continuation (a backslash and
// a line terminator) becomes a backslash and "\n", and a raw U+2028 or U+2029 its \u escape
// followed by a line continuation: the value does not change, only "\n" ends a line in the
// printed code, and the line count stays the one of the source (JavaScript, and V8's line
// numbers, count U+2028 and U+2029 as line ends wherever they stand).
func appendString(out, raw []byte) []byte {
	for i := 0; i < len(raw); {
		c := raw[i]
		switch {
		case c == '\\' && i+1 < len(raw):
			if n := lineTerminatorLen(raw[i+1:]); n > 0 {
				out = append(out, '\\', '\n')
				i += 1 + n
				continue
			}
			if raw[i+1] == 0 {
				out = append(out, `\x00`...)
				i += 2
				continue
			}
			// Copy the escape's first two bytes as they are; they end no literal.
			out = append(out, c, raw[i+1])
			i += 2
		case c == 0:
			out = append(out, `\x00`...)
			i++
		case isLineSeparator(raw[i:]):
			if raw[i+2] == 0xA8 {
				out = append(out, "\\u2028\\\n"...)
			} else {
				out = append(out, "\\u2029\\\n"...)
			}
			i += 3
		default:
			out = append(out, c)
			i++
		}
	}
	return out
}

// appendTemplate appends a template token raw (from ` or } to ` or ${) in canonical form. A
// raw CR or CRLF becomes "\n": templates normalise both to LF in their cooked and raw values,
// so nothing changes. A raw NUL becomes \x00 (the cooked value is the same; the raw value,
// seen by tags like String.raw, holds the four characters of the escape instead). U+2028 and
// U+2029 stay as they are: an escape would change the raw value.
func appendTemplate(out, raw []byte) []byte {
	for i := 0; i < len(raw); {
		switch c := raw[i]; {
		case c == '\\' && i+1 < len(raw):
			switch raw[i+1] {
			case 0:
				out = append(out, `\x00`...)
				i += 2
			case '\r':
				out = append(out, '\\', '\n')
				i += 1 + lineTerminatorLen(raw[i+1:])
			default:
				out = append(out, c, raw[i+1])
				i += 2
			}
		case c == '\r':
			out = append(out, '\n')
			i += lineTerminatorLen(raw[i:])
		case c == 0:
			out = append(out, `\x00`...)
			i++
		default:
			out = append(out, c)
			i++
		}
	}
	return out
}

// stringValue returns the value of the string literal raw (quotes included), for module
// specifiers. A lone surrogate written as an escape becomes U+FFFD.
func stringValue(raw []byte) string {
	if len(raw) < 2 {
		return ""
	}
	body := string(raw[1 : len(raw)-1])
	if !strings.ContainsRune(body, '\\') {
		return body
	}
	var b strings.Builder
	var high rune // a pending high surrogate from a \u escape
	flush := func() {
		if high != 0 {
			b.WriteRune(utf8.RuneError)
			high = 0
		}
	}
	for i := 0; i < len(body); {
		if body[i] != '\\' || i+1 >= len(body) {
			// Raw text is copied byte for byte (a lone surrogate from QuickJS is WTF-8).
			flush()
			b.WriteByte(body[i])
			i++
			continue
		}
		r, n := escapeValue(body[i+1:])
		i += 1 + n
		switch {
		case r < 0:
			// A line continuation: no character.
		case r >= 0xD800 && r <= 0xDBFF:
			flush()
			high = r
		case r >= 0xDC00 && r <= 0xDFFF && high != 0:
			b.WriteRune(0x10000 + (high-0xD800)<<10 + (r - 0xDC00))
			high = 0
		default:
			flush()
			b.WriteRune(r)
		}
	}
	flush()
	return b.String()
}

// escapeValue decodes the escape sequence after a backslash at the start of s: its code
// point (-1 for a line continuation) and the bytes it spans.
func escapeValue(s string) (rune, int) {
	if n := lineTerminatorLen([]byte(s[:min(len(s), 3)])); n > 0 {
		return -1, n
	}
	switch s[0] {
	case 'n':
		return '\n', 1
	case 't':
		return '\t', 1
	case 'r':
		return '\r', 1
	case 'b':
		return '\b', 1
	case 'f':
		return '\f', 1
	case 'v':
		return '\v', 1
	case 'x':
		if v, err := strconv.ParseUint(s[1:min(len(s), 3)], 16, 32); err == nil && len(s) >= 3 {
			return rune(v), 3
		}
	case 'u':
		return unicodeEscape(s)
	}
	if s[0] >= '0' && s[0] <= '7' {
		return octalEscape(s)
	}
	r, n := utf8.DecodeRuneInString(s)
	return r, n
}

// unicodeEscape decodes \uXXXX or \u{X…} (s starts at the u).
func unicodeEscape(s string) (rune, int) {
	if strings.HasPrefix(s, "u{") {
		if end := strings.IndexByte(s, '}'); end > 2 {
			if v, err := strconv.ParseUint(s[2:end], 16, 32); err == nil && v <= utf8.MaxRune {
				return rune(v), end + 1
			}
		}
		return 'u', 1
	}
	if len(s) >= 5 {
		if v, err := strconv.ParseUint(s[1:5], 16, 32); err == nil {
			return rune(v), 5
		}
	}
	return 'u', 1
}

// octalEscape decodes a legacy octal escape (s starts at its first digit): up to three digits
// with a value below 256.
func octalEscape(s string) (rune, int) {
	v, n := 0, 0
	for n < len(s) && n < 3 && s[n] >= '0' && s[n] <= '7' {
		next := v*8 + int(s[n]-'0')
		if next > 255 {
			break
		}
		v = next
		n++
	}
	return rune(v), n
}
