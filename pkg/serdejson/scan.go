package serdejson

import (
	"errors"
	"math"
)

// This file is the Deserializer's skip mode: one pass over a document that checks its syntax and
// builds nothing, with hooks for what the module's pre-scans bound or measure (nesting depth,
// value counts, long strings, object keys). The runtime checks tool inputs and results with it
// before QuickJS parses them; the exec-server's decoder bounds a message with it before a byte is
// allocated for its values (docs/adr/0069-one-of-each-mechanism.md).

// ScanOptions are the hooks of Scan. The zero value checks the syntax only, at any depth.
type ScanOptions struct {
	// DepthLimit, when positive, stops the scan (ScanResult.Valid false) at an array or object
	// nested deeper than it.
	DepthLimit int
	// MaxValues, when positive, bounds the values of the document: the root, every array element
	// and every object member's value (keys do not count). The value past the bound fails the scan
	// with a SyntaxError of ValuesText positioned at the last byte consumed before it (the ',', ':'
	// or '[' that precedes it), where serde_json positions a visitor's error.
	MaxValues  int
	ValuesText string
	// LongString, when positive, is the size of a string token (quotes included) from which its
	// bytes are added to ScanResult.LongBytes.
	LongString int
	// Key, when set, sees every object key: the nesting of its object (1 for the root's), its
	// index among the object's members (0 starts a new object) and its decoded text (the input's
	// own bytes when the key has no escape, never modified: it lives as long as the input). A
	// non-empty return fails the scan with a SyntaxError of that text positioned
	// at the key's closing quote.
	Key func(depth, member int, key []byte) string
}

// ScanResult is what Scan learned.
type ScanResult struct {
	// Valid reports that the input is one JSON value with only white space around it, nested at
	// most DepthLimit deep. Strings are not checked for UTF-8, and escapes of lone surrogates pass
	// (Surrogate says whether there were any): serde_json refuses both, so a caller that must
	// agree with it asks Parse when Surrogate is set or the bytes may be other than UTF-8.
	Valid bool
	// MaxDepth is the deepest nesting of arrays and objects seen before the scan stopped.
	MaxDepth int
	// LongBytes is the total size of the string tokens of at least LongString bytes.
	LongBytes int
	// Surrogate reports an escape of a UTF-16 surrogate (\ud800 to \udfff, either case).
	Surrogate bool
}

// stringByte classifies a byte inside a JSON string: 0 plain, 1 the closing quote, 2 a backslash,
// 3 a control character (not allowed unescaped).
var stringByte = func() (t [256]byte) {
	for c := range 0x20 {
		t[c] = 3
	}
	t['"'], t['\\'] = 1, 2
	return t
}()

// errGiveUp stops a scan at a syntax error or past DepthLimit: the verdict is the caller's (or
// Parse's, with serde_json's text).
var errGiveUp = errors.New("serdejson: scan stopped")

// scanner is the state of one Scan over the Deserializer's cursor.
type scanner struct {
	d Deserializer
	o ScanOptions
	// limit, budget and longMin are the options with "no bound" as math.MaxInt, so that the hot
	// paths compare without asking whether a bound is set.
	limit, budget, longMin int
	res                    ScanResult
}

// Scan walks data, one JSON value with white space around it, without building anything. It
// returns an error only when a hook of o fails the scan (MaxValues, Key); a syntax error or a
// nesting past DepthLimit stops it with Valid false, leaving the verdict to Parse.
func Scan(data []byte, o ScanOptions) (ScanResult, error) {
	s := scanner{d: Deserializer{data: data}, o: o, limit: bound(o.DepthLimit), budget: bound(o.MaxValues), longMin: bound(o.LongString)}
	err := s.value(0)
	if err == nil {
		s.space()
		s.res.Valid = s.d.index == len(data)
	}
	if err == errGiveUp {
		err = nil
	}
	return s.res, err
}

// bound is n as a bound: math.MaxInt when n is not positive.
func bound(n int) int {
	if n <= 0 {
		return math.MaxInt
	}
	return n
}

func (s *scanner) space() {
	data, i := s.d.data, s.d.index
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			s.d.index = i
			return
		}
	}
	s.d.index = i
}

// value scans one value at nesting depth.
func (s *scanner) value(depth int) error {
	s.budget--
	if s.budget < 0 {
		return s.d.Err(s.o.ValuesText)
	}
	s.space()
	d := &s.d
	if d.index >= len(d.data) {
		return errGiveUp
	}
	switch c := d.data[d.index]; {
	case c == '{' || c == '[':
		return s.container(depth+1, c)
	case c == '"':
		_, err := s.str()
		return err
	case c == '-' || isDigit(c):
		return s.number()
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	}
	return errGiveUp
}

// container scans an object or an array opened by open at nesting depth.
func (s *scanner) container(depth int, open byte) error {
	s.res.MaxDepth = max(s.res.MaxDepth, depth)
	if depth > s.limit {
		return errGiveUp
	}
	closer := byte(']')
	if open == '{' {
		closer = '}'
	}
	d := &s.d
	d.index++
	s.space()
	if d.index < len(d.data) && d.data[d.index] == closer {
		d.index++
		return nil
	}
	for member := 0; ; member++ {
		var err error
		if open == '{' {
			err = s.member(depth, member)
		} else {
			err = s.value(depth)
		}
		if err != nil {
			return err
		}
		s.space()
		if d.index >= len(d.data) {
			return errGiveUp
		}
		switch d.data[d.index] {
		case ',':
			d.index++
		case closer:
			d.index++
			return nil
		default:
			return errGiveUp
		}
	}
}

// member scans `"key": value` inside an object at nesting depth.
func (s *scanner) member(depth, member int) error {
	s.space()
	d := &s.d
	if d.index >= len(d.data) || d.data[d.index] != '"' {
		return errGiveUp
	}
	start := d.index
	escaped, err := s.str()
	if err != nil {
		return err
	}
	if s.o.Key != nil {
		if err := s.key(depth, member, start, escaped); err != nil {
			return err
		}
	}
	s.space()
	if d.index >= len(d.data) || d.data[d.index] != ':' {
		return errGiveUp
	}
	d.index++
	return s.value(depth)
}

// key hands the key token that starts at start, just scanned, to the Key hook.
func (s *scanner) key(depth, member, start int, escaped bool) error {
	d := &s.d
	end := d.index
	text := d.data[start+1 : end-1]
	if escaped {
		// The Deserializer's own decoding: a key serde_json could not read stops the scan.
		k := Deserializer{data: d.data[:end], index: start + 1}
		decoded, err := k.ParseString()
		if err != nil {
			return errGiveUp
		}
		text = []byte(decoded)
	}
	if msg := s.o.Key(depth, member, text); msg != "" {
		return d.Err(msg)
	}
	return nil
}

// str scans a string token starting at its opening quote and reports whether it has escapes.
// The cursor lives in locals between escapes: this loop is most of a long string's time.
func (s *scanner) str() (escaped bool, err error) {
	d := &s.d
	data, start := d.data, d.index
	i := start + 1
	for i < len(data) {
		switch stringByte[data[i]] {
		case 0:
			i += PlainPrefix(data[i:])
		case 1:
			i++
			d.index = i
			if i-start >= s.longMin {
				s.res.LongBytes += i - start
			}
			return escaped, nil
		case 2:
			escaped = true
			d.index = i
			if !s.escape() {
				return escaped, errGiveUp
			}
			i = d.index
		default:
			d.index = i
			return escaped, errGiveUp
		}
	}
	d.index = i
	return escaped, errGiveUp
}

// escape scans a backslash escape.
func (s *scanner) escape() bool {
	d := &s.d
	i, b := d.index, d.data
	if i+1 >= len(b) {
		return false
	}
	switch b[i+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		d.index += 2
		return true
	case 'u':
		if i+6 > len(b) {
			return false
		}
		for _, h := range b[i+2 : i+6] {
			if _, ok := hexValue(h); !ok {
				return false
			}
		}
		if h0, h1 := b[i+2]|0x20, b[i+3]|0x20; h0 == 'd' && (h1 >= '8' && h1 <= '9' || h1 >= 'a' && h1 <= 'f') {
			s.res.Surrogate = true
		}
		d.index += 6
		return true
	}
	return false
}

// number scans -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?, the grammar of scanNumber.
func (s *scanner) number() error {
	data, i := s.d.data, s.d.index
	if data[i] == '-' {
		i++
	}
	switch {
	case i < len(data) && data[i] == '0':
		i++
	default:
		if i = digits(data, i); i < 0 {
			return errGiveUp
		}
	}
	if i < len(data) && data[i] == '.' {
		if i = digits(data, i+1); i < 0 {
			return errGiveUp
		}
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if i = digits(data, i); i < 0 {
			return errGiveUp
		}
	}
	s.d.index = i
	return nil
}

// digits returns the index after the run of decimal digits at data[i:], or -1 when there is none.
func digits(data []byte, i int) int {
	start := i
	for i < len(data) && isDigit(data[i]) {
		i++
	}
	if i == start {
		return -1
	}
	return i
}

func (s *scanner) literal(word string) error {
	d := &s.d
	if len(d.data)-d.index < len(word) || string(d.data[d.index:d.index+len(word)]) != word {
		return errGiveUp
	}
	d.index += len(word)
	return nil
}
