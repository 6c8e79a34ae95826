package serdejson

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Node is one value of a wire document as written: objects keep their members in document order
// and numbers their lexeme, so that arbitrary JSON values survive decode → encode unchanged. The
// generated decoders read Nodes; ParseDocument makes them.
type Node struct {
	kind    Kind
	boolean bool
	text    string // string value, or the number's lexeme
	members []member
	items   []*Node
}

type member struct {
	key   string
	value *Node
}

// IsNull reports whether n is JSON null.
func (n *Node) IsNull() bool { return n.kind == Null }

// wireMaxDepth is the nesting the wire codecs accept: 128 levels, one more than serde_json's
// recursion limit lets through (see RecursionLimit).
const wireMaxDepth = 128

// ParseDocument parses exactly one JSON document for the generated decoders. It rejects invalid
// UTF-8, duplicate object keys (at any depth, as "duplicate field" at the object's path),
// nesting beyond 128 levels and trailing non-whitespace; numbers are kept as written. Syntax
// errors read like serde_json's ("… at line L column C") and are *DecodeError with an empty path.
//
// ParseDocument still has a tokenizer of its own, moved here unchanged from the wire runtime
// template: its error positions differ from serde_json's in corner cases (see
// documentErrorCases in the tests).
func ParseDocument(data []byte) (*Node, error) {
	if !utf8.Valid(data) {
		return nil, ErrorAt("", "invalid unicode in JSON document")
	}
	p := &documentParser{data: data}
	n, err := p.value("", 0)
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.pos != len(p.data) {
		return nil, p.fail("trailing characters")
	}
	return n, nil
}

type documentParser struct {
	data []byte
	pos  int
}

func (p *documentParser) fail(msg string) error {
	line, col := 1, 1
	for _, c := range p.data[:p.pos] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return ErrorAt("", "%s at line %d column %d", msg, line, col)
}

func (p *documentParser) skipSpace() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *documentParser) value(path string, depth int) (*Node, error) {
	p.skipSpace()
	if p.pos >= len(p.data) {
		return nil, p.fail("EOF while parsing a value")
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object(path, depth+1)
	case c == '[':
		return p.array(path, depth+1)
	case c == '"':
		s, err := p.str()
		return &Node{kind: String, text: s}, err
	case c == 't':
		return p.literal("true", &Node{kind: Bool, boolean: true})
	case c == 'f':
		return p.literal("false", &Node{kind: Bool})
	case c == 'n':
		return p.literal("null", &Node{kind: Null})
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	default:
		return nil, p.fail("expected value")
	}
}

func (p *documentParser) literal(word string, n *Node) (*Node, error) {
	if !bytes.HasPrefix(p.data[p.pos:], []byte(word)) {
		return nil, p.fail("expected ident")
	}
	p.pos += len(word)
	return n, nil
}

func (p *documentParser) object(path string, depth int) (*Node, error) {
	if depth > wireMaxDepth {
		return nil, p.fail("recursion limit exceeded")
	}
	p.pos++ // '{'
	n := &Node{kind: Object}
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return n, nil
	}
	for {
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, p.fail("EOF while parsing an object")
		}
		if p.data[p.pos] != '"' {
			return nil, p.fail("key must be a string")
		}
		key, err := p.str()
		if err != nil {
			return nil, err
		}
		// Protocol objects have a handful of keys: a linear scan beats a map.
		for _, m := range n.members {
			if m.key == key {
				return nil, ErrorAt(path, "duplicate field `%s`", key)
			}
		}
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return nil, p.fail("expected `:`")
		}
		p.pos++
		v, err := p.value(JoinPath(path, key), depth)
		if err != nil {
			return nil, err
		}
		n.members = append(n.members, member{key: key, value: v})
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, p.fail("EOF while parsing an object")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			return n, nil
		default:
			return nil, p.fail("expected `,` or `}`")
		}
	}
}

func (p *documentParser) array(path string, depth int) (*Node, error) {
	if depth > wireMaxDepth {
		return nil, p.fail("recursion limit exceeded")
	}
	p.pos++ // '['
	n := &Node{kind: Array, items: []*Node{}}
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return n, nil
	}
	for {
		v, err := p.value(IndexPath(path, len(n.items)), depth)
		if err != nil {
			return nil, err
		}
		n.items = append(n.items, v)
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, p.fail("EOF while parsing a list")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			return n, nil
		default:
			return nil, p.fail("expected `,` or `]`")
		}
	}
}

func (p *documentParser) number() (*Node, error) {
	start := p.pos
	if p.data[p.pos] == '-' {
		p.pos++
	}
	digits := func() int {
		s := p.pos
		for p.pos < len(p.data) && p.data[p.pos] >= '0' && p.data[p.pos] <= '9' {
			p.pos++
		}
		return p.pos - s
	}
	intStart := p.pos
	if n := digits(); n == 0 {
		return nil, p.fail("invalid number")
	} else if n > 1 && p.data[intStart] == '0' {
		return nil, p.fail("invalid number")
	}
	if p.pos < len(p.data) && p.data[p.pos] == '.' {
		p.pos++
		if digits() == 0 {
			return nil, p.fail("invalid number")
		}
	}
	if p.pos < len(p.data) && (p.data[p.pos] == 'e' || p.data[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.data) && (p.data[p.pos] == '+' || p.data[p.pos] == '-') {
			p.pos++
		}
		if digits() == 0 {
			return nil, p.fail("invalid number")
		}
	}
	return &Node{kind: Number, text: string(p.data[start:p.pos])}, nil
}

func (p *documentParser) str() (string, error) {
	p.pos++ // opening quote
	// Fast path: no escapes, so the string is a slice of the input.
	for i := p.pos; i < len(p.data); i++ {
		c := p.data[i]
		if c == '"' {
			s := string(p.data[p.pos:i])
			p.pos = i + 1
			return s, nil
		}
		if c == '\\' || c < 0x20 {
			break
		}
	}
	var sb strings.Builder
	for {
		if p.pos >= len(p.data) {
			return "", p.fail("EOF while parsing a string")
		}
		c := p.data[p.pos]
		switch {
		case c == '"':
			p.pos++
			return sb.String(), nil
		case c < 0x20:
			return "", p.fail("control character (\\u0000-\\u001F) found while parsing a string")
		case c != '\\':
			sb.WriteByte(c)
			p.pos++
			continue
		}
		p.pos++
		if p.pos >= len(p.data) {
			return "", p.fail("EOF while parsing a string")
		}
		esc := p.data[p.pos]
		p.pos++
		switch esc {
		case '"', '\\', '/':
			sb.WriteByte(esc)
		case 'b':
			sb.WriteByte('\b')
		case 'f':
			sb.WriteByte('\f')
		case 'n':
			sb.WriteByte('\n')
		case 'r':
			sb.WriteByte('\r')
		case 't':
			sb.WriteByte('\t')
		case 'u':
			r, err := p.unicodeEscape()
			if err != nil {
				return "", err
			}
			sb.WriteRune(r)
		default:
			return "", p.fail("invalid escape")
		}
	}
}

// unicodeEscape decodes the hex digits after `\u`, combining surrogate pairs. Like serde_json,
// it rejects lone surrogates.
func (p *documentParser) unicodeEscape() (rune, error) {
	hex4 := func() (rune, error) {
		if p.pos+4 > len(p.data) {
			return 0, p.fail("EOF while parsing a string")
		}
		v, err := strconv.ParseUint(string(p.data[p.pos:p.pos+4]), 16, 32)
		if err != nil {
			return 0, p.fail("invalid escape")
		}
		p.pos += 4
		return rune(v), nil
	}
	r, err := hex4()
	if err != nil {
		return 0, err
	}
	switch {
	case r >= 0xDC00 && r <= 0xDFFF:
		return 0, p.fail("lone leading surrogate in hex escape")
	case r >= 0xD800 && r <= 0xDBFF:
		if !bytes.HasPrefix(p.data[p.pos:], []byte(`\u`)) {
			return 0, p.fail("unexpected end of hex escape")
		}
		p.pos += 2
		lo, err := hex4()
		if err != nil {
			return 0, err
		}
		if lo < 0xDC00 || lo > 0xDFFF {
			return 0, p.fail("lone leading surrogate in hex escape")
		}
		return 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00), nil
	}
	return r, nil
}
