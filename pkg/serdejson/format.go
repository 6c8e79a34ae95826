package serdejson

import (
	"math"
	"strconv"
	"strings"
	"unicode"
)

// String serializes v compactly exactly as serde_json::to_string does: keys in map order, no
// spaces, strings escaped by AppendString, floats in ryu's format.
func (v *Value) String() string {
	return string(v.appendTo(nil))
}

func (v *Value) appendTo(b []byte) []byte {
	switch v.kind {
	case Null:
		return append(b, "null"...)
	case Bool:
		return strconv.AppendBool(b, v.boolean)
	case Number:
		return append(b, v.numberText()...)
	case String:
		return AppendString(b, v.str)
	case Array:
		b = append(b, '[')
		for i, elem := range v.array {
			if i > 0 {
				b = append(b, ',')
			}
			b = elem.appendTo(b)
		}
		return append(b, ']')
	}
	b = append(b, '{')
	for i, key := range v.object.keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendString(b, key)
		b = append(b, ':')
		b = v.object.values[key].appendTo(b)
	}
	return append(b, '}')
}

func (v *Value) numberText() string {
	switch v.numKind {
	case PosInt:
		return strconv.FormatUint(v.u, 10)
	case NegInt:
		return strconv.FormatInt(v.i, 10)
	}
	return FormatFloat(v.f)
}

// Quote returns s as a serde_json string literal.
func Quote(s string) string {
	return string(AppendString(nil, s))
}

const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string literal escaped exactly like serde_json: `"`, `\` and
// control characters only, with lowercase \u00XX. Unlike encoding/json it leaves <, >, & and
// U+2028/U+2029 alone, and it copies invalid UTF-8 through.
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	for {
		n := PlainPrefix(s)
		b = append(b, s[:n]...)
		if n == len(s) {
			return append(b, '"')
		}
		b = AppendEscape(b, s[n])
		s = s[n+1:]
	}
}

// AppendEscape appends the JSON escape of c, a control character, '"' or '\\': \" \\ \b \f \n
// \r \t, else \u00xx with lowercase digits. serde_json and ECMAScript's JSON.stringify escape
// these characters alike, so the in-process runtime's quoting shares it
// (docs/adr/0072-names-epochs-and-one-closing-call.md).
func AppendEscape(b []byte, c byte) []byte {
	switch c {
	case '"', '\\':
		return append(b, '\\', c)
	case '\b':
		return append(b, '\\', 'b')
	case '\f':
		return append(b, '\\', 'f')
	case '\n':
		return append(b, '\\', 'n')
	case '\r':
		return append(b, '\\', 'r')
	case '\t':
		return append(b, '\\', 't')
	}
	return append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
}

// FormatFloat formats f like the ryu crate (serde_json's float writer): the shortest round-trip
// digits, plain notation for decimal exponents in (-5, 16], scientific otherwise, always with a
// fractional part or an exponent ("1.0", "1e20", "1.5e-7"). Non-finite values, which parsed JSON
// cannot hold, are "null" as serde_json writes them.
func FormatFloat(f float64) string {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return "null"
	}
	sign := ""
	if math.Signbit(f) {
		sign, f = "-", -f
	}
	if f == 0 {
		return sign + "0.0"
	}
	// strconv's shortest 'e' form carries the same digits as ryu.
	mantissa, expText, _ := strings.Cut(strconv.FormatFloat(f, 'e', -1, 64), "e")
	digits := strings.Replace(mantissa, ".", "", 1)
	exp, _ := strconv.Atoi(expText)
	return sign + ryuLayout(digits, exp+1)
}

// ryuLayout places the significant digits of a float whose value is in [10^(kk-1), 10^kk).
func ryuLayout(digits string, kk int) string {
	length := len(digits)
	switch k := kk - length; {
	case k >= 0 && kk <= 16:
		return digits + strings.Repeat("0", k) + ".0"
	case kk > 0 && kk <= 16:
		return digits[:kk] + "." + digits[kk:]
	case kk > -5 && kk <= 0:
		return "0." + strings.Repeat("0", -kk) + digits
	case length == 1:
		return digits + "e" + strconv.Itoa(kk-1)
	}
	return digits[:1] + "." + digits[1:] + "e" + strconv.Itoa(kk-1)
}

// Unexpected renders v as serde's de::Unexpected does in "invalid type" and "invalid value"
// errors: "unit value", "boolean `true`", "integer `7`", "floating point `1.5`",
// "string \"x\"", "sequence", "map".
func (v *Value) Unexpected() string {
	switch v.kind {
	case Null:
		return "unit value"
	case Bool:
		return "boolean `" + strconv.FormatBool(v.boolean) + "`"
	case Number:
		if v.numKind == Float {
			return "floating point `" + rustFloatWithDecimalPoint(v.f) + "`"
		}
		return "integer `" + v.numberText() + "`"
	case String:
		return "string " + rustDebugString(v.str)
	case Array:
		return "sequence"
	}
	return "map"
}

// rustFloatWithDecimalPoint is Rust's f64 Display (shortest digits, never an exponent) with ".0"
// appended when that has no decimal point, as serde's WithDecimalPoint does.
func rustFloatWithDecimalPoint(f float64) string {
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

// rustDebugString approximates Rust's `{:?}` for str: quotes, backslash escapes for \t \r \n \0
// " and \, and \u{…} for characters that are not graphic. Divergence: Rust also escapes grapheme
// extenders that start the string; this function does not.
func rustDebugString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '\t':
			b.WriteString(`\t`)
		case '\r':
			b.WriteString(`\r`)
		case '\n':
			b.WriteString(`\n`)
		case 0:
			b.WriteString(`\0`)
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		default:
			if unicode.IsGraphic(r) {
				b.WriteRune(r)
			} else {
				b.WriteString(`\u{` + strconv.FormatInt(int64(r), 16) + `}`)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}
