package serdejson

import "math"

// numberLexeme is a number as the Deserializer scanned it, before any conversion: the wire codecs
// keep the text, Parse converts it as serde_json does.
type numberLexeme struct {
	text string
	// float reports a fraction or an exponent: serde_json then parses an f64.
	float bool
	// positiveExponent is false for an exponent written with '-'.
	positiveExponent bool
	// expOverflow is the index just after the exponent digit that took the exponent beyond i32,
	// where serde_json stops reading it; -1 when the exponent fits.
	expOverflow int
}

// scanNumber reads a number whose first byte ('-' or a digit) is next, with serde_json's grammar
// checks and error positions.
func (d *Deserializer) scanNumber() (numberLexeme, error) {
	n := numberLexeme{expOverflow: -1}
	start := d.index
	if d.peekOrNull() == '-' {
		d.index++
	}
	if err := d.scanInteger(); err != nil {
		return n, err
	}
	if d.peekOrNull() == '.' {
		n.float = true
		d.index++
		if err := d.scanFraction(); err != nil {
			return n, err
		}
	}
	if c := d.peekOrNull(); c == 'e' || c == 'E' {
		n.float = true
		d.index++
		if err := d.scanExponent(&n); err != nil {
			return n, err
		}
	}
	n.text = d.slice(start, d.index)
	return n, nil
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }

// skipDigits consumes a run of ASCII digits and returns its length.
func (d *Deserializer) skipDigits() int {
	start := d.index
	for isDigit(d.peekOrNull()) {
		d.index++
	}
	return d.index - start
}

func (d *Deserializer) scanInteger() error {
	b, ok := d.next()
	switch {
	case !ok:
		return d.Err(ErrEOFWhileParsingValue)
	case b == '0':
		// serde_json rejects a leading zero at the digit that follows it.
		if isDigit(d.peekOrNull()) {
			return d.PeekErr(ErrInvalidNumber)
		}
	case b >= '1' && b <= '9':
		d.skipDigits()
	default:
		return d.Err(ErrInvalidNumber)
	}
	return nil
}

func (d *Deserializer) scanFraction() error {
	if d.skipDigits() > 0 {
		return nil
	}
	if _, ok := d.Peek(); ok {
		return d.PeekErr(ErrInvalidNumber)
	}
	return d.PeekErr(ErrEOFWhileParsingValue)
}

func (d *Deserializer) scanExponent(n *numberLexeme) error {
	n.positiveExponent = true
	if c := d.peekOrNull(); c == '+' || c == '-' {
		n.positiveExponent = c == '+'
		d.index++
	}
	b, ok := d.next()
	if !ok {
		return d.Err(ErrEOFWhileParsingValue)
	}
	if !isDigit(b) {
		return d.Err(ErrInvalidNumber)
	}
	exp := int64(b - '0')
	for c := d.peekOrNull(); isDigit(c); c = d.peekOrNull() {
		d.index++
		if n.expOverflow >= 0 {
			continue
		}
		if exp = exp*10 + int64(c-'0'); exp > math.MaxInt32 {
			n.expOverflow = d.index
		}
	}
	return nil
}
