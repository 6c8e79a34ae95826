package serdejson_test

import (
	"github.com/codemodehq/codemode/pkg/serdejson"
	"github.com/codemodehq/codemode/pkg/serdejson/internal/serdecases"
	"testing"
)

var serdeRoundTripCases = []struct{ input, want string }{
	{"1e-400", "0.0"},
	{"{\"yield_time_ms\": 10}", "{\"yield_time_ms\":10}"},
	{"{\"yield_time_ms\": -1}", "{\"yield_time_ms\":-1}"},
	{"{\"yield_time_ms\": 1.5}", "{\"yield_time_ms\":1.5}"},
	{"{\"yield_time_ms\": \"10\"}", "{\"yield_time_ms\":\"10\"}"},
	{"{\"yield_time_ms\": true}", "{\"yield_time_ms\":true}"},
	{"{\"yield_time_ms\": []}", "{\"yield_time_ms\":[]}"},
	{"{\"yield_time_ms\": {}}", "{\"yield_time_ms\":{}}"},
	{"{\"yield_time_ms\": null}", "{\"yield_time_ms\":null}"},
	{"{\"max_output_tokens\": -5, \"yield_time_ms\": \"x\"}", "{\"max_output_tokens\":-5,\"yield_time_ms\":\"x\"}"},
	{"{\"yield_time_ms\": 1e20}", "{\"yield_time_ms\":1e20}"},
	{"{\"yield_time_ms\": 1e2}", "{\"yield_time_ms\":100.0}"},
	{"{\"yield_time_ms\": -0}", "{\"yield_time_ms\":-0.0}"},
	{"{\"yield_time_ms\": 18446744073709551616}", "{\"yield_time_ms\":1.8446744073709552e19}"},
	{"{\"yield_time_ms\": 0.0000001}", "{\"yield_time_ms\":1e-7}"},
	{"{\"yield_time_ms\": \"a\\\"b\\n\\t\\u0001é\"}", "{\"yield_time_ms\":\"a\\\"b\\n\\t\\u0001é\"}"},
	{"{\"yield_time_ms\": 10, \"yield_time_ms\": 20}", "{\"yield_time_ms\":20}"},
	{"{\"max_output_tokens\": 9007199254740992}", "{\"max_output_tokens\":9007199254740992}"},
	{"  {\"yield_time_ms\":1}  ", "{\"yield_time_ms\":1}"},
	{"{\"yield_time_ms\":1}\r", "{\"yield_time_ms\":1}"},
	{"1.5e300", "1.5e300"},
	{"-9223372036854775809", "-9.223372036854776e18"},
	{"0.1", "0.1"},
	{"1e16", "1e16"},
	{"1e15", "1000000000000000.0"},
	{"1.5e-7", "1.5e-7"},
	{"0.00001234", "0.00001234"},
	{"-0.0", "-0.0"},
	{"[1.0,2.5,1e100,-3]", "[1.0,2.5,1e100,-3]"},
	{"{\"b\":1,\"a\":[true,null,\"\\u2028<>&\\u007f\"]}", "{\"a\":[true,null,\"\u2028<>&\x7f\"],\"b\":1}"},
}

func TestParseSyntaxErrorsMatchSerdeJSON(t *testing.T) {
	for _, tc := range serdecases.SyntaxErrors {
		_, err := serdejson.Parse([]byte(tc.Input))
		if err == nil {
			t.Errorf("parse %q: no error, want %q", tc.Input, tc.Want)
			continue
		}
		if err.Error() != tc.Want {
			t.Errorf("parse %q:\n got %q\nwant %q", tc.Input, err.Error(), tc.Want)
		}
	}
}

func TestStringMatchesSerdeJSONToString(t *testing.T) {
	for _, tc := range serdeRoundTripCases {
		v, err := serdejson.Parse([]byte(tc.input))
		if err != nil {
			t.Errorf("parse %q: %v", tc.input, err)
			continue
		}
		if got := v.String(); got != tc.want {
			t.Errorf("to_string(%q):\n got %q\nwant %q", tc.input, got, tc.want)
		}
	}
}

func TestUnexpectedMatchesSerde(t *testing.T) {
	// Modern serde prints floats in Unexpected with a decimal point (WithDecimalPoint).
	cases := []struct{ input, want string }{
		{"null", "unit value"},
		{"true", "boolean `true`"},
		{"7", "integer `7`"},
		{"-7", "integer `-7`"},
		{"1.5", "floating point `1.5`"},
		{"1e20", "floating point `100000000000000000000.0`"},
		{"1e2", "floating point `100.0`"},
		{"-0", "floating point `-0.0`"},
		{"0.0000001", "floating point `0.0000001`"},
		{`"a\"b\n\t\u0001é"`, `string "a\"b\n\t\u{1}é"`},
		{"[]", "sequence"},
		{"{}", "map"},
	}
	for _, tc := range cases {
		v, err := serdejson.Parse([]byte(tc.input))
		if err != nil {
			t.Fatalf("parse %q: %v", tc.input, err)
		}
		if got := v.Unexpected(); got != tc.want {
			t.Errorf("unexpected(%s) = %q, want %q", tc.input, got, tc.want)
		}
	}
}

func TestJSONPointerFollowsSerdeJSON(t *testing.T) {
	doc, err := serdejson.Parse([]byte(`{"a/b":{"m~n":[10,11]},"~1":1,"":{"":2}}`))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		pointer string
		want    string // "" when unresolved
	}{
		{"", `{"":{"":2},"a/b":{"m~n":[10,11]},"~1":1}`},
		{"/a~1b/m~0n/1", "11"},
		{"/a~1b/m~0n/01", ""},
		{"/a~1b/m~0n/+1", ""},
		{"/a~1b/m~0n/2", ""},
		{"/~01", "1"},
		{"//", "2"},
		{"a", ""},
	}
	for _, tc := range cases {
		got := ""
		if v := doc.Pointer(tc.pointer); v != nil {
			got = v.String()
		}
		if got != tc.want {
			t.Errorf("pointer(%q) = %q, want %q", tc.pointer, got, tc.want)
		}
	}
}

func TestParseExponentOverflow(t *testing.T) {
	// serde_json stops at the digit that overflows an i32 exponent.
	for input, want := range map[string]string{
		"-0e-9999999999":     "-0.0",
		"0e99999999999":      "0.0",
		"-1e-99999999999":    "-0.0",
		"1.5e+99999999999":   "number out of range at line 1 column 15",
		" 1e400184467440737": "number out of range at line 1 column 13",
	} {
		v, err := serdejson.Parse([]byte(input))
		got := ""
		if err != nil {
			got = err.Error()
		} else {
			got = v.String()
		}
		if got != want {
			t.Errorf("%q: got %q, want %q", input, got, want)
		}
	}
}
