package execrpc

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// MaxValueNodes is Codex's MAX_JSONRPC_VALUE_NODES: the most JSON values one message may hold,
// counting the root, every array element and every object member's value (keys and string
// lengths do not count). A maximal fs/walk response is about 150,000 values.
const MaxValueNodes = 256 * 1024

// TooManyValuesText is the error text of a message over the budget.
var TooManyValuesText = "JSON-RPC message exceeds the limit of " + strconv.Itoa(MaxValueNodes) + " JSON values"

// maxScanDepth stops the pre-scan where serde_json's recursion limit stops the parser; the
// parser then reports the error in serde_json's words.
const maxScanDepth = 128

// scanResult is what the pre-scan learned about the top level of a message.
type scanResult struct {
	complete                    bool // the whole document was scanned without a syntax error
	object                      bool // the root is an object
	hasID, hasMethod, hasResult bool
}

// scanner walks a document once without building anything: it counts values against the budget
// and refuses duplicate keys, in document order, so an over-budget message is refused before a
// byte is allocated for its values. At the first syntax error it stops and leaves the verdict to
// the parser (serdeimpl.ParseDocument, serde_json's texts).
type scanner struct {
	data   []byte
	i      int
	budget int
	res    scanResult
	// keys is reused across objects: the keys of the objects on the current path.
	keys []string
}

var errSyntax = fmt.Errorf("syntax")

func scan(data []byte) (scanResult, error) {
	s := &scanner{data: data, budget: MaxValueNodes}
	err := s.value(0)
	if err == nil {
		s.ws()
		s.res.complete = s.i == len(s.data)
	}
	if err != nil && err != errSyntax {
		return s.res, err
	}
	return s.res, nil
}

// errorAt is msg at a 1-based byte offset into the document, in serde_json's form:
// "msg at line L column C" (C counts bytes from the line's start, as serde_json does).
func (s *scanner) errorAt(offset int, msg string) error {
	line, col := 1, offset
	for j := 0; j < offset-1 && j < len(s.data); j++ {
		if s.data[j] == '\n' {
			line, col = line+1, offset-j-1
		}
	}
	return fmt.Errorf("%s at line %d column %d", msg, line, col)
}

func (s *scanner) ws() {
	for s.i < len(s.data) {
		switch s.data[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *scanner) value(depth int) error {
	s.budget--
	if s.budget < 0 {
		// serde_json reports the last byte it consumed: the ',' or ':' before the value.
		return s.errorAt(s.i, TooManyValuesText)
	}
	s.ws()
	if s.i >= len(s.data) {
		return errSyntax
	}
	switch c := s.data[s.i]; {
	case c == '{':
		if depth == 0 {
			s.res.object = true
		}
		return s.object(depth + 1)
	case c == '[':
		return s.array(depth + 1)
	case c == '"':
		_, _, err := s.str()
		return err
	case c == 't':
		return s.lit("true")
	case c == 'f':
		return s.lit("false")
	case c == 'n':
		return s.lit("null")
	case c == '-' || (c >= '0' && c <= '9'):
		return s.number()
	}
	return errSyntax
}

func (s *scanner) lit(word string) error {
	if len(s.data)-s.i < len(word) || string(s.data[s.i:s.i+len(word)]) != word {
		return errSyntax
	}
	s.i += len(word)
	return nil
}

func (s *scanner) number() error {
	start := s.i
	if s.data[s.i] == '-' {
		s.i++
	}
	for s.i < len(s.data) {
		c := s.data[s.i]
		if (c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-' {
			s.i++
			continue
		}
		break
	}
	if s.i == start || (s.i == start+1 && s.data[start] == '-') {
		return errSyntax
	}
	return nil // the lexeme's grammar is the parser's to check
}

// str skips a string and returns its raw content and whether it holds escapes.
func (s *scanner) str() (raw []byte, escaped bool, err error) {
	s.i++ // opening quote
	start := s.i
	for s.i < len(s.data) {
		switch s.data[s.i] {
		case '"':
			raw = s.data[start:s.i]
			s.i++
			return raw, escaped, nil
		case '\\':
			escaped = true
			s.i += 2
		default:
			s.i++
		}
	}
	return nil, false, errSyntax
}

func (s *scanner) array(depth int) error {
	if depth > maxScanDepth {
		return errSyntax
	}
	s.i++
	s.ws()
	if s.i < len(s.data) && s.data[s.i] == ']' {
		s.i++
		return nil
	}
	for {
		if err := s.value(depth); err != nil {
			return err
		}
		s.ws()
		if s.i >= len(s.data) {
			return errSyntax
		}
		switch s.data[s.i] {
		case ',':
			s.i++
		case ']':
			s.i++
			return nil
		default:
			return errSyntax
		}
	}
}

func (s *scanner) object(depth int) error {
	if depth > maxScanDepth {
		return errSyntax
	}
	s.i++
	mark := len(s.keys)
	defer func() { s.keys = s.keys[:mark] }()
	var seen map[string]struct{}
	s.ws()
	if s.i < len(s.data) && s.data[s.i] == '}' {
		s.i++
		return nil
	}
	for {
		s.ws()
		if s.i >= len(s.data) || s.data[s.i] != '"' {
			return errSyntax
		}
		raw, escaped, err := s.str()
		if err != nil {
			return err
		}
		key := string(raw)
		if escaped {
			if err := json.Unmarshal(s.data[s.i-len(raw)-2:s.i], &key); err != nil {
				return errSyntax
			}
		}
		if seen != nil {
			if _, dup := seen[key]; dup {
				return s.errorAt(s.i, fmt.Sprintf("duplicate JSON object key `%s`", key))
			}
			seen[key] = struct{}{}
		} else {
			for _, k := range s.keys[mark:] {
				if k == key {
					return s.errorAt(s.i, fmt.Sprintf("duplicate JSON object key `%s`", key))
				}
			}
			s.keys = append(s.keys, key)
			// Past a few keys a set keeps the check linear.
			if len(s.keys)-mark > 16 {
				seen = make(map[string]struct{}, 64)
				for _, k := range s.keys[mark:] {
					seen[k] = struct{}{}
				}
			}
		}
		if depth == 1 {
			switch key {
			case "id":
				s.res.hasID = true
			case "method":
				s.res.hasMethod = true
			case "result":
				s.res.hasResult = true
			}
		}
		s.ws()
		if s.i >= len(s.data) || s.data[s.i] != ':' {
			return errSyntax
		}
		s.i++
		if err := s.value(depth); err != nil {
			return err
		}
		s.ws()
		if s.i >= len(s.data) {
			return errSyntax
		}
		switch s.data[s.i] {
		case ',':
			s.i++
		case '}':
			s.i++
			return nil
		default:
			return errSyntax
		}
	}
}
