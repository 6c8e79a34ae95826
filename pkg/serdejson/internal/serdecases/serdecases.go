// Package serdecases holds the expectations serde_json itself produced, shared by the tests of
// pkg/serdejson (Parse) and pkg/serdejson/serdeimpl (ParseDocument), so that both tokenizer
// front ends are held to one table.
package serdecases

import "strings"

// SyntaxErrors are inputs and the syntax error serde_json reports for each.
//
// The expectations were produced by serde_json (1.0.87, the Debian build) from the
// same inputs: syntax error texts with their line/column, and to_string round trips. One
// known divergence is excluded: serde_json parses integer literals beyond u64 with a fast,
// not always correctly rounded conversion ("123456789012345678901234" becomes
// 1.2345678901234567e23 there, 1.2345678901234569e23 here).
var SyntaxErrors = []struct{ Input, Want string }{
	{"", "EOF while parsing a value at line 1 column 0"},
	{" ", "EOF while parsing a value at line 1 column 1"},
	{"{", "EOF while parsing an object at line 1 column 1"},
	{"{\"", "EOF while parsing a string at line 1 column 2"},
	{"{\"a", "EOF while parsing a string at line 1 column 3"},
	{"{\"a\"", "EOF while parsing an object at line 1 column 4"},
	{"{\"a\":", "EOF while parsing a value at line 1 column 5"},
	{"{\"a\":1", "EOF while parsing an object at line 1 column 6"},
	{"{\"a\":1,", "EOF while parsing a value at line 1 column 7"},
	{"{\"a\":1,}", "trailing comma at line 1 column 8"},
	{"{\"a\" 1}", "expected `:` at line 1 column 6"},
	{"{1:2}", "key must be a string at line 1 column 2"},
	{"{\"a\":1 \"b\":2}", "expected `,` or `}` at line 1 column 8"},
	{"[", "EOF while parsing a list at line 1 column 1"},
	{"[1", "EOF while parsing a list at line 1 column 2"},
	{"[1,", "EOF while parsing a value at line 1 column 3"},
	{"[1,]", "trailing comma at line 1 column 4"},
	{"[1 2]", "expected `,` or `]` at line 1 column 4"},
	{"nul", "EOF while parsing a value at line 1 column 3"},
	{"nulx", "expected ident at line 1 column 4"},
	{"tru", "EOF while parsing a value at line 1 column 3"},
	{"trux", "expected ident at line 1 column 4"},
	{"fals", "EOF while parsing a value at line 1 column 4"},
	{"x", "expected value at line 1 column 1"},
	{"-", "EOF while parsing a value at line 1 column 1"},
	{"-a", "invalid number at line 1 column 2"},
	{"01", "invalid number at line 1 column 2"},
	{"1.", "EOF while parsing a value at line 1 column 2"},
	{"1.a", "invalid number at line 1 column 3"},
	{"1e", "EOF while parsing a value at line 1 column 2"},
	{"1e+", "EOF while parsing a value at line 1 column 3"},
	{"1ea", "invalid number at line 1 column 3"},
	{"1e400", "number out of range at line 1 column 5"},
	{"-1e400", "number out of range at line 1 column 6"},
	{"\"abc", "EOF while parsing a string at line 1 column 4"},
	{"\"a\\", "EOF while parsing a string at line 1 column 3"},
	{"\"a\\x\"", "invalid escape at line 1 column 4"},
	{"\"\\u12\"", "EOF while parsing a string at line 1 column 6"},
	{"\"\\u12g4\"", "invalid escape at line 1 column 6"},
	{"\"\\ud800\"", "unexpected end of hex escape at line 1 column 8"},
	{"\"\\ud800\\u0041\"", "lone leading surrogate in hex escape at line 1 column 13"},
	{"\"\\udc00\"", "lone leading surrogate in hex escape at line 1 column 7"},
	{"\"\\ud800x\"", "unexpected end of hex escape at line 1 column 8"},
	{"\"a\u0001\"", "control character (\\u0000-\\u001F) found while parsing a string at line 1 column 3"},
	{"1 2", "trailing characters at line 1 column 3"},
	{"{} x", "trailing characters at line 1 column 4"},
	{"[]]", "trailing characters at line 1 column 3"},
	{"{\"a\":1}}", "trailing characters at line 1 column 8"},
	{strings.Repeat("[", 130), "recursion limit exceeded at line 1 column 128"},
	{strings.Repeat(`{"a":`, 130), "recursion limit exceeded at line 1 column 636"},
}
