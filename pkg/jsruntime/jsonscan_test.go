package jsruntime

import (
	"encoding/json"
	"strings"
	"testing"
)

// scanJSON agrees with encoding/json.Valid, and measures depth as nesting of arrays and objects.
func TestScanJSONAgreesWithEncodingJSON(t *testing.T) {
	for _, c := range []string{
		`1`, `-0`, `-0.5e+3`, `01`, `1.`, `.5`, `1e`, `-`, `"a"`, `"\u00e9\n\"\\\/"`, `"\x"`, `"\u12"`, "\"\x01\"",
		`"unterminated`, `[]`, `{}`, `[1,2,]`, `{"a":1,}`, `{"a" 1}`, `{1:2}`, `[1 2]`, ` [ { "a" : [ null , true , false ] } ] `,
		`true`, `tru`, `nulll`, `[`, `]`, ``, ` `, `{"a":{"b":[{"c":"d"}]}}`, "[1]\x00", `"é"`, "\"\xff\"",
	} {
		_, ok := scanJSON([]byte(c), MaxToolResultDepth)
		if ok != json.Valid([]byte(c)) {
			t.Errorf("%q: scanJSON %v, json.Valid %v", c, ok, !ok)
		}
	}
	if depth, ok := scanJSON([]byte(`[{"a":[[]]},{}]`), 10); !ok || depth != 4 {
		t.Errorf("depth %d %v, want 4", depth, ok)
	}
	deep := strings.Repeat("[", 300) + strings.Repeat("]", 300)
	if _, ok := scanJSON([]byte(deep), MaxToolResultDepth); ok {
		t.Error("300 levels passed a limit of 256")
	}
	if got, _ := checkToolResult([]byte(deep), 1<<20); got != "tool result is nested deeper than 256 levels" {
		t.Errorf("deep: %q", got)
	}
	if got, _ := checkToolResult([]byte(`{"a":`), 1<<20); got != "tool result is not valid JSON" {
		t.Errorf("invalid: %q", got)
	}
}

// FuzzScanJSON: on any input, scanJSON agrees with encoding/json.Valid wherever the nesting stays
// within the limit.
func FuzzScanJSON(f *testing.F) {
	for _, seed := range []string{`{"a":[1,2,{"b":null}]}`, `"\u00e9"`, `-1.5e3`, `[[[]]]`, `{"a" 1}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		depth, ok := scanJSON(b, 64)
		if depth > 64 {
			return
		}
		if ok != json.Valid(b) {
			t.Fatalf("%q: scanJSON %v, json.Valid %v", b, ok, !ok)
		}
	})
}
