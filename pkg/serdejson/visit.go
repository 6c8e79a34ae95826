package serdejson

import "errors"

// This file holds what a serde-derived Deserialize implementation does with serde_json's
// Deserializer, for Go code that must report the first error in input order with serde's text:
// the struct entry point, map and sequence access, and the primitive deserializers.

// customError is an error raised by a visitor (serde::de::Error::custom): it has no position
// until DeserializeStruct gives it one.
type customError struct{ msg string }

func (e *customError) Error() string { return e.msg }

// Custom returns a visitor error such as "missing field `cell_id`"; DeserializeStruct positions
// it where the struct ended, as serde_json's fix_position does.
func Custom(msg string) error { return &customError{msg: msg} }

// DeserializeStruct is serde_json's deserialize_struct: an object is handed to visitMap and an
// array to visitSeq (serde accepts a struct's fields positionally) inside the recursion guard,
// then the container's end is checked; anything else is an invalid type error naming expecting
// (e.g. "struct ExecWaitArgs"). A visitor error wins over the end check.
func (d *Deserializer) DeserializeStruct(expecting string, visitMap, visitSeq func() error) error {
	b, ok := d.SkipWhitespace()
	if !ok {
		return d.PeekErr(ErrEOFWhileParsingValue)
	}
	visit, end := visitMap, d.EndMap
	switch b {
	case '{':
	case '[':
		visit, end = visitSeq, d.EndSeq
	default:
		return d.PeekInvalidType(expecting)
	}
	if err := d.Enter(); err != nil {
		return err
	}
	d.index++
	err := visit()
	d.Leave()
	endErr := end()
	var custom *customError
	switch {
	case errors.As(err, &custom):
		return d.Err(custom.msg)
	case err != nil:
		return err
	}
	return endErr
}

// NextKey is serde_json's MapAccess::next_key_seed: it reads the separator before a key (none
// before the first) and the key itself; more is false, with nothing consumed, at the closing '}'.
// ObjectColon must follow before the value.
func (d *Deserializer) NextKey(first bool) (key string, more bool, err error) {
	b, ok := d.SkipWhitespace()
	switch {
	case !ok:
		return "", false, d.PeekErr(ErrEOFWhileParsingObject)
	case b == '}':
		return "", false, nil
	case !first:
		if b != ',' {
			return "", false, d.PeekErr(ErrExpectedObjectCommaOrEnd)
		}
		d.index++
		if b, ok = d.SkipWhitespace(); !ok {
			return "", false, d.PeekErr(ErrEOFWhileParsingValue)
		}
		if b == '}' {
			return "", false, d.PeekErr(ErrTrailingComma)
		}
	}
	if b != '"' {
		return "", false, d.PeekErr(ErrKeyMustBeAString)
	}
	d.index++
	key, err = d.ParseString()
	return key, err == nil, err
}

// ObjectColon consumes the ':' between a key and its value.
func (d *Deserializer) ObjectColon() error {
	b, ok := d.SkipWhitespace()
	if !ok {
		return d.PeekErr(ErrEOFWhileParsingObject)
	}
	if b != ':' {
		return d.PeekErr(ErrExpectedColon)
	}
	d.index++
	return nil
}

// NextElement is serde_json's SeqAccess::has_next_element: it reads the separator before an
// element (none before the first); more is false, with nothing consumed, at the closing ']'.
func (d *Deserializer) NextElement(first bool) (more bool, err error) {
	b, ok := d.SkipWhitespace()
	switch {
	case !ok:
		return false, d.PeekErr(ErrEOFWhileParsingList)
	case b == ']':
		return false, nil
	case first:
		return true, nil
	case b != ',':
		return false, d.PeekErr(ErrExpectedListCommaOrEnd)
	}
	d.index++
	b, ok = d.SkipWhitespace()
	switch {
	case !ok:
		return false, d.PeekErr(ErrEOFWhileParsingValue)
	case b == ']':
		return false, d.PeekErr(ErrTrailingComma)
	}
	return true, nil
}

// EndMap is serde_json's end_map: a visitor that stopped early leaves members behind.
func (d *Deserializer) EndMap() error {
	b, ok := d.SkipWhitespace()
	switch {
	case !ok:
		return d.PeekErr(ErrEOFWhileParsingObject)
	case b == '}':
		d.index++
		return nil
	case b == ',':
		return d.PeekErr(ErrTrailingComma)
	}
	return d.PeekErr(ErrTrailingCharacters)
}

// EndSeq is serde_json's end_seq: a visitor that took fewer elements than present fails here.
func (d *Deserializer) EndSeq() error {
	b, ok := d.SkipWhitespace()
	switch {
	case !ok:
		return d.PeekErr(ErrEOFWhileParsingList)
	case b == ']':
		d.index++
		return nil
	case b == ',':
		d.index++
		if b, ok := d.SkipWhitespace(); ok && b == ']' {
			return d.PeekErr(ErrTrailingComma)
		}
	}
	return d.PeekErr(ErrTrailingCharacters)
}

// DeserializeString reads a string value.
func (d *Deserializer) DeserializeString() (string, error) {
	b, ok := d.SkipWhitespace()
	if !ok {
		return "", d.PeekErr(ErrEOFWhileParsingValue)
	}
	if b != '"' {
		return "", d.PeekInvalidType("a string")
	}
	d.index++
	return d.ParseString()
}

// DeserializeBool reads a boolean value.
func (d *Deserializer) DeserializeBool() (bool, error) {
	b, ok := d.SkipWhitespace()
	if !ok {
		return false, d.PeekErr(ErrEOFWhileParsingValue)
	}
	switch b {
	case 't':
		d.index++
		return true, d.ParseIdent("rue")
	case 'f':
		d.index++
		return false, d.ParseIdent("alse")
	}
	return false, d.PeekInvalidType("a boolean")
}

// DeserializeOptionU64 reads null (nil) or an unsigned integer of the Rust type named by
// expecting ("u64", "usize").
func (d *Deserializer) DeserializeOptionU64(expecting string) (*uint64, error) {
	if b, ok := d.SkipWhitespace(); ok && b == 'n' {
		d.index++
		return nil, d.ParseIdent("ull")
	}
	v, err := d.DeserializeU64(expecting)
	if err != nil {
		return nil, err
	}
	return &v, nil
}

// DeserializeU64 reads an unsigned integer of the Rust type named by expecting ("u64",
// "usize"): a negative integer is an invalid value, a float an invalid type.
func (d *Deserializer) DeserializeU64(expecting string) (uint64, error) {
	b, ok := d.SkipWhitespace()
	if !ok {
		return 0, d.PeekErr(ErrEOFWhileParsingValue)
	}
	if b != '-' && !isDigit(b) {
		return 0, d.PeekInvalidType(expecting)
	}
	v, err := d.parseNumberValue()
	if err != nil {
		return 0, err
	}
	switch v.numKind {
	case PosInt:
		return v.u, nil
	case NegInt:
		return 0, d.Err("invalid value: " + v.Unexpected() + ", expected " + expecting)
	}
	return 0, d.Err("invalid type: " + v.Unexpected() + ", expected " + expecting)
}

// IgnoreValue parses and drops the next value (an unknown field's).
func (d *Deserializer) IgnoreValue() error {
	_, err := d.ParseValue()
	return err
}

// PeekInvalidType is serde_json's peek_invalid_type: it consumes a scalar to describe it (its
// syntax errors win) and reports after it; arrays and objects are reported at their start.
func (d *Deserializer) PeekInvalidType(expecting string) error {
	b, _ := d.Peek()
	var unexpected string
	switch {
	case b == 'n':
		d.index++
		if err := d.ParseIdent("ull"); err != nil {
			return err
		}
		unexpected = "null"
	case b == 't' || b == 'f' || b == '-' || b == '"' || isDigit(b):
		v, err := d.ParseValue()
		if err != nil {
			return err
		}
		unexpected = v.Unexpected()
	case b == '[':
		unexpected = "sequence"
	case b == '{':
		unexpected = "map"
	default:
		return d.PeekErr(ErrExpectedSomeValue)
	}
	return d.Err("invalid type: " + unexpected + ", expected " + expecting)
}
