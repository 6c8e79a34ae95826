package exectool

import (
	"slices"
	"strconv"
	"strings"
)

// jsonKind is the type of a jsonValue.
type jsonKind int

const (
	jsonNull jsonKind = iota
	jsonBool
	jsonNumber
	jsonString
	jsonArray
	jsonObject
)

// numberKind mirrors serde_json's three number representations. Which one a literal gets
// decides how it is printed again and which serde error it produces, so it is kept.
type numberKind int

const (
	numberPosInt numberKind = iota // fits u64
	numberNegInt                   // negative, fits i64
	numberFloat                    // everything else, including -0 and integers beyond u64
)

// jsonValue is a parsed JSON document with serde_json's semantics: numbers keep their
// u64/i64/f64 representation, objects are ordered by key (serde_json's default BTreeMap),
// and a duplicate key keeps its last value.
type jsonValue struct {
	kind    jsonKind
	boolean bool
	numKind numberKind
	u       uint64
	i       int64
	f       float64
	str     string
	array   []*jsonValue
	object  *jsonMap
}

// jsonMap is an object whose keys iterate in byte order, like serde_json::Map without the
// preserve_order feature.
type jsonMap struct {
	keys   []string
	values map[string]*jsonValue
}

func newJSONMap() *jsonMap { return &jsonMap{values: map[string]*jsonValue{}} }

// set inserts or replaces a key, keeping keys sorted.
func (m *jsonMap) set(key string, v *jsonValue) {
	if _, ok := m.values[key]; !ok {
		at, _ := slices.BinarySearch(m.keys, key)
		m.keys = slices.Insert(m.keys, at, key)
	}
	m.values[key] = v
}

// get returns the value of key, or nil.
func (m *jsonMap) get(key string) *jsonValue {
	if m == nil {
		return nil
	}
	return m.values[key]
}

// has reports whether key is present.
func (m *jsonMap) has(key string) bool {
	if m == nil {
		return false
	}
	_, ok := m.values[key]
	return ok
}

// len returns the number of entries.
func (m *jsonMap) len() int {
	if m == nil {
		return 0
	}
	return len(m.keys)
}

// asObject returns the object map, or nil when v is not an object.
func (v *jsonValue) asObject() *jsonMap {
	if v == nil || v.kind != jsonObject {
		return nil
	}
	return v.object
}

// asArray returns the elements and true when v is an array.
func (v *jsonValue) asArray() ([]*jsonValue, bool) {
	if v == nil || v.kind != jsonArray {
		return nil, false
	}
	return v.array, true
}

// asString returns the string and true when v is a string.
func (v *jsonValue) asString() (string, bool) {
	if v == nil || v.kind != jsonString {
		return "", false
	}
	return v.str, true
}

// pointer resolves an RFC 6901 JSON pointer the way serde_json's Value::pointer does: "~1"
// is replaced before "~0", array indexes reject a leading "+" or a leading zero.
func (v *jsonValue) pointer(ptr string) *jsonValue {
	if ptr == "" {
		return v
	}
	if !strings.HasPrefix(ptr, "/") {
		return nil
	}
	target := v
	for _, token := range strings.Split(ptr, "/")[1:] {
		token = strings.ReplaceAll(strings.ReplaceAll(token, "~1", "/"), "~0", "~")
		switch target.kind {
		case jsonObject:
			target = target.object.get(token)
		case jsonArray:
			index, ok := parsePointerIndex(token)
			if !ok || index >= uint64(len(target.array)) {
				return nil
			}
			target = target.array[index]
		default:
			return nil
		}
		if target == nil {
			return nil
		}
	}
	return target
}

func parsePointerIndex(token string) (uint64, bool) {
	if strings.HasPrefix(token, "+") || (strings.HasPrefix(token, "0") && len(token) != 1) {
		return 0, false
	}
	index, err := strconv.ParseUint(token, 10, 64)
	return index, err == nil
}
