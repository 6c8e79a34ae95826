package jsruntime

import "github.com/codemodehq/codemode/pkg/serdejson"

// A tool result is checked in one pass, JSON's syntax and the nesting depth together, by the
// module's one scanner (serdejson.Scan, docs/adr/0069-one-of-each-mechanism.md): encoding/json.Valid
// and a separate depth scan took two passes and a third of a 1 MiB result's time in the runtime.

// toolResultScan is the scan of a tool result: at most MaxToolResultDepth deep, counting the
// bytes of string tokens of at least longStringMin bytes (longstrings.go).
var toolResultScan = serdejson.ScanOptions{DepthLimit: MaxToolResultDepth, LongString: longStringMin}

// scanJSON reports whether b is one JSON value (with white space around it) nested at most limit
// deep, and the deepest nesting it saw. It gives up (false) on the first error or past limit.
func scanJSON(b []byte, limit int) (depth int, ok bool) {
	r, _ := serdejson.Scan(b, serdejson.ScanOptions{DepthLimit: limit})
	return r.MaxDepth, r.Valid
}

// scanToolResult is scanJSON at MaxToolResultDepth that also counts the bytes of b's long string
// tokens.
func scanToolResult(b []byte) (longBytes int, ok bool) {
	r, _ := serdejson.Scan(b, toolResultScan)
	return r.LongBytes, r.Valid
}

// stringByte classifies a byte inside a JSON string for longWalk: 0 plain, 1 the closing quote,
// 2 a backslash, 3 a control character.
var stringByte = func() (t [256]byte) {
	for c := range 0x20 {
		t[c] = 3
	}
	t['"'], t['\\'] = 1, 2
	return t
}()
