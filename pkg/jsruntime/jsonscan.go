package jsruntime

// A one-pass check of a tool result: JSON's syntax and the nesting depth together, with strings
// skipped a byte at a time through a table. encoding/json.Valid and a separate depth scan took two
// passes and a third of a 1 MiB result's time in the runtime.

// stringByte classifies a byte inside a JSON string: 0 plain, 1 the closing quote, 2 a backslash,
// 3 a control character (not allowed unescaped).
var stringByte = func() (t [256]byte) {
	for c := range 0x20 {
		t[c] = 3
	}
	t['"'], t['\\'] = 1, 2
	return t
}()

// jsonScan is the state of scanJSON.
type jsonScan struct {
	b        []byte
	i        int
	maxDepth int // the deepest nesting seen
	limit    int // the nesting at which the scan gives up
	// longBytes counts the bytes of string tokens of at least longStringMin bytes (longstrings.go).
	longBytes int
	// surrogate is set when an escape of a surrogate was seen (\ud800 to \udfff, either case).
	surrogate bool
}

// scanJSON reports whether b is one JSON value (with white space around it) nested at most limit
// deep, and the deepest nesting it saw. It gives up (false) on the first error or past limit.
func scanJSON(b []byte, limit int) (depth int, ok bool) {
	s := jsonScan{b: b, limit: limit}
	ok = s.value(0) && s.end()
	return s.maxDepth, ok
}

// scanToolResult is scanJSON at MaxToolResultDepth that also counts the bytes of b's long string
// tokens.
func scanToolResult(b []byte) (longBytes int, ok bool) {
	s := jsonScan{b: b, limit: MaxToolResultDepth}
	ok = s.value(0) && s.end()
	return s.longBytes, ok
}

func (s *jsonScan) end() bool {
	s.space()
	return s.i == len(s.b)
}

func (s *jsonScan) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// value scans one value at nesting depth.
func (s *jsonScan) value(depth int) bool {
	s.space()
	if s.i >= len(s.b) {
		return false
	}
	switch c := s.b[s.i]; {
	case c == '{' || c == '[':
		return s.container(depth+1, c)
	case c == '"':
		return s.str()
	case c == '-' || (c >= '0' && c <= '9'):
		return s.number()
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	}
	return false
}

// container scans an object or an array opened by open at nesting depth.
func (s *jsonScan) container(depth int, open byte) bool {
	s.maxDepth = max(s.maxDepth, depth)
	if depth > s.limit {
		return false
	}
	closer := byte(']')
	if open == '{' {
		closer = '}'
	}
	s.i++
	s.space()
	if s.i < len(s.b) && s.b[s.i] == closer {
		s.i++
		return true
	}
	for {
		if open == '{' && !s.member(depth) {
			return false
		}
		if open == '[' && !s.value(depth) {
			return false
		}
		s.space()
		if s.i >= len(s.b) {
			return false
		}
		switch s.b[s.i] {
		case ',':
			s.i++
		case closer:
			s.i++
			return true
		default:
			return false
		}
	}
}

// member scans `"key": value` inside an object at nesting depth.
func (s *jsonScan) member(depth int) bool {
	s.space()
	if s.i >= len(s.b) || s.b[s.i] != '"' || !s.str() {
		return false
	}
	s.space()
	if s.i >= len(s.b) || s.b[s.i] != ':' {
		return false
	}
	s.i++
	return s.value(depth)
}

// str scans a string starting at its opening quote.
func (s *jsonScan) str() bool {
	start := s.i
	s.i++
	for s.i < len(s.b) {
		switch stringByte[s.b[s.i]] {
		case 0:
			s.i++
		case 1:
			s.i++
			if s.i-start >= longStringMin {
				s.longBytes += s.i - start
			}
			return true
		case 2:
			if !s.escape() {
				return false
			}
		default:
			return false
		}
	}
	return false
}

// escape scans a backslash escape.
func (s *jsonScan) escape() bool {
	if s.i+1 >= len(s.b) {
		return false
	}
	switch s.b[s.i+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		s.i += 2
		return true
	case 'u':
		if s.i+6 > len(s.b) {
			return false
		}
		for _, h := range s.b[s.i+2 : s.i+6] {
			if !isHex(h) {
				return false
			}
		}
		if h0, h1 := s.b[s.i+2]|0x20, s.b[s.i+3]|0x20; h0 == 'd' && (h1 >= '8' && h1 <= '9' || h1 >= 'a' && h1 <= 'f') {
			s.surrogate = true
		}
		s.i += 6
		return true
	}
	return false
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// number scans -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
func (s *jsonScan) number() bool {
	if s.b[s.i] == '-' {
		s.i++
	}
	switch {
	case s.i < len(s.b) && s.b[s.i] == '0':
		s.i++
	case !s.digits():
		return false
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if !s.digits() {
			return false
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		return s.digits()
	}
	return true
}

// digits scans one or more decimal digits.
func (s *jsonScan) digits() bool {
	start := s.i
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
	}
	return s.i > start
}

func (s *jsonScan) literal(word string) bool {
	if len(s.b)-s.i < len(word) || string(s.b[s.i:s.i+len(word)]) != word {
		return false
	}
	s.i += len(word)
	return true
}
