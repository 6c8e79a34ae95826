package serdeimpl

import (
	"encoding/json"
	"github.com/codemodehq/codemode/pkg/serdejson"
	"strconv"
)

// This file is the encoding half of the runtime of the generated wire codecs: the canonical
// encoding is compact, in declaration key order, with serde_json's string escaping.

// Message is implemented by every generated wire type: it appends its canonical JSON encoding
// to b.
type Message interface {
	AppendJSON(b []byte) []byte
}

// Marshal returns the canonical encoding of m. Encoding never fails: every value a decoder
// accepts, and every value built in Go from the generated types, has a canonical form.
func Marshal(m Message) []byte {
	return AppendMessage(nil, m)
}

// AppendMessage appends the encoding of m, or null for a nil union value.
func AppendMessage(b []byte, m Message) []byte {
	if m == nil {
		return append(b, "null"...)
	}
	return m.AppendJSON(b)
}

// AppendKey appends `"key":`, preceded by a comma unless it is the first member of the object
// whose '{' was appended at offset start.
func AppendKey(b []byte, start int, key string) []byte {
	if len(b) > start+1 {
		b = append(b, ',')
	}
	b = serdejson.AppendString(b, key)
	return append(b, ':')
}

// AppendRaw appends a JSON value held as text, or null when raw is empty.
func AppendRaw(b []byte, raw json.RawMessage) []byte {
	if len(raw) == 0 {
		return append(b, "null"...)
	}
	return append(b, raw...)
}

// appendNode appends n compactly, members in document order and numbers as written.
func appendNode(b []byte, n *Node) []byte {
	switch n.kind {
	case serdejson.Null:
		return append(b, "null"...)
	case serdejson.Bool:
		return strconv.AppendBool(b, n.boolean)
	case serdejson.Number:
		return append(b, n.text...)
	case serdejson.String:
		return serdejson.AppendString(b, n.text)
	case serdejson.Array:
		b = append(b, '[')
		for i, it := range n.items {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendNode(b, it)
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
		b = appendNode(b, m.value)
	}
	return append(b, '}')
}

// CanonicalJSON re-encodes any JSON document compactly with serde_json escaping, keeping key
// order and number lexemes. It applies the same strictness as the decoders (duplicate keys,
// UTF-8, depth).
func CanonicalJSON(data []byte) ([]byte, error) {
	n, err := ParseDocument(data)
	if err != nil {
		return nil, err
	}
	return appendNode(nil, n), nil
}

// AppendString appends s as a JSON string, escaped as serde_json does (serdejson.AppendString),
// so that generated code needs this package only.
func AppendString(b []byte, s string) []byte { return serdejson.AppendString(b, s) }
