package exectool

import (
	"math"
	"strconv"
	"strings"
	"unicode"
)

// serdeToString serializes v compactly exactly as serde_json::to_string does: keys in map
// order, no spaces, only `"`, `\` and control characters escaped, floats in ryu's format.
func serdeToString(v *jsonValue) string {
	var b strings.Builder
	writeSerde(&b, v)
	return b.String()
}

func writeSerde(b *strings.Builder, v *jsonValue) {
	switch v.kind {
	case jsonNull:
		b.WriteString("null")
	case jsonBool:
		b.WriteString(strconv.FormatBool(v.boolean))
	case jsonNumber:
		b.WriteString(serdeNumber(v))
	case jsonString:
		writeSerdeString(b, v.str)
	case jsonArray:
		b.WriteByte('[')
		for i, elem := range v.array {
			if i > 0 {
				b.WriteByte(',')
			}
			writeSerde(b, elem)
		}
		b.WriteByte(']')
	case jsonObject:
		b.WriteByte('{')
		for i, key := range v.object.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			writeSerdeString(b, key)
			b.WriteByte(':')
			writeSerde(b, v.object.values[key])
		}
		b.WriteByte('}')
	}
}

func serdeNumber(v *jsonValue) string {
	switch v.numKind {
	case numberPosInt:
		return strconv.FormatUint(v.u, 10)
	case numberNegInt:
		return strconv.FormatInt(v.i, 10)
	default:
		return ryuFormat(v.f)
	}
}

// serdeQuote returns s as a serde_json string literal.
func serdeQuote(s string) string {
	var b strings.Builder
	writeSerdeString(&b, s)
	return b.String()
}

func writeSerdeString(b *strings.Builder, s string) {
	const hex = "0123456789abcdef"
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			b.WriteString(`\"`)
		case c == '\\':
			b.WriteString(`\\`)
		case c == '\b':
			b.WriteString(`\b`)
		case c == '\f':
			b.WriteString(`\f`)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\t':
			b.WriteString(`\t`)
		case c < 0x20:
			b.WriteString(`\u00`)
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&0xF])
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
}

// ryuFormat formats a float like the ryu crate (serde_json's float writer): the shortest
// round-trip digits, plain notation for decimal exponents in (-5, 16], scientific otherwise,
// always with a fractional part or exponent ("1.0", "1e20", "1.5e-7"). Non-finite values
// cannot occur in parsed JSON; serde_json writes them as null.
func ryuFormat(f float64) string {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return "null"
	}
	var b strings.Builder
	if math.Signbit(f) {
		b.WriteByte('-')
		f = -f
	}
	if f == 0 {
		b.WriteString("0.0")
		return b.String()
	}
	// strconv's shortest 'e' form carries the same digits as ryu.
	sci := strconv.FormatFloat(f, 'e', -1, 64)
	mantissa, expText, _ := strings.Cut(sci, "e")
	digits := strings.Replace(mantissa, ".", "", 1)
	exp, _ := strconv.Atoi(expText)
	length := len(digits)
	kk := exp + 1 // 10^(kk-1) <= f < 10^kk
	k := kk - length
	switch {
	case k >= 0 && kk <= 16:
		b.WriteString(digits)
		b.WriteString(strings.Repeat("0", k))
		b.WriteString(".0")
	case kk > 0 && kk <= 16:
		b.WriteString(digits[:kk])
		b.WriteByte('.')
		b.WriteString(digits[kk:])
	case kk > -5 && kk <= 0:
		b.WriteString("0.")
		b.WriteString(strings.Repeat("0", -kk))
		b.WriteString(digits)
	case length == 1:
		b.WriteString(digits)
		b.WriteByte('e')
		b.WriteString(strconv.Itoa(kk - 1))
	default:
		b.WriteString(digits[:1])
		b.WriteByte('.')
		b.WriteString(digits[1:])
		b.WriteByte('e')
		b.WriteString(strconv.Itoa(kk - 1))
	}
	return b.String()
}

// serdeUnexpected renders v as serde's de::Unexpected does in invalid type/value errors.
func serdeUnexpected(v *jsonValue) string {
	switch v.kind {
	case jsonNull:
		return "unit value"
	case jsonBool:
		return "boolean `" + strconv.FormatBool(v.boolean) + "`"
	case jsonNumber:
		switch v.numKind {
		case numberPosInt:
			return "integer `" + strconv.FormatUint(v.u, 10) + "`"
		case numberNegInt:
			return "integer `" + strconv.FormatInt(v.i, 10) + "`"
		default:
			return "floating point `" + rustFloatWithDecimalPoint(v.f) + "`"
		}
	case jsonString:
		return "string " + rustDebugString(v.str)
	case jsonArray:
		return "sequence"
	default:
		return "map"
	}
}

// rustFloatWithDecimalPoint is Rust's f64 Display (shortest digits, never an exponent) with
// ".0" appended when that has no decimal point, as serde's WithDecimalPoint does.
func rustFloatWithDecimalPoint(f float64) string {
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

// rustDebugString approximates Rust's `{:?}` for str: quotes, backslash escapes for \t \r \n
// \0 " and \, and \u{…} for characters that are not graphic. Divergence: Rust also escapes
// grapheme extenders that start the string; this function does not.
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
