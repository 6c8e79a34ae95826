package wiregen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/codemodehq/codemode/pkg/serdejson"
)

// node is a JSON value that keeps object members in document order. The generator needs that
// order: property order in a schema is the key order of the encoded message.
type node struct {
	kind    byte // 'n' null, 'b' bool, '#' number, 's' string, '[' array, '{' object
	boolean bool
	text    string // string value or number lexeme
	members []member
	items   []*node
}

type member struct {
	key   string
	value *node
}

func parseOrdered(data []byte) (*node, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	n, err := readNode(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("trailing data after JSON document")
	}
	return n, nil
}

func readNode(dec *json.Decoder) (*node, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case nil:
		return &node{kind: 'n'}, nil
	case bool:
		return &node{kind: 'b', boolean: t}, nil
	case json.Number:
		return &node{kind: '#', text: t.String()}, nil
	case string:
		return &node{kind: 's', text: t}, nil
	case json.Delim:
		if t == '[' {
			n := &node{kind: '['}
			for dec.More() {
				it, err := readNode(dec)
				if err != nil {
					return nil, err
				}
				n.items = append(n.items, it)
			}
			_, err := dec.Token()
			return n, err
		}
		n := &node{kind: '{'}
		seen := map[string]bool{}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, err
			}
			key := kt.(string)
			if seen[key] {
				return nil, fmt.Errorf("duplicate key %q", key)
			}
			seen[key] = true
			v, err := readNode(dec)
			if err != nil {
				return nil, err
			}
			n.members = append(n.members, member{key, v})
		}
		_, err := dec.Token()
		return n, err
	}
	return nil, fmt.Errorf("unexpected token %v", tok)
}

// get returns the member named key, or nil.
func (n *node) get(key string) *node {
	if n == nil || n.kind != '{' {
		return nil
	}
	for _, m := range n.members {
		if m.key == key {
			return m.value
		}
	}
	return nil
}

func (n *node) str(key string) string {
	if v := n.get(key); v != nil && v.kind == 's' {
		return v.text
	}
	return ""
}

func (n *node) isTrue(key string) bool {
	v := n.get(key)
	return v != nil && v.kind == 'b' && v.boolean
}

// compact renders n like serde_json::to_vec: compact, keys in document order, strings escaped
// as serdejson.AppendString does.
func (n *node) compact(b []byte) []byte {
	switch n.kind {
	case 'n':
		return append(b, "null"...)
	case 'b':
		return strconv.AppendBool(b, n.boolean)
	case '#':
		return append(b, n.text...)
	case 's':
		return serdejson.AppendString(b, n.text)
	case '[':
		b = append(b, '[')
		for i, it := range n.items {
			if i > 0 {
				b = append(b, ',')
			}
			b = it.compact(b)
		}
		return append(b, ']')
	}
	b = append(b, '{')
	for i, m := range n.members {
		if i > 0 {
			b = append(b, ',')
		}
		b = serdejson.AppendString(b, m.key)
		b = append(b, ':')
		b = m.value.compact(b)
	}
	return append(b, '}')
}
