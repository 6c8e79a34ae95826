package exectool

import (
	"errors"
	"fmt"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// waitArgsStruct is the Rust struct name serde quotes in wait argument errors.
const waitArgsStruct = "struct ExecWaitArgs"

// ParseWaitArguments decodes the JSON arguments of a wait call as Codex's wait handler does
// (serde_json::from_str into ExecWaitArgs): cell_id is a required string; yield_time_ms a
// u64 defaulting to codemode.DefaultWaitYieldTimeMs (null is rejected); max_tokens an
// optional usize; terminate a bool defaulting to false; other fields are ignored. Failures
// read "failed to parse function arguments: {serde_json error}", with serde_json's message
// and position, e.g. "failed to parse function arguments: missing field `cell_id` at line 1
// column 2". Like serde, a JSON array is accepted as the fields in declaration order.
func ParseWaitArguments(arguments string) (WaitArguments, error) {
	d := &waitArgsDecoder{serdeParser{data: []byte(arguments), remainingDepth: serdeRecursionLimit}}
	args, err := d.decode()
	if err == nil {
		if _, more := d.skipWhitespace(); more {
			err = d.peekError(errTrailingCharacters)
		}
	}
	if err != nil {
		return WaitArguments{}, errors.New("failed to parse function arguments: " + err.Error())
	}
	return args, nil
}

// waitArgsDecoder mirrors serde_json's streaming Deserializer driving the serde-derived
// visitor of ExecWaitArgs, so that the first error in input order is the one reported.
type waitArgsDecoder struct {
	serdeParser
}

// serdeCustomError is an error raised by a visitor (missing or duplicate field, invalid
// length), which serde_json positions where the enclosing value ended.
type serdeCustomError struct{ msg string }

func (e *serdeCustomError) Error() string { return e.msg }

func (d *waitArgsDecoder) decode() (WaitArguments, error) {
	b, ok := d.skipWhitespace()
	if !ok {
		return WaitArguments{}, d.peekError(errEOFWhileParsingValue)
	}
	switch b {
	case '{':
		return d.nestedArgs(d.visitMap, d.endMap)
	case '[':
		return d.nestedArgs(d.visitSeq, d.endSeq)
	default:
		return WaitArguments{}, d.invalidType(waitArgsStruct)
	}
}

// nestedArgs runs a visitor inside serde_json's recursion guard, then its end check; a
// visitor error wins over the end check and custom errors get the position after it.
func (d *waitArgsDecoder) nestedArgs(visit func() (WaitArguments, error), end func() error) (WaitArguments, error) {
	d.remainingDepth--
	if d.remainingDepth == 0 {
		return WaitArguments{}, d.peekError(errRecursionLimitExceeded)
	}
	d.index++
	args, err := visit()
	d.remainingDepth++
	endErr := end()
	var custom *serdeCustomError
	switch {
	case errors.As(err, &custom):
		return WaitArguments{}, d.error(custom.msg)
	case err != nil:
		return WaitArguments{}, err
	case endErr != nil:
		return WaitArguments{}, endErr
	}
	return args, nil
}

func (d *waitArgsDecoder) visitMap() (WaitArguments, error) {
	var args WaitArguments
	seen := map[string]bool{}
	first := true
	for {
		b, ok := d.skipWhitespace()
		if !ok {
			return args, d.peekError(errEOFWhileParsingObject)
		}
		if b == '}' {
			break
		}
		if first {
			if b != '"' {
				return args, d.peekError(errKeyMustBeAString)
			}
		} else {
			if b != ',' {
				return args, d.peekError(errExpectedObjectCommaOrEnd)
			}
			d.index++
			b, ok = d.skipWhitespace()
			switch {
			case !ok:
				return args, d.peekError(errEOFWhileParsingValue)
			case b == '}':
				return args, d.peekError(errTrailingComma)
			case b != '"':
				return args, d.peekError(errKeyMustBeAString)
			}
		}
		first = false
		d.index++
		key, err := d.parseString()
		if err != nil {
			return args, err
		}
		known := key == "cell_id" || key == "yield_time_ms" || key == "max_tokens" || key == "terminate"
		if known && seen[key] {
			return args, &serdeCustomError{msg: "duplicate field `" + key + "`"}
		}
		seen[key] = true
		if err := d.parseColon(); err != nil {
			return args, err
		}
		if err := d.decodeField(&args, key); err != nil {
			return args, err
		}
	}
	if !seen["cell_id"] {
		return args, &serdeCustomError{msg: "missing field `cell_id`"}
	}
	if !seen["yield_time_ms"] {
		args.YieldTimeMs = ptrTo(codemode.DefaultWaitYieldTimeMs)
	}
	return args, nil
}

func (d *waitArgsDecoder) parseColon() error {
	b, ok := d.skipWhitespace()
	if !ok {
		return d.peekError(errEOFWhileParsingObject)
	}
	if b != ':' {
		return d.peekError(errExpectedColon)
	}
	d.index++
	return nil
}

func (d *waitArgsDecoder) decodeField(args *WaitArguments, key string) error {
	var err error
	switch key {
	case "cell_id":
		args.CellID, err = d.decodeString()
	case "yield_time_ms":
		var v uint64
		v, err = d.decodeUnsigned("u64")
		args.YieldTimeMs = &v
	case "max_tokens":
		args.MaxTokens, err = d.decodeOptionalUnsigned("usize")
	case "terminate":
		args.Terminate, err = d.decodeBool()
	default:
		_, err = d.parseValue()
	}
	return err
}

// visitSeq accepts the fields positionally: [cell_id, yield_time_ms?, max_tokens?, terminate?].
func (d *waitArgsDecoder) visitSeq() (WaitArguments, error) {
	args := WaitArguments{YieldTimeMs: ptrTo(codemode.DefaultWaitYieldTimeMs)}
	first := true
	for index := 0; index < 4; index++ {
		more, err := d.hasNextElement(first)
		if err != nil {
			return args, err
		}
		first = false
		if !more {
			if index == 0 {
				return args, &serdeCustomError{msg: "invalid length 0, expected " + waitArgsStruct + " with 4 elements"}
			}
			return args, nil
		}
		switch index {
		case 0:
			args.CellID, err = d.decodeString()
		case 1:
			var v uint64
			v, err = d.decodeUnsigned("u64")
			args.YieldTimeMs = &v
		case 2:
			args.MaxTokens, err = d.decodeOptionalUnsigned("usize")
		case 3:
			args.Terminate, err = d.decodeBool()
		}
		if err != nil {
			return args, err
		}
	}
	return args, nil
}

func (d *waitArgsDecoder) hasNextElement(first bool) (bool, error) {
	b, ok := d.skipWhitespace()
	if !ok {
		return false, d.peekError(errEOFWhileParsingList)
	}
	if b == ']' {
		return false, nil
	}
	if first {
		return true, nil
	}
	if b != ',' {
		return false, d.peekError(errExpectedListCommaOrEnd)
	}
	d.index++
	b, ok = d.skipWhitespace()
	switch {
	case !ok:
		return false, d.peekError(errEOFWhileParsingValue)
	case b == ']':
		return false, d.peekError(errTrailingComma)
	}
	return true, nil
}

func (d *waitArgsDecoder) endMap() error {
	b, ok := d.skipWhitespace()
	switch {
	case !ok:
		return d.peekError(errEOFWhileParsingObject)
	case b == '}':
		d.index++
		return nil
	case b == ',':
		return d.peekError(errTrailingComma)
	default:
		return d.peekError(errTrailingCharacters)
	}
}

func (d *waitArgsDecoder) endSeq() error {
	b, ok := d.skipWhitespace()
	switch {
	case !ok:
		return d.peekError(errEOFWhileParsingList)
	case b == ']':
		d.index++
		return nil
	case b == ',':
		d.index++
		if b, ok := d.skipWhitespace(); ok && b == ']' {
			return d.peekError(errTrailingComma)
		}
		return d.peekError(errTrailingCharacters)
	default:
		return d.peekError(errTrailingCharacters)
	}
}

func (d *waitArgsDecoder) decodeString() (string, error) {
	b, ok := d.skipWhitespace()
	if !ok {
		return "", d.peekError(errEOFWhileParsingValue)
	}
	if b != '"' {
		return "", d.invalidType("a string")
	}
	d.index++
	return d.parseString()
}

func (d *waitArgsDecoder) decodeBool() (bool, error) {
	b, ok := d.skipWhitespace()
	if !ok {
		return false, d.peekError(errEOFWhileParsingValue)
	}
	switch b {
	case 't':
		d.index++
		return true, d.parseIdent("rue")
	case 'f':
		d.index++
		return false, d.parseIdent("alse")
	default:
		return false, d.invalidType("a boolean")
	}
}

func (d *waitArgsDecoder) decodeOptionalUnsigned(expected string) (*uint64, error) {
	b, ok := d.skipWhitespace()
	if ok && b == 'n' {
		d.index++
		return nil, d.parseIdent("ull")
	}
	v, err := d.decodeUnsigned(expected)
	if err != nil {
		return nil, err
	}
	return &v, nil
}

func (d *waitArgsDecoder) decodeUnsigned(expected string) (uint64, error) {
	b, ok := d.skipWhitespace()
	if !ok {
		return 0, d.peekError(errEOFWhileParsingValue)
	}
	if b != '-' && (b < '0' || b > '9') {
		return 0, d.invalidType(expected)
	}
	v, err := d.parseValue()
	if err != nil {
		return 0, err
	}
	switch v.numKind {
	case numberPosInt:
		return v.u, nil
	case numberNegInt:
		return 0, d.error(fmt.Sprintf("invalid value: %s, expected %s", serdeUnexpected(v), expected))
	default:
		return 0, d.error(fmt.Sprintf("invalid type: %s, expected %s", serdeUnexpected(v), expected))
	}
}

// invalidType is serde_json's peek_invalid_type: it consumes a scalar to describe it (its
// syntax errors win) and reports after it; arrays and objects are reported at their start.
func (d *waitArgsDecoder) invalidType(expected string) error {
	b, _ := d.peek()
	var unexpected string
	switch {
	case b == 'n':
		d.index++
		if err := d.parseIdent("ull"); err != nil {
			return err
		}
		unexpected = "null"
	case b == 't' || b == 'f' || b == '-' || b == '"' || (b >= '0' && b <= '9'):
		v, err := d.parseValue()
		if err != nil {
			return err
		}
		unexpected = serdeUnexpected(v)
	case b == '[':
		unexpected = "sequence"
	case b == '{':
		unexpected = "map"
	default:
		return d.peekError(errExpectedSomeValue)
	}
	return d.error("invalid type: " + unexpected + ", expected " + expected)
}

func ptrTo[T any](v T) *T { return &v }
