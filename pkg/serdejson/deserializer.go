package serdejson

import "unicode/utf8"

// RecursionLimit is serde_json's default nesting limit: the Deserializer fails on the array or
// object that would be the RecursionLimit-th level, so RecursionLimit-1 levels parse.
const RecursionLimit = 128

// Deserializer is a cursor over one JSON document with the primitives of serde_json's
// Deserializer over a slice: whitespace skipping, strings, identifiers, numbers, the recursion
// guard and serde_json's two error positions. It is the one JSON tokenizer of the module: Parse
// drives it into a Value, the serde-derive helpers of visit.go drive it for typed visitors, and
// ParseDocument drives it into the order-preserving Node tree of the wire codecs.
//
// Err reports at the last byte consumed (serde_json's Read::position), PeekErr at the byte about
// to be read (Read::peek_position): which one serde_json uses is part of its error text.
type Deserializer struct {
	data           []byte
	index          int
	remainingDepth int
	// text, when set (ShareText), is data as a string: plain strings and numbers are then slices
	// of it rather than copies of their own.
	text string
}

// Reset starts d over data as NewDeserializerWithLimit does, without text shared.
func (d *Deserializer) Reset(data []byte, limit int) {
	*d = Deserializer{data: data, remainingDepth: limit}
}

// ShareText makes the strings and number lexemes the Deserializer returns without unescaping
// slices of text, which must hold the same bytes as its data: a document of many short strings
// then costs one copy instead of one per string, and every string returned keeps all of text
// alive.
func (d *Deserializer) ShareText(text string) {
	if len(text) == len(d.data) {
		d.text = text
	}
}

// slice is data[i:j] as a string: a slice of the shared text, or a copy.
func (d *Deserializer) slice(i, j int) string {
	if d.text != "" {
		return d.text[i:j]
	}
	return string(d.data[i:j])
}

// NewDeserializer starts a Deserializer at the first byte of data, with serde_json's default
// recursion limit.
func NewDeserializer(data []byte) *Deserializer {
	return &Deserializer{data: data, remainingDepth: RecursionLimit}
}

// NewDeserializerWithLimit is NewDeserializer with its own recursion limit: limit-1 nesting levels
// may be entered (RecursionLimit lets serde_json's 127 through). The wire codecs' document parser
// (serdeimpl.ParseDocument) accepts one level more than serde_json.
func NewDeserializerWithLimit(data []byte, limit int) *Deserializer {
	return &Deserializer{data: data, remainingDepth: limit}
}

// ScanNumberLexeme consumes a number at the current byte and returns it as written, with
// serde_json's syntax errors: the wire codecs keep number lexemes unchanged.
func (d *Deserializer) ScanNumberLexeme() (string, error) {
	n, err := d.scanNumber()
	return n.text, err
}

// Err returns a SyntaxError positioned at the last byte consumed.
func (d *Deserializer) Err(msg string) error {
	return d.errAt(msg, d.index)
}

// PeekErr returns a SyntaxError positioned at the byte about to be read (at the end of the
// input, at its last byte).
func (d *Deserializer) PeekErr(msg string) error {
	return d.errAt(msg, min(len(d.data), d.index+1))
}

func (d *Deserializer) errAt(msg string, index int) error {
	line, column := positionOf(d.data, index)
	return &SyntaxError{Msg: msg, Line: line, Column: column}
}

// Peek returns the next byte without consuming it; ok is false at the end of the input.
func (d *Deserializer) Peek() (b byte, ok bool) {
	if d.index < len(d.data) {
		return d.data[d.index], true
	}
	return 0, false
}

// peekOrNull returns the next byte, or 0 at the end of the input (serde_json's peek_or_null).
func (d *Deserializer) peekOrNull() byte {
	b, _ := d.Peek()
	return b
}

// Discard consumes the byte Peek returned (serde_json's eat_char).
func (d *Deserializer) Discard() {
	d.index++
}

func (d *Deserializer) next() (byte, bool) {
	b, ok := d.Peek()
	if ok {
		d.index++
	}
	return b, ok
}

// SkipWhitespace consumes JSON whitespace and returns the next byte without consuming it.
func (d *Deserializer) SkipWhitespace() (b byte, ok bool) {
	for {
		b, ok := d.Peek()
		if !ok {
			return 0, false
		}
		switch b {
		case ' ', '\n', '\t', '\r':
			d.index++
		default:
			return b, true
		}
	}
}

// End requires that only whitespace follows (serde_json's Deserializer::end).
func (d *Deserializer) End() error {
	if _, more := d.SkipWhitespace(); more {
		return d.PeekErr(ErrTrailingCharacters)
	}
	return nil
}

// Enter is serde_json's recursion guard for an array or object whose opening byte is next; Leave
// undoes it once the container is parsed.
func (d *Deserializer) Enter() error {
	d.remainingDepth--
	if d.remainingDepth == 0 {
		return d.PeekErr(ErrRecursionLimitExceeded)
	}
	return nil
}

// Leave ends the nesting level Enter began.
func (d *Deserializer) Leave() {
	d.remainingDepth++
}

// ParseIdent consumes the rest of a literal whose first byte was consumed ("ull" of null).
func (d *Deserializer) ParseIdent(rest string) error {
	for i := 0; i < len(rest); i++ {
		b, ok := d.next()
		if !ok {
			return d.Err(ErrEOFWhileParsingValue)
		}
		if b != rest[i] {
			return d.Err(ErrExpectedSomeIdent)
		}
	}
	return nil
}

// ParseString reads a string body whose opening quote was consumed, through its closing quote.
func (d *Deserializer) ParseString() (string, error) {
	if s, ok := d.plainString(); ok {
		return s, nil
	}
	var out []byte
	for {
		b, ok := d.next()
		switch {
		case !ok:
			return "", d.Err(ErrEOFWhileParsingString)
		case b == '"':
			return d.checkedString(out)
		case b == '\\':
			var err error
			if out, err = d.parseEscape(out); err != nil {
				return "", err
			}
		case b < 0x20:
			return "", d.Err(ErrControlCharInString)
		default:
			out = append(out, b)
		}
	}
}

// plainString is the fast path of ParseString: a string without escapes or control characters is
// a copy of its bytes. Its bytes are classified as Scan's are (stringByte).
func (d *Deserializer) plainString() (string, bool) {
	for i := d.index + PlainPrefix(d.data[d.index:]); i < len(d.data); i++ {
		switch stringByte[d.data[i]] {
		case 1:
			if !utf8.Valid(d.data[d.index:i]) {
				return "", false // the slow path reports it at the closing quote
			}
			s := d.slice(d.index, i)
			d.index = i + 1
			return s, true
		case 2, 3:
			return "", false
		}
	}
	return "", false
}

// checkedString returns the decoded bytes of a string whose closing quote was just consumed.
// serde_json's from_str input is always UTF-8; a Go caller may pass other bytes, which
// serde_json's from_slice rejects at the string's end.
func (d *Deserializer) checkedString(out []byte) (string, error) {
	if !utf8.Valid(out) {
		return "", d.Err(ErrInvalidUnicodeCodePoint)
	}
	return string(out), nil
}

func (d *Deserializer) parseEscape(out []byte) ([]byte, error) {
	b, ok := d.next()
	if !ok {
		return nil, d.Err(ErrEOFWhileParsingString)
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
		return d.parseUnicodeEscape(out)
	default:
		return nil, d.Err(ErrInvalidEscape)
	}
}

// parseUnicodeEscape decodes the hex digits after `\u`, combining a surrogate pair. Like
// serde_json it rejects lone surrogates.
func (d *Deserializer) parseUnicodeEscape(out []byte) ([]byte, error) {
	n, err := d.decodeHexEscape()
	if err != nil {
		return nil, err
	}
	if n >= 0xDC00 && n <= 0xDFFF {
		return nil, d.Err(ErrLoneLeadingSurrogate)
	}
	if n < 0xD800 || n > 0xDBFF {
		return utf8.AppendRune(out, rune(n)), nil
	}
	for _, want := range []byte{'\\', 'u'} {
		b, ok := d.next()
		if !ok {
			return nil, d.Err(ErrEOFWhileParsingString)
		}
		if b != want {
			return nil, d.Err(ErrUnexpectedEndOfHexEscape)
		}
	}
	n2, err := d.decodeHexEscape()
	if err != nil {
		return nil, err
	}
	if n2 < 0xDC00 || n2 > 0xDFFF {
		return nil, d.Err(ErrLoneLeadingSurrogate)
	}
	r := (rune(n-0xD800)<<10 | rune(n2-0xDC00)) + 0x10000
	return utf8.AppendRune(out, r), nil
}

func (d *Deserializer) decodeHexEscape() (uint16, error) {
	if len(d.data)-d.index < 4 {
		d.index = len(d.data)
		return 0, d.Err(ErrEOFWhileParsingString)
	}
	var n uint16
	for range 4 {
		digit, ok := hexValue(d.data[d.index])
		d.index++
		if !ok {
			return 0, d.Err(ErrInvalidEscape)
		}
		n = n<<4 | uint16(digit)
	}
	return n, nil
}

func hexValue(b byte) (byte, bool) {
	switch {
	case b >= '0' && b <= '9':
		return b - '0', true
	case b >= 'a' && b <= 'f':
		return b - 'a' + 10, true
	case b >= 'A' && b <= 'F':
		return b - 'A' + 10, true
	}
	return 0, false
}
