package serdeimpl

import (
	"cmp"
	"encoding/json"
	"fmt"
	"github.com/codemodehq/codemode/pkg/serdejson"
	"math"
	"slices"
	"strconv"
	"strings"
)

// This file is the decoding half of the runtime of the generated wire codecs (gen/go/wirev1):
// the errors and helpers their decode<Type> functions call, worded as serde's derived
// Deserialize implementations word them.

// DecodeError is returned by every generated decoder. Path names the offending value with dotted
// keys and [index] steps (empty for the document root); Msg follows serde's wording where Codex's
// peer produces a serde error.
type DecodeError struct {
	Path string
	Msg  string
}

// Error renders "path: message", or just the message at the document root.
func (e *DecodeError) Error() string {
	if e.Path == "" {
		return e.Msg
	}
	return e.Path + ": " + e.Msg
}

// ErrorAt returns a *DecodeError for the value at path, its message formatted by fmt.Sprintf.
func ErrorAt(path, format string, args ...any) error {
	return &DecodeError{Path: path, Msg: fmt.Sprintf(format, args...)}
}

// JoinPath appends an object key to a path.
func JoinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// IndexPath appends an array index to a path.
func IndexPath(path string, i int) string {
	return path + "[" + strconv.Itoa(i) + "]"
}

// kindNames are the words serde uses for a JSON type in "invalid type" errors.
var kindNames = [...]string{serdejson.Null: "null", serdejson.Bool: "boolean", serdejson.Number: "number", serdejson.String: "string", serdejson.Array: "array", serdejson.Object: "map"}

// InvalidType reports a value of the wrong JSON type, e.g. "invalid type: integer `1`, expected
// a string".
func InvalidType(n *Node, path, expecting string) error {
	switch n.kind {
	case serdejson.Number:
		if isFloatLexeme(n.text) {
			return ErrorAt(path, "invalid type: floating point `%s`, expected %s", n.text, expecting)
		}
		return ErrorAt(path, "invalid type: integer `%s`, expected %s", n.text, expecting)
	case serdejson.String:
		return ErrorAt(path, "invalid type: string %q, expected %s", n.text, expecting)
	case serdejson.Bool:
		return ErrorAt(path, "invalid type: boolean `%t`, expected %s", n.boolean, expecting)
	}
	return ErrorAt(path, "invalid type: %s, expected %s", kindNames[n.kind], expecting)
}

func isFloatLexeme(s string) bool {
	return strings.ContainsAny(s, ".eE")
}

// MissingField reports an absent required member.
func MissingField(path, key string) error {
	return ErrorAt(path, "missing field `%s`", key)
}

// UnknownVariant reports a union tag or key outside expected, in serde's words (see
// ExpectedOneOf).
func UnknownVariant(path, got string, expected []string) error {
	return ErrorAt(path, "unknown variant `%s`, %s", got, ExpectedOneOf(expected))
}

// ObjectReader hands out the members of one JSON object to a generated decoder.
type ObjectReader struct {
	node *Node
	path string
}

// ReadObject checks that n is an object; expecting names the Rust type for the error
// ("struct WireToolName").
func ReadObject(n *Node, path, expecting string) (*ObjectReader, error) {
	if n.kind != serdejson.Object {
		return nil, InvalidType(n, path, expecting)
	}
	return &ObjectReader{node: n, path: path}, nil
}

// Take returns the member named key, or nil.
func (o *ObjectReader) Take(key string) *Node {
	return o.node.member(key)
}

// member returns the value of key in an object Node, or nil.
func (n *Node) member(key string) *Node { return findMember(n.members, key) }

// AllowOnly fails on the first member, in document order, that is neither tag (an internally
// tagged union's tag, "" for none) nor in keys: serde's deny_unknown_fields reports it while it
// walks the members, before any missing field, and lists the fields without the tag (for
// example: unknown field `x`, expected `id`; see ExpectedOneOf).
func (o *ObjectReader) AllowOnly(tag string, keys []string) error {
	for _, m := range o.node.members {
		if (tag == "" || m.key != tag) && !slices.Contains(keys, m.key) {
			return ErrorAt(o.path, "unknown field `%s`, %s", m.key, expectedFields(keys))
		}
	}
	return nil
}

// expectedFields is ExpectedOneOf for the fields of a struct ("there are no fields" for none).
func expectedFields(keys []string) string {
	if len(keys) == 0 {
		return "there are no fields"
	}
	return ExpectedOneOf(keys)
}

// UnionTag reads the string tag of an internally tagged union, a string of the document's (see
// Node.detach): the generated decoders switch on it and do not keep it.
func UnionTag(n *Node, path, tag, expecting string) (string, error) {
	if n.kind != serdejson.Object {
		return "", InvalidType(n, path, expecting)
	}
	t := n.member(tag)
	if t == nil {
		return "", MissingField(path, tag)
	}
	if t.kind != serdejson.String {
		return "", InvalidType(t, JoinPath(path, tag), "variant identifier")
	}
	return t.text, nil
}

// ExternalVariant reads the single key of an externally tagged union, a string of the document's
// as UnionTag's is, and its value.
func ExternalVariant(n *Node, path, expecting string) (string, *Node, error) {
	if n.kind != serdejson.Object {
		return "", nil, InvalidType(n, path, expecting)
	}
	if len(n.members) != 1 {
		return "", nil, ErrorAt(path, "invalid value: map with %d keys, expected exactly one key naming a variant of %s", len(n.members), expecting)
	}
	return n.members[0].key, n.members[0].value, nil
}

// DecodeString accepts any string.
func DecodeString(n *Node, path string) (string, error) {
	if n.kind != serdejson.String {
		return "", InvalidType(n, path, "a string")
	}
	return n.detach(n.text), nil
}

// DecodeNonBlank accepts a string that is not empty after trimming white space; blankErr is the
// error text otherwise.
func DecodeNonBlank(n *Node, path, blankErr string) (string, error) {
	s, err := DecodeString(n, path)
	if err != nil {
		return "", err
	}
	if strings.TrimSpace(s) == "" {
		return "", ErrorAt(path, "%s", blankErr)
	}
	return s, nil
}

// DecodeEnum accepts one of the allowed strings and returns it (allowed's own string).
func DecodeEnum(n *Node, path string, allowed []string) (string, error) {
	if n.kind != serdejson.String {
		return "", InvalidType(n, path, "a string")
	}
	i := slices.Index(allowed, n.text)
	if i < 0 {
		return "", UnknownVariant(path, n.text, allowed)
	}
	return allowed[i], nil
}

// integerLexeme returns the text of an integer: no fraction, no exponent.
func integerLexeme(n *Node, path, expecting string) (string, error) {
	if n.kind != serdejson.Number || isFloatLexeme(n.text) {
		return "", InvalidType(n, path, expecting)
	}
	return n.text, nil
}

// DecodeInt accepts an integer within [lo, hi]; expecting names the type for errors ("i64").
func DecodeInt(n *Node, path string, lo, hi int64, expecting string) (int64, error) {
	s, err := integerLexeme(n, path, expecting)
	if err != nil {
		return 0, err
	}
	v, perr := strconv.ParseInt(s, 10, 64)
	if perr != nil || v < lo || v > hi {
		return 0, ErrorAt(path, "invalid value: integer `%s`, expected %s", s, expecting)
	}
	return v, nil
}

// DecodeUint accepts a non-negative integer within [lo, hi]; -0 reads as 0, as serde_json does.
func DecodeUint(n *Node, path string, lo, hi uint64, expecting string) (uint64, error) {
	s, err := integerLexeme(n, path, expecting)
	if err != nil {
		return 0, err
	}
	if s == "-0" {
		s = "0"
	}
	v, perr := strconv.ParseUint(s, 10, 64)
	if perr != nil || v < lo || v > hi {
		return 0, ErrorAt(path, "invalid value: integer `%s`, expected %s", s, expecting)
	}
	return v, nil
}

// DecodeI64 accepts any i64.
func DecodeI64(n *Node, path string) (int64, error) {
	return DecodeInt(n, path, math.MinInt64, math.MaxInt64, "i64")
}

// DecodeI32 accepts any i32.
func DecodeI32(n *Node, path string) (int32, error) {
	v, err := DecodeInt(n, path, math.MinInt32, math.MaxInt32, "i32")
	return int32(v), err
}

// DecodeU64 accepts any u64.
func DecodeU64(n *Node, path string) (uint64, error) {
	return DecodeUint(n, path, 0, math.MaxUint64, "u64")
}

// DecodeU32 accepts any u32.
func DecodeU32(n *Node, path string) (uint32, error) {
	v, err := DecodeUint(n, path, 0, math.MaxUint32, "u32")
	return uint32(v), err
}

// DecodeJSONValue accepts any value and keeps it in its canonical compact form (key order and
// number lexemes as written).
func DecodeJSONValue(n *Node, _ string) (json.RawMessage, error) {
	return appendNode(nil, n), nil
}

// DecodeList decodes an array item by item.
func DecodeList[T any](n *Node, path string, item func(*Node, string) (T, error)) ([]T, error) {
	if n.kind != serdejson.Array {
		return nil, InvalidType(n, path, "a sequence")
	}
	out := make([]T, 0, len(n.items))
	for i, it := range n.items {
		v, err := item(it, IndexPath(path, i))
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// FirstDuplicate returns the first item (in input order) that repeats an earlier one.
func FirstDuplicate[T comparable](items []T) (T, bool) {
	seen := make(map[T]struct{}, len(items))
	for _, it := range items {
		if _, dup := seen[it]; dup {
			return it, true
		}
		seen[it] = struct{}{}
	}
	var zero T
	return zero, false
}

// FirstCommon returns the smallest item present in both sets.
func FirstCommon[T cmp.Ordered](a, b []T) (T, bool) {
	sorted := slices.Clone(a)
	slices.Sort(sorted)
	for _, it := range sorted {
		if slices.Contains(b, it) {
			return it, true
		}
	}
	var zero T
	return zero, false
}

// FormatTemplate substitutes the first "{}" of a schema's error template with arg.
func FormatTemplate(template string, arg any) string {
	return strings.Replace(template, "{}", fmt.Sprint(arg), 1)
}

// DecodeBool accepts true or false.
func DecodeBool(n *Node, path string) (bool, error) {
	if n.kind != serdejson.Bool {
		return false, InvalidType(n, path, "a boolean")
	}
	return n.boolean, nil
}

// DecodeMap decodes an object whose members all have the same type (a Rust HashMap or
// BTreeMap with string keys). Duplicate keys never get here: ParseDocument refused them.
func DecodeMap[T any](n *Node, path string, item func(*Node, string) (T, error)) (map[string]T, error) {
	if n.kind != serdejson.Object {
		return nil, InvalidType(n, path, "a map")
	}
	out := make(map[string]T, len(n.members))
	for _, m := range n.members {
		v, err := item(m.value, JoinPath(path, m.key))
		if err != nil {
			return nil, err
		}
		out[n.detach(m.key)] = v
	}
	return out, nil
}

// StringOrInt is the value of an untagged union of a string and an integer (Rust
// `#[serde(untagged)] enum { String(String), Integer(i64) }`, JSON-RPC's RequestId): IsString
// tells which member is set. It is comparable, so it can key a map.
type StringOrInt struct {
	Str      string
	Int      int64
	IsString bool
}

// String renders the string, or the integer in decimal (Rust's Display of such an id).
func (v StringOrInt) String() string {
	if v.IsString {
		return v.Str
	}
	return strconv.FormatInt(v.Int, 10)
}

// AppendJSON appends the JSON string or integer.
func (v StringOrInt) AppendJSON(b []byte) []byte {
	if v.IsString {
		return serdejson.AppendString(b, v.Str)
	}
	return strconv.AppendInt(b, v.Int, 10)
}

// DecodeStringOrInt accepts a string or an integer within [lo, hi]; anything else fails as serde
// fails an untagged enum: "data did not match any variant of untagged enum <name>".
func DecodeStringOrInt(n *Node, path string, lo, hi int64, name string) (StringOrInt, error) {
	if n.kind == serdejson.String {
		return StringOrInt{Str: n.detach(n.text), IsString: true}, nil
	}
	if v, err := DecodeInt(n, path, lo, hi, "i64"); err == nil {
		return StringOrInt{Int: v}, nil
	}
	return StringOrInt{}, ErrorAt(path, "data did not match any variant of untagged enum %s", name)
}

// DecodeUnitEnum reads serde's externally tagged enum whose variants are all unit variants: the
// variant's name as a string ("server"), or an object with the name as its only key and null
// or an empty object as its value ({"server": null}, {"server": {}}: serde_json's Value accepts
// an empty map as a unit). Errors are serde's.
func DecodeUnitEnum(n *Node, path string, variants []string) (string, error) {
	switch n.kind {
	case serdejson.String:
		i := slices.Index(variants, n.text)
		if i < 0 {
			return "", ErrorAt(path, "unknown variant `%s`, %s", n.text, ExpectedOneOf(variants))
		}
		return variants[i], nil
	case serdejson.Object:
		if len(n.members) != 1 {
			return "", ErrorAt(path, "invalid value: map, expected map with a single key")
		}
		m := n.members[0]
		i := slices.Index(variants, m.key)
		if i < 0 {
			return "", ErrorAt(path, "unknown variant `%s`, %s", m.key, ExpectedOneOf(variants))
		}
		if v := m.value; v.kind != serdejson.Null && (v.kind != serdejson.Object || len(v.members) > 0) {
			return "", serdeInvalidType(v, JoinPath(path, m.key), "unit")
		}
		return variants[i], nil
	}
	return "", serdeInvalidType(n, path, "string or map")
}

// serdeInvalidType is InvalidType with serde's word for an array, "sequence".
func serdeInvalidType(n *Node, path, expecting string) error {
	if n.kind == serdejson.Array {
		return ErrorAt(path, "invalid type: sequence, expected %s", expecting)
	}
	return InvalidType(n, path, expecting)
}

// ExpectedOneOf words a list of names as serde does: "expected `a`", "expected `a` or `b`",
// "expected one of `a`, `b`, `c`" ("there are no variants" for none).
func ExpectedOneOf(names []string) string {
	switch len(names) {
	case 0:
		return "there are no variants"
	case 1:
		return "expected `" + names[0] + "`"
	case 2:
		return "expected `" + names[0] + "` or `" + names[1] + "`"
	}
	return "expected one of `" + strings.Join(names, "`, `") + "`"
}
