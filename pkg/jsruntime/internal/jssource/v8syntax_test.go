package jssource_test

import (
	"errors"
	"testing"

	"github.com/codemodehq/codemode/pkg/jsruntime/internal/jssource"
)

// The messages are the ones Codex 0.171's host reports for these cells (parity cases
// v8syntax/*, throw/syntax-error and throw/return-at-top-level run them against it).
func TestV8Message(t *testing.T) {
	for src, want := range map[string]string{
		`let = ;`:                             "Unexpected strict mode reserved word",
		`let 1x = 2`:                          "Unexpected strict mode reserved word",
		`text("a"); return; text("b")`:        "Illegal return statement",
		`foo(`:                                "Unexpected end of input",
		`if (`:                                "Unexpected end of input",
		`obj.`:                                "Unexpected end of input",
		"`abc":                                "Unexpected end of input",
		`let x = 1; let x = 2;`:               "Identifier 'x' has already been declared",
		`const x;`:                            "Missing initializer in const declaration",
		`a b`:                                 "Unexpected identifier 'b'",
		`const a = 1 2`:                       "Unexpected number",
		`}`:                                   "Unexpected token '}'",
		`x = {a: 1,, b: 2}`:                   "Unexpected token ','",
		`for (let i = 0; i < 3; i++ {}`:       "Unexpected token '{'",
		`class { }`:                           "Unexpected token '{'",
		`await = 1`:                           "Unexpected token '='",
		`"abc`:                                "Invalid or unexpected token",
		`function () {}`:                      "Function statements require a function name",
		`a = 08`:                              "Decimals with leading zeros are not allowed in strict mode.",
		`a = 07`:                              "Octal literals are not allowed in strict mode.",
		`x++ = 1`:                             "Invalid left-hand side in assignment",
		`function f() { await 1 }`:            "Unexpected reserved word",
		"/* a comment */\nx => { return }; }": "Unexpected token '}'",
	} {
		_, err := jssource.Module(src)
		var syn *jssource.SyntaxError
		if !errors.As(err, &syn) {
			t.Errorf("%q: %v, want a SyntaxError", src, err)
			continue
		}
		if got := syn.V8Message(src); got != want {
			t.Errorf("%q (%s): V8Message %q, want %q", src, syn.Message, got, want)
		}
	}
}

// A message V8's is not known for is left to the caller ("").
func TestV8MessageUnknown(t *testing.T) {
	src := "text(1);\nawait import<!-- c\n('qjs:os')"
	_, err := jssource.Module(src)
	var syn *jssource.SyntaxError
	if !errors.As(err, &syn) {
		t.Fatalf("%v, want a SyntaxError", err)
	}
	if got := syn.V8Message(src); got != "" {
		t.Errorf("V8Message %q for %q, want none", got, syn.Message)
	}
}
