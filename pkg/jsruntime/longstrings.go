package jsruntime

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/codemodehq/codemode/pkg/serdejson"
)

// Long strings of a tool result cross into QuickJS made from Go, not parsed there. QuickJS's
// JSON.parse builds a string a character at a time (about 7 ns a character in wasm: 82 % of a
// 1 MiB result's time in the runtime), while QJS_NewString makes an ASCII string from its bytes
// at memory speed (engine.Deliver). So the result's JSON is split: its long ASCII string tokens are
// replaced by "" in a skeleton that QuickJS parses, and the prelude puts the strings, passed as
// arguments of deliver, back where they were (placeLongStrings in prelude.js). The value the cell
// receives is the one JSON.parse would have built.

const (
	// longResultMin is the size of a result from which it is worth looking for long strings.
	longResultMin = 64 << 10
	// longStringMin is the size of a string token from which it is made from Go.
	longStringMin = 8 << 10
	// maxLongStrings bounds the strings a batch passes as arguments.
	maxLongStrings = 64
)

// longString is one string of a result made from Go: its token's span in the result, its path
// from the result's root (keys as their raw tokens, array indices as numbers) and its value.
type longString struct {
	start, end int
	path       []string
	value      string
	dropped    bool
}

// splitLongStrings returns the skeleton of the valid JSON b and the places of its long strings
// ("[[k, step...], ...]", k counting from first), or ok false when b has none worth making from
// Go. A string qualifies when its token is at least longStringMin bytes, decodes to ASCII without
// NUL, and its path survives JSON.parse: no key on it is repeated in its object (JSON.parse keeps
// the last member of a repeated key).
func splitLongStrings(b []byte, first, room int) (skeleton []byte, places string, values []string, ok bool) {
	if len(b) < longResultMin || room <= 0 {
		return nil, "", nil, false
	}
	w := longWalk{b: b, room: room}
	w.value()
	var kept []longString
	for _, f := range w.found {
		if !f.dropped {
			kept = append(kept, f)
		}
	}
	if len(kept) == 0 {
		return nil, "", nil, false
	}
	return skeletonOf(b, kept), placesOf(kept, first), valuesOf(kept), true
}

// skeletonOf is b with the tokens of found replaced by "".
func skeletonOf(b []byte, found []longString) []byte {
	out := make([]byte, 0, len(b)-found[0].end+found[0].start+2)
	at := 0
	for _, f := range found {
		out = append(append(out, b[at:f.start]...), '"', '"')
		at = f.end
	}
	return append(out, b[at:]...)
}

func placesOf(found []longString, first int) string {
	var sb strings.Builder
	sb.WriteByte('[')
	for i, f := range found {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteByte('[')
		sb.WriteString(strconv.Itoa(first + i))
		for _, step := range f.path {
			sb.WriteByte(',')
			sb.WriteString(step)
		}
		sb.WriteByte(']')
	}
	sb.WriteByte(']')
	return sb.String()
}

func valuesOf(found []longString) []string {
	values := make([]string, len(found))
	for i, f := range found {
		values[i] = f.value
	}
	return values
}

// longWalk walks a valid JSON text (checked by scanToolResult) for long strings.
type longWalk struct {
	b     []byte
	i     int
	path  []step
	found []longString
	room  int // how many more strings may be found
}

// step is one step of a path: a member's key token, or an array index when key is nil.
type step struct {
	key   []byte
	index int
}

func (s step) String() string {
	if s.key == nil {
		return strconv.Itoa(s.index)
	}
	return string(s.key)
}

func (w *longWalk) space() {
	for w.i < len(w.b) && (w.b[w.i] == ' ' || w.b[w.i] == '\t' || w.b[w.i] == '\n' || w.b[w.i] == '\r') {
		w.i++
	}
}

func (w *longWalk) value() {
	w.space()
	switch w.b[w.i] {
	case '{':
		w.object()
	case '[':
		w.array()
	case '"':
		start := w.i
		w.skipString()
		w.consider(start, w.i)
	default:
		w.skipScalar()
	}
}

// skipScalar moves past a number, true, false or null.
func (w *longWalk) skipScalar() {
	for w.i < len(w.b) {
		switch w.b[w.i] {
		case ',', ']', '}', ' ', '\t', '\n', '\r':
			return
		}
		w.i++
	}
}

// skipString moves past the string token at w.i.
func (w *longWalk) skipString() {
	w.i++
	for {
		w.i += serdejson.PlainPrefix(w.b[w.i:])
		switch stringByte[w.b[w.i]] {
		case 1:
			w.i++
			return
		case 2:
			w.i += 2
		default:
			w.i++
		}
	}
}

// consider records the string token b[start:end] when it qualifies.
func (w *longWalk) consider(start, end int) {
	if end-start < longStringMin || len(w.found) >= w.room {
		return
	}
	s, ok := asciiString(w.b[start:end])
	if !ok {
		return
	}
	path := make([]string, len(w.path))
	for i, st := range w.path {
		path[i] = st.String()
	}
	w.found = append(w.found, longString{start: start, end: end, path: path, value: s})
}

func (w *longWalk) array() {
	w.i++
	for n := 0; ; n++ {
		w.space()
		if w.b[w.i] == ']' {
			w.i++
			return
		}
		if w.b[w.i] == ',' {
			w.i++
		}
		w.path = append(w.path, step{index: n})
		w.value()
		w.path = w.path[:len(w.path)-1]
	}
}

// walkedMember is one member of an object being walked: its key token and the strings found under it.
type walkedMember struct {
	key        []byte
	foundStart int
	foundEnd   int
}

func (w *longWalk) object() {
	w.i++
	var members []walkedMember
	for {
		w.space()
		if w.b[w.i] == '}' {
			w.i++
			w.dropRepeatedKeys(members)
			return
		}
		if w.b[w.i] == ',' {
			w.i++
			w.space()
		}
		start := w.i
		w.skipString()
		key := w.b[start:w.i]
		w.space()
		w.i++ // the colon
		m := walkedMember{key: key, foundStart: len(w.found)}
		w.path = append(w.path, step{key: key})
		w.value()
		w.path = w.path[:len(w.path)-1]
		m.foundEnd = len(w.found)
		members = append(members, m)
	}
}

// dropRepeatedKeys drops the strings found under a member whose key the object repeats: JSON.parse
// keeps only the last member of a key, and a path names a member by its key. Keys are compared as
// Go decodes them, which maps every lone surrogate to U+FFFD: keys JavaScript tells apart may
// compare equal, which only drops more.
func (w *longWalk) dropRepeatedKeys(members []walkedMember) {
	found := false
	for _, m := range members {
		found = found || m.foundEnd > m.foundStart
	}
	if !found {
		return
	}
	count := make(map[string]int, len(members))
	names := make([]string, len(members))
	for i, m := range members {
		_ = json.Unmarshal(m.key, &names[i])
		count[names[i]]++
	}
	for i, m := range members {
		if count[names[i]] > 1 {
			for k := m.foundStart; k < m.foundEnd; k++ {
				w.found[k].dropped = true
			}
		}
	}
}

// asciiString decodes a JSON string token whose value is ASCII without NUL (QJS_NewString reads a
// C string, and makes other strings no faster than JSON.parse); ok is false for any other.
func asciiString(tok []byte) (string, bool) {
	body := tok[1 : len(tok)-1]
	if serdejson.ASCIIPrefix(body) != len(body) {
		return "", false
	}
	if bytes.IndexByte(body, '\\') < 0 {
		return string(body), true
	}
	var sb strings.Builder
	sb.Grow(len(body))
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c != '\\' {
			sb.WriteByte(c)
			continue
		}
		i++
		switch body[i] {
		case '"', '\\', '/':
			sb.WriteByte(body[i])
		case 'b':
			sb.WriteByte('\b')
		case 'f':
			sb.WriteByte('\f')
		case 'n':
			sb.WriteByte('\n')
		case 'r':
			sb.WriteByte('\r')
		case 't':
			sb.WriteByte('\t')
		case 'u':
			r, err := strconv.ParseUint(string(body[i+1:i+5]), 16, 16)
			if err != nil || r == 0 || r >= 0x80 {
				return "", false
			}
			sb.WriteByte(byte(r))
			i += 4
		}
	}
	return sb.String(), true
}
