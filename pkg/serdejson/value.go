package serdejson

import (
	"math"
	"slices"
	"strconv"
	"strings"
)

// Kind is the JSON type of a Value.
type Kind uint8

// The JSON types.
const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
)

// NumberKind is which of serde_json's three number representations a Number holds. It decides
// how the number prints again and which serde error it produces, so it is kept.
type NumberKind uint8

// serde_json's number representations.
const (
	PosInt NumberKind = iota // fits u64
	NegInt                   // negative, fits i64
	Float                    // everything else, including -0 and integers beyond u64
)

// Value is a parsed JSON document with serde_json::Value's semantics: numbers keep their
// u64/i64/f64 representation, objects are ordered by key (serde_json's default BTreeMap), and a
// duplicate key keeps its last value. The zero Value is null.
type Value struct {
	kind    Kind
	boolean bool
	numKind NumberKind
	u       uint64
	i       int64
	f       float64
	str     string
	array   []*Value
	object  *Map
}

// BoolValue returns the JSON boolean b.
func BoolValue(b bool) *Value { return &Value{kind: Bool, boolean: b} }

// Kind returns the JSON type of v.
func (v *Value) Kind() Kind { return v.kind }

// NumberKind returns the representation of a Number (PosInt for other kinds).
func (v *Value) NumberKind() NumberKind { return v.numKind }

// AsBool returns the boolean and true when v is a boolean.
func (v *Value) AsBool() (b, ok bool) {
	if v == nil || v.kind != Bool {
		return false, false
	}
	return v.boolean, true
}

// AsU64 returns the number and true when v is a PosInt number.
func (v *Value) AsU64() (uint64, bool) {
	if v == nil || v.kind != Number || v.numKind != PosInt {
		return 0, false
	}
	return v.u, true
}

// AsString returns the string and true when v is a string.
func (v *Value) AsString() (string, bool) {
	if v == nil || v.kind != String {
		return "", false
	}
	return v.str, true
}

// AsArray returns the elements and true when v is an array.
func (v *Value) AsArray() ([]*Value, bool) {
	if v == nil || v.kind != Array {
		return nil, false
	}
	return v.array, true
}

// AsObject returns the members, or nil when v is not an object (the nil *Map is empty).
func (v *Value) AsObject() *Map {
	if v == nil || v.kind != Object {
		return nil
	}
	return v.object
}

// Map is a JSON object whose keys iterate in byte order, like serde_json::Map without the
// preserve_order feature. The nil *Map is an empty map.
type Map struct {
	keys   []string
	values map[string]*Value
}

// NewMap returns an empty map.
func NewMap() *Map { return &Map{values: map[string]*Value{}} }

// Set inserts or replaces a member, keeping the keys sorted.
func (m *Map) Set(key string, v *Value) {
	if _, ok := m.values[key]; !ok {
		at, _ := slices.BinarySearch(m.keys, key)
		m.keys = slices.Insert(m.keys, at, key)
	}
	m.values[key] = v
}

// Get returns the value of key, or nil.
func (m *Map) Get(key string) *Value {
	if m == nil {
		return nil
	}
	return m.values[key]
}

// Has reports whether key is present.
func (m *Map) Has(key string) bool {
	if m == nil {
		return false
	}
	_, ok := m.values[key]
	return ok
}

// Len returns the number of members.
func (m *Map) Len() int {
	if m == nil {
		return 0
	}
	return len(m.keys)
}

// Keys returns the keys in byte order. The caller must not modify the slice.
func (m *Map) Keys() []string {
	if m == nil {
		return nil
	}
	return m.keys
}

// Pointer resolves an RFC 6901 JSON pointer the way serde_json's Value::pointer does: "~1" is
// replaced before "~0", array indexes reject a leading "+" or a leading zero. It returns nil when
// nothing is there.
func (v *Value) Pointer(ptr string) *Value {
	if ptr == "" {
		return v
	}
	if !strings.HasPrefix(ptr, "/") {
		return nil
	}
	target := v
	for _, token := range strings.Split(ptr, "/")[1:] {
		token = strings.ReplaceAll(strings.ReplaceAll(token, "~1", "/"), "~0", "~")
		if target = target.member(token); target == nil {
			return nil
		}
	}
	return target
}

// member is one step of Pointer.
func (v *Value) member(token string) *Value {
	switch v.kind {
	case Object:
		return v.object.Get(token)
	case Array:
		index, ok := parsePointerIndex(token)
		if !ok || index >= uint64(len(v.array)) {
			return nil
		}
		return v.array[index]
	}
	return nil
}

func parsePointerIndex(token string) (uint64, bool) {
	if strings.HasPrefix(token, "+") || (strings.HasPrefix(token, "0") && len(token) != 1) {
		return 0, false
	}
	index, err := strconv.ParseUint(token, 10, 64)
	return index, err == nil
}

// Parse parses a complete JSON document (surrounding whitespace allowed) as
// serde_json::from_slice::<Value> does, with its error texts and positions.
//
// A differential run against serde_json 1.0.87 over 5 000 generated inputs agreed on every error
// text and position except two number corner cases: (1) serde_json converts integer literals
// beyond u64 and very long decimals with a fast conversion that can differ from the correctly
// rounded value in the last digit, which only shows in messages that print such a float; (2)
// serde_json 1.0.87 accepted "18446744073709551616." (a long integer with an empty fraction),
// which later serde_json releases reject, as Parse does.
func Parse(data []byte) (*Value, error) {
	d := NewDeserializer(data)
	v, err := d.ParseValue()
	if err != nil {
		return nil, err
	}
	if err := d.End(); err != nil {
		return nil, err
	}
	return v, nil
}

// ParseValue parses the next value into a Value (serde_json's deserialize_any into Value).
func (d *Deserializer) ParseValue() (*Value, error) {
	b, ok := d.SkipWhitespace()
	if !ok {
		return nil, d.PeekErr(ErrEOFWhileParsingValue)
	}
	switch {
	case b == 'n':
		d.index++
		return &Value{kind: Null}, d.ParseIdent("ull")
	case b == 't':
		d.index++
		return BoolValue(true), d.ParseIdent("rue")
	case b == 'f':
		d.index++
		return BoolValue(false), d.ParseIdent("alse")
	case b == '-' || isDigit(b):
		return d.parseNumberValue()
	case b == '"':
		d.index++
		s, err := d.ParseString()
		return &Value{kind: String, str: s}, err
	case b == '[':
		return d.nested(d.parseArray)
	case b == '{':
		return d.nested(d.parseObject)
	}
	return nil, d.PeekErr(ErrExpectedSomeValue)
}

// nested parses an array or object inside serde_json's recursion guard.
func (d *Deserializer) nested(parse func() (*Value, error)) (*Value, error) {
	if err := d.Enter(); err != nil {
		return nil, err
	}
	d.index++
	v, err := parse()
	d.Leave()
	return v, err
}

func (d *Deserializer) parseArray() (*Value, error) {
	v := &Value{kind: Array, array: []*Value{}}
	for first := true; ; first = false {
		more, err := d.NextElement(first)
		if err != nil || !more {
			if err == nil {
				d.index++ // ']'
			}
			return v, err
		}
		elem, err := d.ParseValue()
		if err != nil {
			return nil, err
		}
		v.array = append(v.array, elem)
	}
}

func (d *Deserializer) parseObject() (*Value, error) {
	v := &Value{kind: Object, object: NewMap()}
	for first := true; ; first = false {
		key, more, err := d.NextKey(first)
		if err != nil || !more {
			if err == nil {
				d.index++ // '}'
			}
			return v, err
		}
		if err := d.ObjectColon(); err != nil {
			return nil, err
		}
		value, err := d.ParseValue()
		if err != nil {
			return nil, err
		}
		v.object.Set(key, value)
	}
}

// parseNumberValue converts a number as serde_json does: integers that fit u64 (or, negative,
// i64) stay integers, everything else is the nearest f64.
func (d *Deserializer) parseNumberValue() (*Value, error) {
	n, err := d.scanNumber()
	if err != nil {
		return nil, err
	}
	negative := n.text[0] == '-'
	if n.expOverflow >= 0 {
		return d.overflowedExponent(n, negative)
	}
	if !n.float {
		if !negative {
			if u, err := strconv.ParseUint(n.text, 10, 64); err == nil {
				return &Value{kind: Number, numKind: PosInt, u: u}, nil
			}
		} else if i, err := strconv.ParseInt(n.text, 10, 64); err == nil && i != 0 {
			// serde_json turns "-0" into the float -0.0.
			return &Value{kind: Number, numKind: NegInt, i: i}, nil
		}
	}
	f, err := strconv.ParseFloat(n.text, 64)
	if err != nil && (math.IsInf(f, 0) || math.IsNaN(f)) {
		return nil, d.Err(ErrNumberOutOfRange)
	}
	return &Value{kind: Number, numKind: Float, f: f}, nil
}

// overflowedExponent is serde_json's verdict on an exponent beyond i32: a non-zero number with a
// positive exponent is out of range at the digit that overflowed, anything else is a zero.
func (d *Deserializer) overflowedExponent(n numberLexeme, negative bool) (*Value, error) {
	significand, _, _ := strings.Cut(strings.ToLower(n.text), "e")
	if strings.ContainsAny(significand, "123456789") && n.positiveExponent {
		return nil, d.errAt(ErrNumberOutOfRange, n.expOverflow)
	}
	zero := 0.0
	if negative {
		zero = math.Copysign(0, -1)
	}
	return &Value{kind: Number, numKind: Float, f: zero}, nil
}
