package serdeimpl

import (
	"unicode/utf8"

	"github.com/codemodehq/codemode/pkg/serdejson"
)

// Node is one value of a wire document as written: objects keep their members in document order
// and numbers their lexeme, so that arbitrary JSON values survive decode → encode unchanged. The
// generated decoders read Nodes; ParseDocument makes them.
type Node struct {
	kind    serdejson.Kind
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
func (n *Node) IsNull() bool { return n.kind == serdejson.Null }

// wireMaxDepth is the nesting the wire codecs accept: 128 levels, one more than serde_json's
// recursion limit lets through (see RecursionLimit). Kept so that no document the codecs accepted
// before starts failing.
const wireMaxDepth = 128

// ParseDocument parses exactly one JSON document for the generated decoders with the module's
// one tokenizer, the Deserializer: syntax errors are serde_json's texts and positions ("expected
// `,` or `}` at line 1 column 20"). On top of serde_json's grammar it rejects invalid UTF-8
// anywhere in the document, duplicate object keys at any depth (as "duplicate field" at the
// object's path, when the key is read) and nesting beyond 128 levels, and it keeps numbers as
// written instead of converting them. Every error is a *DecodeError; syntax errors have an empty
// path.
func ParseDocument(data []byte) (*Node, error) {
	if !utf8.Valid(data) {
		return nil, ErrorAt("", "invalid unicode in JSON document")
	}
	p := documentParser{d: serdejson.NewDeserializerWithLimit(data, wireMaxDepth+1)}
	n, err := p.value("")
	if err == nil {
		err = p.d.End()
	}
	if err != nil {
		return nil, asDecodeError(err)
	}
	return n, nil
}

// asDecodeError gives a syntax error the wire codecs' error type, with its text unchanged.
func asDecodeError(err error) error {
	if se, ok := err.(*serdejson.SyntaxError); ok {
		return &DecodeError{Msg: se.Error()}
	}
	return err
}

// documentParser drives the Deserializer into a Node tree, tracking the path of the value being
// parsed for duplicate-key errors.
type documentParser struct {
	d *serdejson.Deserializer
}

func (p *documentParser) value(path string) (*Node, error) {
	d := p.d
	b, ok := d.SkipWhitespace()
	if !ok {
		return nil, d.PeekErr(serdejson.ErrEOFWhileParsingValue)
	}
	switch {
	case b == 'n':
		d.Discard()
		return &Node{kind: serdejson.Null}, d.ParseIdent("ull")
	case b == 't':
		d.Discard()
		return &Node{kind: serdejson.Bool, boolean: true}, d.ParseIdent("rue")
	case b == 'f':
		d.Discard()
		return &Node{kind: serdejson.Bool}, d.ParseIdent("alse")
	case b == '-' || isDigit(b):
		text, err := d.ScanNumberLexeme()
		return &Node{kind: serdejson.Number, text: text}, err
	case b == '"':
		d.Discard()
		s, err := d.ParseString()
		return &Node{kind: serdejson.String, text: s}, err
	case b == '[':
		return p.nested(path, p.array)
	case b == '{':
		return p.nested(path, p.object)
	}
	return nil, d.PeekErr(serdejson.ErrExpectedSomeValue)
}

// nested parses an array or object inside the recursion guard.
func (p *documentParser) nested(path string, parse func(string) (*Node, error)) (*Node, error) {
	if err := p.d.Enter(); err != nil {
		return nil, err
	}
	p.d.Discard()
	n, err := parse(path)
	p.d.Leave()
	return n, err
}

func (p *documentParser) array(path string) (*Node, error) {
	n := &Node{kind: serdejson.Array, items: []*Node{}}
	for first := true; ; first = false {
		more, err := p.d.NextElement(first)
		if err != nil {
			return nil, err
		}
		if !more {
			p.d.Discard() // ']'
			return n, nil
		}
		item, err := p.value(IndexPath(path, len(n.items)))
		if err != nil {
			return nil, err
		}
		n.items = append(n.items, item)
	}
}

func (p *documentParser) object(path string) (*Node, error) {
	n := &Node{kind: serdejson.Object}
	for first := true; ; first = false {
		key, more, err := p.d.NextKey(first)
		if err != nil {
			return nil, err
		}
		if !more {
			p.d.Discard() // '}'
			return n, nil
		}
		// Protocol objects have a handful of keys: a linear scan beats a map.
		if n.member(key) != nil {
			return nil, ErrorAt(path, "duplicate field `%s`", key)
		}
		if err := p.d.ObjectColon(); err != nil {
			return nil, err
		}
		v, err := p.value(JoinPath(path, key))
		if err != nil {
			return nil, err
		}
		n.members = append(n.members, member{key: key, value: v})
	}
}

func isDigit(b byte) bool { return '0' <= b && b <= '9' }
