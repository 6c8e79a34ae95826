package serdeimpl_test

import (
	"errors"
	"github.com/codemodehq/codemode/pkg/serdejson/internal/serdecases"
	"github.com/codemodehq/codemode/pkg/serdejson/serdeimpl"
	"strings"
	"testing"
)

// documentErrorCases pin the texts ParseDocument reports for malformed documents; the generated
// TypeScript codecs report the same (compat/ts/v1_codec.test.ts and the Go↔TS differential test
// in generators/tsgen check that). Syntax errors are serde_json's, positions included.
var documentErrorCases = []struct{ input, want string }{
	{``, "EOF while parsing a value at line 1 column 0"},
	{`{"a":1} x`, "trailing characters at line 1 column 9"},
	{`{`, "EOF while parsing an object at line 1 column 1"},
	{`"\udc00"`, "lone leading surrogate in hex escape at line 1 column 7"},
	{`"\ud800x"`, "unexpected end of hex escape at line 1 column 8"},
	{"\"a\u0001\"", "control character (\\u0000-\\u001F) found while parsing a string at line 1 column 3"},
	{`01`, "invalid number at line 1 column 2"},
	{`[1,]`, "trailing comma at line 1 column 4"},
	{strings.Repeat("[", 129) + strings.Repeat("]", 129), "recursion limit exceeded at line 1 column 129"},
	{"{\"a\":1,\n\"a\":2}", "duplicate field `a`"},
	{`{"x":{"y":[{"a":1,"a":2}]}}`, "x.y[0]: duplicate field `a`"},
	{`{"a":1,"a":`, "duplicate field `a`"}, // reported when the key is read, before the value
	{"\"\xff\"", "invalid unicode in JSON document"},
}

func TestParseDocumentRejectsMalformedDocuments(t *testing.T) {
	for _, tc := range documentErrorCases {
		_, err := serdeimpl.ParseDocument([]byte(tc.input))
		var de *serdeimpl.DecodeError
		if !errors.As(err, &de) {
			t.Errorf("ParseDocument(%q) = %v, want a *DecodeError", tc.input, err)
			continue
		}
		if err.Error() != tc.want {
			t.Errorf("ParseDocument(%q):\n got %q\nwant %q", tc.input, err, tc.want)
		}
	}
}

func TestParseDocumentAcceptsTheDeepestAllowedNesting(t *testing.T) {
	deepest := strings.Repeat("[", 128) + strings.Repeat("]", 128)
	if _, err := serdeimpl.ParseDocument([]byte(deepest)); err != nil {
		t.Fatalf("128 levels: %v", err)
	}
}

func TestCanonicalJSONKeepsOrderAndLexemes(t *testing.T) {
	cases := map[string]string{
		`{ "z" : 1 , "a" : [ 1.50 , -0 , 1e400 , "<&>\u2028" , null , true , { } ] }`: `{"z":1,"a":[1.50,-0,1e400,"<&>` + "\u2028" + `",null,true,{}]}`,
		`"\u0000\u001f\"\\\/"`: `"\u0000\u001f\"\\/"`,
		" \t\r\n[]\n":          `[]`,
	}
	for in, want := range cases {
		got, err := serdeimpl.CanonicalJSON([]byte(in))
		if err != nil || string(got) != want {
			t.Errorf("CanonicalJSON(%q) = %s, %v; want %s", in, got, err, want)
		}
	}
}

// TestParseDocumentSyntaxErrorsAreSerdeJSONs holds ParseDocument to the syntax error texts that
// serde_json itself produced for Parse's tests, except where the wire codecs deliberately accept
// more: numbers are kept as written (no "number out of range") and 128 levels of nesting parse.
func TestParseDocumentSyntaxErrorsAreSerdeJSONs(t *testing.T) {
	wireAccepts := map[string]bool{"1e400": true, "-1e400": true}
	deep := map[string]string{
		strings.Repeat("[", 130):     "recursion limit exceeded at line 1 column 129",
		strings.Repeat(`{"a":`, 130): "recursion limit exceeded at line 1 column 641",
	}
	for _, tc := range serdecases.SyntaxErrors {
		want := tc.Want
		if w, ok := deep[tc.Input]; ok {
			want = w
		}
		_, err := serdeimpl.ParseDocument([]byte(tc.Input))
		switch {
		case wireAccepts[tc.Input]:
			if err != nil {
				t.Errorf("ParseDocument(%q) = %v, want it accepted (numbers are kept as written)", tc.Input, err)
			}
		case err == nil || err.Error() != want:
			t.Errorf("ParseDocument(%q):\n got %v\nwant %s", tc.Input, err, want)
		}
	}
}
