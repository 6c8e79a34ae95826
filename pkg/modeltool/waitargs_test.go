package modeltool

import (
	"reflect"
	"testing"
)

// Expected errors were produced by serde_json 1.0.87 deserializing the same input into a
// copy of Codex's ExecWaitArgs, with floats shown as modern serde shows them ("1000.0").
var waitArgumentErrorCases = []struct{ input, want string }{
	{"", "EOF while parsing a value at line 1 column 0"},
	{"{}", "missing field `cell_id` at line 1 column 2"},
	{"{\"cell_id\": 1}", "invalid type: integer `1`, expected a string at line 1 column 13"},
	{"{\"cell_id\": {}}", "invalid type: map, expected a string at line 1 column 12"},
	{"{\"cell_id\": []}", "invalid type: sequence, expected a string at line 1 column 12"},
	{"{\"cell_id\": null}", "invalid type: null, expected a string at line 1 column 16"},
	{"{\"cell_id\": true}", "invalid type: boolean `true`, expected a string at line 1 column 16"},
	{"{\"cell_id\": \"1\", \"yield_time_ms\": -5}", "invalid value: integer `-5`, expected u64 at line 1 column 36"},
	{"{\"cell_id\": \"1\", \"yield_time_ms\": 1.5}", "invalid type: floating point `1.5`, expected u64 at line 1 column 37"},
	{"{\"cell_id\": \"1\", \"yield_time_ms\": \"5\"}", "invalid type: string \"5\", expected u64 at line 1 column 37"},
	{"{\"cell_id\": \"1\", \"yield_time_ms\": null}", "invalid type: null, expected u64 at line 1 column 38"},
	{"{\"cell_id\": \"1\", \"max_tokens\": -1}", "invalid value: integer `-1`, expected usize at line 1 column 33"},
	{"{\"cell_id\": \"1\", \"terminate\": 1}", "invalid type: integer `1`, expected a boolean at line 1 column 31"},
	{"{\"cell_id\": \"1\", \"terminate\": null}", "invalid type: null, expected a boolean at line 1 column 34"},
	{"{\"cell_id\": \"1\", \"cell_id\": \"2\"}", "duplicate field `cell_id` at line 1 column 26"},
	{"{\"cell_id\": \"1\", \"extra\": [1,}", "expected value at line 1 column 30"},
	{"[]", "invalid length 0, expected struct ExecWaitArgs with 4 elements at line 1 column 2"},
	{"[\"1\", 5, 7, true, 9]", "trailing characters at line 1 column 19"},
	{"5", "invalid type: integer `5`, expected struct ExecWaitArgs at line 1 column 1"},
	{"\"x\"", "invalid type: string \"x\", expected struct ExecWaitArgs at line 1 column 3"},
	{"null", "invalid type: null, expected struct ExecWaitArgs at line 1 column 4"},
	{"true", "invalid type: boolean `true`, expected struct ExecWaitArgs at line 1 column 4"},
	{"{\"cell_id\": \"1\"} x", "trailing characters at line 1 column 18"},
	{"{\"yield_time_ms\": 5}", "missing field `cell_id` at line 1 column 20"},
	{"{\"cell_id\": \"1\", \"max_tokens\": 1e3}", "invalid type: floating point `1000.0`, expected usize at line 1 column 34"},
	{"{\"cell_id\": \"1\",}", "trailing comma at line 1 column 17"},
	{"{\"cell_id\": \"1\", \"terminate\": tru}", "expected ident at line 1 column 34"},
	{"{\"cell_id\": \"1\", \"terminate\": nul}", "expected ident at line 1 column 34"},
	{"{\"cell_id\": 12345678901234567890123}", "invalid type: floating point `12345678901234568000000.0`, expected a string at line 1 column 35"},
	{"{\"cell_id\": -7}", "invalid type: integer `-7`, expected a string at line 1 column 14"},
	{"{\"cell_id\": 1.0}", "invalid type: floating point `1.0`, expected a string at line 1 column 15"},
}

func TestParseWaitArgumentsErrorsMatchSerde(t *testing.T) {
	for _, tc := range waitArgumentErrorCases {
		_, err := ParseWaitArguments(tc.input)
		want := "failed to parse function arguments: " + tc.want
		if err == nil || err.Error() != want {
			t.Errorf("ParseWaitArguments(%q):\n got %v\nwant %s", tc.input, err, want)
		}
	}
}

func TestParseWaitArgumentsAccepts(t *testing.T) {
	cases := []struct {
		input string
		want  WaitArguments
	}{
		{`{"cell_id": "1"}`, WaitArguments{CellID: "1", YieldTimeMs: u64(10_000)}},
		{`{"cell_id": "1", "max_tokens": null, "extra": [1, 2, {"x": null}]}`, WaitArguments{CellID: "1", YieldTimeMs: u64(10_000)}},
		{`{"cell_id": "1", "terminate": true, "yield_time_ms": 0, "max_tokens": 3}`,
			WaitArguments{CellID: "1", YieldTimeMs: u64(0), MaxTokens: u64(3), Terminate: true}},
		{`  {"cell_id":"a\u0041"}  `, WaitArguments{CellID: "aA", YieldTimeMs: u64(10_000)}},
		{`["1"]`, WaitArguments{CellID: "1", YieldTimeMs: u64(10_000)}},
		{`["2", 5, null, true]`, WaitArguments{CellID: "2", YieldTimeMs: u64(5), Terminate: true}},
	}
	for _, tc := range cases {
		got, err := ParseWaitArguments(tc.input)
		if err != nil {
			t.Errorf("ParseWaitArguments(%q): %v", tc.input, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseWaitArguments(%q) = %+v, want %+v", tc.input, got, tc.want)
		}
	}
}
