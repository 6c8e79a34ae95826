package serdeimpl

import (
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/codemodehq/codemode/pkg/serdejson"
)

// Node is one value of a wire document as written: objects keep their members in document order
// and numbers their lexeme, so that arbitrary JSON values survive decode → encode unchanged. The
// generated decoders read Nodes; ParseDocument makes them.
type Node struct {
	kind    serdejson.Kind
	boolean bool
	// shared: text and the keys of members are slices of the whole document's text
	// (ParseDocument), which a string leaving the tree must not keep alive (detach).
	shared  bool
	text    string // string value, or the number's lexeme
	members []member
	items   []*Node
}

// detach returns s, a string of n's document, as a string of its own when n's document is shared.
func (n *Node) detach(s string) string {
	if n.shared {
		return strings.Clone(s)
	}
	return s
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
	p := parsers.Get().(*documentParser)
	defer p.release()
	p.start(data)
	n, err := p.value()
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

// documentParser drives the Deserializer into a Node tree. A document of n values costs a few
// allocations rather than n: its Nodes come from slabs, the members and items of every object
// and array from one arena each, and the path of the value being parsed, which only a duplicate
// key's error reads, is a stack of steps made into text for that error alone.
type documentParser struct {
	d serdejson.Deserializer
	// shared: the document's strings are slices of one copy of it (Node.shared).
	shared bool
	// steps lead from the root to the value being parsed.
	steps []pathStep
	// nodes is the slab the next Node is taken from; a full slab is left to the Nodes in it.
	nodes []Node
	// members and items hold those of the objects and arrays being parsed, innermost last; a
	// finished one moves its own to memberArena or itemArena, which its Node then slices.
	members     []member
	items       []*Node
	memberArena []member
	itemArena   []*Node
	// The stacks start in these, which hold what a wire message needs.
	stepsBuf   [16]pathStep
	membersBuf [16]member
	itemsBuf   [16]*Node
}

// parsers keeps documentParsers, whose stacks and their buffers every document needs, between
// documents.
var parsers = sync.Pool{New: func() any { return new(documentParser) }}

// start readies p for data: a Deserializer over it, shared text for a short document, and a
// first slab and member arena sized for it. The stacks are empty.
func (p *documentParser) start(data []byte) {
	p.d.Reset(data, wireMaxDepth+1)
	p.shared = len(data) <= maxSharedDocument
	if p.shared {
		p.d.ShareText(string(data))
	}
	estimate := firstSlab(len(data))
	p.nodes = make([]Node, 0, estimate)
	p.memberArena = make([]member, 0, estimate)
	p.steps, p.members, p.items = p.stepsBuf[:0], p.membersBuf[:0], p.itemsBuf[:0]
}

// release forgets the document (p's Nodes and arenas now belong to its tree; a stack that grew
// past its buffer is dropped, its entries pointing into the tree) and returns p to parsers.
func (p *documentParser) release() {
	p.d.Reset(nil, 0)
	clear(p.membersBuf[:])
	clear(p.itemsBuf[:])
	clear(p.stepsBuf[:])
	p.nodes, p.memberArena, p.itemArena = nil, nil, nil
	p.steps, p.members, p.items = nil, nil, nil
	parsers.Put(p)
}

// maxSharedDocument is the largest document whose strings share one copy of it: a string kept from
// a message keeps at most this much alive, and a long document's strings, which are long
// themselves, gain little from sharing.
const maxSharedDocument = 4 << 10

// pathStep is one step of a value's path: an object's key, or an array's index when key is
// unset (index >= 0).
type pathStep struct {
	key   string
	index int
}

// maxSlab is the most Nodes a slab holds.
const maxSlab = 64

// firstSlab sizes the first slab for a document of n bytes: a wire message's values take about
// ten bytes each with their keys. Each further slab is twice the last, up to maxSlab.
func firstSlab(n int) int { return min(max(n/10, 4), maxSlab) }

// path is the path of the value being parsed, as the errors write it.
func (p *documentParser) path() string {
	path := ""
	for _, s := range p.steps {
		if s.index >= 0 {
			path = IndexPath(path, s.index)
		} else {
			path = JoinPath(path, s.key)
		}
	}
	return path
}

// node takes the next Node of kind from the slab.
func (p *documentParser) node(kind serdejson.Kind) *Node {
	if len(p.nodes) == cap(p.nodes) {
		p.nodes = make([]Node, 0, min(2*cap(p.nodes), maxSlab))
	}
	p.nodes = p.nodes[:len(p.nodes)+1]
	n := &p.nodes[len(p.nodes)-1]
	n.kind, n.shared = kind, p.shared
	return n
}

func (p *documentParser) value() (*Node, error) {
	d := &p.d
	b, ok := d.SkipWhitespace()
	if !ok {
		return nil, d.PeekErr(serdejson.ErrEOFWhileParsingValue)
	}
	switch {
	case b == 'n':
		d.Discard()
		return p.node(serdejson.Null), d.ParseIdent("ull")
	case b == 't':
		d.Discard()
		n := p.node(serdejson.Bool)
		n.boolean = true
		return n, d.ParseIdent("rue")
	case b == 'f':
		d.Discard()
		return p.node(serdejson.Bool), d.ParseIdent("alse")
	case b == '-' || isDigit(b):
		text, err := d.ScanNumberLexeme()
		n := p.node(serdejson.Number)
		n.text = text
		return n, err
	case b == '"':
		d.Discard()
		s, err := d.ParseString()
		n := p.node(serdejson.String)
		n.text = s
		return n, err
	case b == '[', b == '{':
		return p.nested(b == '{')
	}
	return nil, d.PeekErr(serdejson.ErrExpectedSomeValue)
}

// nested parses an object or an array inside the recursion guard.
func (p *documentParser) nested(object bool) (n *Node, err error) {
	if err := p.d.Enter(); err != nil {
		return nil, err
	}
	p.d.Discard()
	if object {
		n, err = p.object()
	} else {
		n, err = p.array()
	}
	p.d.Leave()
	return n, err
}

func (p *documentParser) array() (*Node, error) {
	n := p.node(serdejson.Array)
	base := len(p.items)
	for first := true; ; first = false {
		more, err := p.d.NextElement(first)
		if err != nil {
			return nil, err
		}
		if !more {
			p.d.Discard() // ']'
			start := len(p.itemArena)
			p.itemArena = append(p.itemArena, p.items[base:]...)
			n.items = p.itemArena[start:len(p.itemArena):len(p.itemArena)]
			clear(p.items[base:])
			p.items = p.items[:base]
			return n, nil
		}
		p.steps = append(p.steps, pathStep{index: len(p.items) - base})
		item, err := p.value()
		p.steps = p.steps[:len(p.steps)-1]
		if err != nil {
			return nil, err
		}
		p.items = append(p.items, item)
	}
}

func (p *documentParser) object() (*Node, error) {
	n := p.node(serdejson.Object)
	base := len(p.members)
	for first := true; ; first = false {
		key, more, err := p.d.NextKey(first)
		if err != nil {
			return nil, err
		}
		if !more {
			p.d.Discard() // '}'
			if len(p.members) > base {
				start := len(p.memberArena)
				p.memberArena = append(p.memberArena, p.members[base:]...)
				n.members = p.memberArena[start:len(p.memberArena):len(p.memberArena)]
				clear(p.members[base:])
				p.members = p.members[:base]
			}
			return n, nil
		}
		// Protocol objects have a handful of keys: a linear scan beats a map.
		if findMember(p.members[base:], key) != nil {
			return nil, ErrorAt(p.path(), "duplicate field `%s`", key)
		}
		if err := p.d.ObjectColon(); err != nil {
			return nil, err
		}
		p.steps = append(p.steps, pathStep{key: key, index: -1})
		v, err := p.value()
		p.steps = p.steps[:len(p.steps)-1]
		if err != nil {
			return nil, err
		}
		p.members = append(p.members, member{key: key, value: v})
	}
}

// findMember returns the value of the member named key, or nil.
func findMember(members []member, key string) *Node {
	for _, m := range members {
		if m.key == key {
			return m.value
		}
	}
	return nil
}

func isDigit(b byte) bool { return '0' <= b && b <= '9' }
