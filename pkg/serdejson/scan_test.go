package serdejson_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/codemodehq/codemode/pkg/serdejson"
)

// Scan's syntax is JSON's: it agrees with encoding/json.Valid, and measures depth as the nesting
// of arrays and objects.
func TestScanAgreesWithEncodingJSON(t *testing.T) {
	for _, c := range []string{
		`1`, `-0`, `-0.5e+3`, `01`, `1.`, `.5`, `1e`, `-`, `"a"`, `"\u00e9\n\"\\\/"`, `"\x"`, `"\u12"`, "\"\x01\"",
		`"unterminated`, `[]`, `{}`, `[1,2,]`, `{"a":1,}`, `{"a" 1}`, `{1:2}`, `[1 2]`, ` [ { "a" : [ null , true , false ] } ] `,
		`true`, `tru`, `nulll`, `[`, `]`, ``, ` `, `{"a":{"b":[{"c":"d"}]}}`, "[1]\x00", `"é"`, "\"\xff\"",
	} {
		r, err := serdejson.Scan([]byte(c), serdejson.ScanOptions{})
		if err != nil || r.Valid != json.Valid([]byte(c)) {
			t.Errorf("%q: Scan %+v %v, json.Valid %v", c, r, err, json.Valid([]byte(c)))
		}
	}
	r, _ := serdejson.Scan([]byte(`[{"a":[[]]},{}]`), serdejson.ScanOptions{DepthLimit: 10})
	if !r.Valid || r.MaxDepth != 4 {
		t.Errorf("depth: %+v, want 4", r)
	}
	deep := strings.Repeat("[", 300) + strings.Repeat("]", 300)
	if r, _ := serdejson.Scan([]byte(deep), serdejson.ScanOptions{DepthLimit: 256}); r.Valid || r.MaxDepth != 257 {
		t.Errorf("300 levels at a limit of 256: %+v", r)
	}
}

// The hooks: the value budget fails with its text where serde_json positions a visitor's error,
// the Key hook sees each key decoded with its depth and member index and fails at the key's
// closing quote, long string tokens are measured and surrogate escapes noted.
func TestScanHooks(t *testing.T) {
	budget := serdejson.ScanOptions{MaxValues: 3, ValuesText: "too many values"}
	if _, err := serdejson.Scan([]byte("[1,\n2]"), budget); err != nil {
		t.Errorf("3 values within a budget of 3: %v", err)
	}
	if _, err := serdejson.Scan([]byte("[1,\n2, 3]"), budget); err == nil || err.Error() != "too many values at line 2 column 2" {
		t.Errorf("4 values: %v", err)
	}
	if _, err := serdejson.Scan([]byte(`{"a":[],"b":{}}`), budget); err != nil {
		t.Errorf("keys are no values: %v", err)
	}

	var seen []string
	keys := serdejson.ScanOptions{Key: func(depth, member int, key []byte) string {
		seen = append(seen, fmt.Sprintf("%d.%d:%s", depth, member, key))
		if string(key) == "stop" {
			return "stopped at `stop`"
		}
		return ""
	}}
	r, err := serdejson.Scan([]byte(`{"a":[{"b\u00e9":1},{"c":{}}],"d\n":2}`), keys)
	if want := "1.0:a 3.0:bé 3.0:c 1.1:d\n"; err != nil || !r.Valid || strings.Join(seen, " ") != want {
		t.Errorf("keys %q, %+v %v; want %q", strings.Join(seen, " "), r, err, want)
	}
	if _, err := serdejson.Scan([]byte(`{"a":1,"stop":2}`), keys); err == nil || err.Error() != "stopped at `stop` at line 1 column 13" {
		t.Errorf("Key refusal: %v", err)
	}
	if r, err := serdejson.Scan([]byte(`{"\ud800":1}`), keys); err != nil || r.Valid {
		t.Errorf("a key serde_json cannot read stops the scan: %+v %v", r, err)
	}

	long := `["` + strings.Repeat("x", 10) + `","y",` + `"` + strings.Repeat("z", 20) + `"]`
	if r, _ := serdejson.Scan([]byte(long), serdejson.ScanOptions{LongString: 12}); !r.Valid || r.LongBytes != 12+22 {
		t.Errorf("long strings: %+v, want %d bytes", r, 12+22)
	}
	for c, want := range map[string]bool{`"\uD83D\uDE00"`: true, `"\udfff"`: true, `"\u00e9"`: false, `"\\ud800"`: false} {
		if r, _ := serdejson.Scan([]byte(c), serdejson.ScanOptions{}); !r.Valid || r.Surrogate != want {
			t.Errorf("%s: %+v, want Surrogate %v", c, r, want)
		}
	}
}

// FuzzScanAgreesWithParse: Scan and the Deserializer are one tokenizer. Whatever Parse accepts
// Scan finds valid; what Scan finds valid, with UTF-8 text and no surrogate escape, within
// serde_json's recursion limit, Parse accepts, unless a number is out of f64's range (a value's
// limit, not syntax: Scan checks syntax only).
func FuzzScanAgreesWithParse(f *testing.F) {
	for _, seed := range []string{`{"a":[1,2,{"b":null}]}`, `"\u00e9"`, `"\ud800"`, `-1.5e3`, `[[[]]]`, `{"a" 1}`, `01`, "\"\xff\"", `1e700`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := serdejson.Scan(b, serdejson.ScanOptions{DepthLimit: serdejson.RecursionLimit - 1})
		if err != nil {
			t.Fatalf("%q: a scan without hooks failed: %v", b, err)
		}
		_, perr := serdejson.Parse(b)
		if perr == nil && !r.Valid {
			t.Fatalf("%q: Parse accepts, Scan %+v", b, r)
		}
		if perr != nil && r.Valid && !r.Surrogate && utf8.Valid(b) && !strings.HasPrefix(perr.Error(), "number out of range") {
			t.Fatalf("%q: Scan %+v, Parse %v", b, r, perr)
		}
	})
}
