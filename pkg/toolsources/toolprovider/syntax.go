package toolprovider

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// checkSyntax reports the first syntax error of data (with its line and column), or else every
// object member whose name appears twice in its object. encoding/json, like the schema
// validator's decoder, silently keeps the last of duplicate members, so a manifest that sets
// "timeout" twice would run with one of them and no word said.
func checkSyntax(data []byte) []Problem {
	dec := json.NewDecoder(bytes.NewReader(data))
	w := &syntaxWalk{dec: dec}
	if err := w.value(nil); err != nil {
		return []Problem{syntaxProblem(data, dec, err)}
	}
	end := int(dec.InputOffset())
	if _, err := dec.Token(); err != io.EOF {
		extra := end + len(data[end:]) - len(bytes.TrimLeft(data[end:], " \t\r\n"))
		line, col := position(data, extra)
		return []Problem{{Line: line, Column: col, Message: "unexpected data after the JSON value"}}
	}
	return w.duplicates
}

// syntaxWalk reads one JSON value token by token, collecting duplicate member names.
type syntaxWalk struct {
	dec        *json.Decoder
	duplicates []Problem
}

// value reads the value at path (its JSON Pointer tokens).
func (w *syntaxWalk) value(path []string) error {
	tok, err := w.dec.Token()
	if err != nil {
		return err
	}
	switch tok {
	case json.Delim('{'):
		return w.object(path)
	case json.Delim('['):
		return w.array(path)
	}
	return nil
}

func (w *syntaxWalk) object(path []string) error {
	seen := map[string]bool{}
	for w.dec.More() {
		tok, err := w.dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string) // the decoder only hands out string keys inside an object
		if seen[key] {
			w.duplicates = append(w.duplicates, Problem{
				Pointer: pointer(path...),
				Message: fmt.Sprintf("property %q appears twice (JSON keeps only the last)", key),
			})
		}
		seen[key] = true
		if err := w.value(append(path, key)); err != nil {
			return err
		}
	}
	_, err := w.dec.Token() // '}'
	return err
}

func (w *syntaxWalk) array(path []string) error {
	for i := 0; w.dec.More(); i++ {
		if err := w.value(append(path, strconv.Itoa(i))); err != nil {
			return err
		}
	}
	_, err := w.dec.Token() // ']'
	return err
}

// syntaxProblem locates a decoder error: a *json.SyntaxError carries its offset; running out of
// input is at the end.
func syntaxProblem(data []byte, dec *json.Decoder, err error) Problem {
	offset := int(dec.InputOffset())
	msg := err.Error()
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		offset = int(se.Offset)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		offset, msg = len(data), "unexpected end of JSON input"
	}
	line, col := position(data, offset)
	return Problem{Line: line, Column: col, Message: msg}
}

// position converts a byte offset into a 1-based line and column (in bytes).
func position(data []byte, offset int) (line, col int) {
	offset = min(max(offset, 0), len(data))
	before := data[:offset]
	line = bytes.Count(before, []byte{'\n'}) + 1
	col = offset - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return line, col
}
