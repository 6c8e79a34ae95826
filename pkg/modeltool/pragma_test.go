package modeltool

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func u64(v uint64) *uint64 { return &v }

// Codex: description.rs parse_exec_source_without_pragma.
func TestParseExecSourceWithoutPragma(t *testing.T) {
	got, err := ParseExecSource("text('hi')")
	if err != nil {
		t.Fatal(err)
	}
	if want := (ExecSource{Code: "text('hi')"}); !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
}

// Codex: description.rs parse_exec_source_with_pragma.
func TestParseExecSourceWithPragma(t *testing.T) {
	got, err := ParseExecSource("// @exec: {\"yield_time_ms\": 10}\ntext('hi')")
	if err != nil {
		t.Fatal(err)
	}
	if want := (ExecSource{Code: "text('hi')", YieldTimeMs: u64(10)}); !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
}

func TestParseExecSourceAccepts(t *testing.T) {
	cases := []struct {
		name  string
		input string
		want  ExecSource
	}{
		{"pragma lookalike on a later line stays code", "text(1)\n// @exec: {\"yield_time_ms\": 5}",
			ExecSource{Code: "text(1)\n// @exec: {\"yield_time_ms\": 5}"}},
		{"indented pragma, both fields", "  \t// @exec:   {\"max_output_tokens\": 0, \"yield_time_ms\": 9007199254740991}  \nawait x;\n",
			ExecSource{Code: "await x;\n", YieldTimeMs: u64(9007199254740991), MaxOutputTokens: u64(0)}},
		{"CRLF pragma line", "// @exec: {\"yield_time_ms\": 1}\r\ntext(1)", ExecSource{Code: "text(1)", YieldTimeMs: u64(1)}},
		{"null fields are absent", "// @exec: {\"yield_time_ms\": null, \"max_output_tokens\": null}\ntext(1)",
			ExecSource{Code: "text(1)"}},
		{"empty object", "// @exec: {}\ntext(1)", ExecSource{Code: "text(1)"}},
		{"duplicate key keeps the last", "// @exec: {\"yield_time_ms\": 1, \"yield_time_ms\": 2}\nx", ExecSource{Code: "x", YieldTimeMs: u64(2)}},
		{"prefix without space is not a pragma", "//@exec: {}\nx", ExecSource{Code: "//@exec: {}\nx"}},
		{"code before the prefix is not a pragma", "x // @exec: {}\ny", ExecSource{Code: "x // @exec: {}\ny"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseExecSource(tc.input)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestParseExecSourceErrors(t *testing.T) {
	const (
		notObject = "exec pragma must be a JSON object with supported fields `yield_time_ms` and `max_output_tokens`"
		badJSON   = "exec pragma must be valid JSON with supported fields `yield_time_ms` and `max_output_tokens`: "
		notInts   = "exec pragma fields `yield_time_ms` and `max_output_tokens` must be non-negative safe integers: "
	)
	cases := []struct{ input, want string }{
		{"", "exec expects raw JavaScript source text (non-empty). Provide JS only, optionally with first-line `// @exec: {\"yield_time_ms\": 10000, \"max_output_tokens\": 1000}`."},
		{" \n\t\r\n", "exec expects raw JavaScript source text (non-empty). Provide JS only, optionally with first-line `// @exec: {\"yield_time_ms\": 10000, \"max_output_tokens\": 1000}`."},
		{"// @exec: {\"yield_time_ms\": 10}", "exec pragma must be followed by JavaScript source on subsequent lines"},
		{"// @exec: {\"yield_time_ms\": 10}\n  \n", "exec pragma must be followed by JavaScript source on subsequent lines"},
		{"// @exec:\ntext(1)", notObject},
		{"// @exec:    \ntext(1)", notObject},
		{"// @exec: [1]\ntext(1)", notObject},
		{"// @exec: 5\ntext(1)", notObject},
		{"// @exec: null\ntext(1)", notObject},
		{"// @exec: {\ntext(1)", badJSON + "EOF while parsing an object at line 1 column 1"},
		{"// @exec: {\"yield_time_ms\": 10,}\ntext(1)", badJSON + "trailing comma at line 1 column 22"},
		{"// @exec: {\"yield_time_ms\" 10}\ntext(1)", badJSON + "expected `:` at line 1 column 18"},
		{"// @exec: {yield_time_ms: 10}\ntext(1)", badJSON + "key must be a string at line 1 column 2"},
		{"// @exec: {\"yield_time_ms\": 10 \"x\": 1}\ntext(1)", badJSON + "expected `,` or `}` at line 1 column 22"},
		{"// @exec: {\"yield_time_ms\": 01}\ntext(1)", badJSON + "invalid number at line 1 column 20"},
		{"// @exec: {\"yield_time_ms\": 1e999}\ntext(1)", badJSON + "number out of range at line 1 column 23"},
		{"// @exec: {} trailing\ntext(1)", badJSON + "trailing characters at line 1 column 4"},
		{"// @exec: {\"timeout\": 1}\ntext(1)", "exec pragma only supports `yield_time_ms` and `max_output_tokens`; got `timeout`"},
		{"// @exec: {\"z\": 1, \"a\": 2}\ntext(1)", "exec pragma only supports `yield_time_ms` and `max_output_tokens`; got `a`"},
		{"// @exec: {\"yield_time_ms\": -1}\ntext(1)", notInts + "invalid value: integer `-1`, expected u64"},
		{"// @exec: {\"yield_time_ms\": 1.5}\ntext(1)", notInts + "invalid type: floating point `1.5`, expected u64"},
		{"// @exec: {\"yield_time_ms\": 1e3}\ntext(1)", notInts + "invalid type: floating point `1000.0`, expected u64"},
		{"// @exec: {\"yield_time_ms\": \"10\"}\ntext(1)", notInts + "invalid type: string \"10\", expected u64"},
		{"// @exec: {\"yield_time_ms\": true}\ntext(1)", notInts + "invalid type: boolean `true`, expected u64"},
		{"// @exec: {\"yield_time_ms\": [1]}\ntext(1)", notInts + "invalid type: sequence, expected u64"},
		{"// @exec: {\"max_output_tokens\": {}}\ntext(1)", notInts + "invalid type: map, expected usize"},
		// serde visits the fields in key order, so max_output_tokens is reported first.
		{"// @exec: {\"yield_time_ms\": \"x\", \"max_output_tokens\": -5}\ntext(1)", notInts + "invalid value: integer `-5`, expected usize"},
		{"// @exec: {\"yield_time_ms\": 18446744073709551616}\ntext(1)", notInts + "invalid type: floating point `18446744073709552000.0`, expected u64"},
		{"// @exec: {\"yield_time_ms\": 9007199254740992}\ntext(1)", "exec pragma field `yield_time_ms` must be a non-negative safe integer"},
		{"// @exec: {\"max_output_tokens\": 18446744073709551615}\ntext(1)", "exec pragma field `max_output_tokens` must be a non-negative safe integer"},
		{"// @exec: {\"max_output_tokens\": 9007199254740992, \"yield_time_ms\": 9007199254740992}\ntext(1)", "exec pragma field `yield_time_ms` must be a non-negative safe integer"},
	}
	for _, tc := range cases {
		_, err := ParseExecSource(tc.input)
		if err == nil {
			t.Errorf("ParseExecSource(%q): no error, want %q", tc.input, tc.want)
			continue
		}
		if err.Error() != tc.want {
			t.Errorf("ParseExecSource(%q):\n got %q\nwant %q", tc.input, err.Error(), tc.want)
		}
	}
}

func TestParseExecSourceErrorsAreExecSourceErrors(t *testing.T) {
	_, err := ParseExecSource("// @exec: {\"x\": 1}\ntext(1)")
	var sourceErr *execSourceError
	if !errors.As(err, &sourceErr) {
		t.Fatalf("%T is not an *execSourceError", err)
	}
}

func FuzzParseExecSource(f *testing.F) {
	for _, seed := range []string{"text(1)", "// @exec: {\"yield_time_ms\": 10}\nx", "// @exec: {\"max_output_tokens\": 1e3}\nx", "  // @exec: [\n\n"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, input string) {
		src, err := ParseExecSource(input)
		if err != nil {
			var sourceErr *execSourceError
			if !errors.As(err, &sourceErr) {
				t.Fatalf("unexpected error type %T", err)
			}
			return
		}
		if src.Code != input && !strings.HasSuffix(input, "\n"+src.Code) {
			t.Fatalf("code %q is neither the input nor its tail", src.Code)
		}
		for _, v := range []*uint64{src.YieldTimeMs, src.MaxOutputTokens} {
			if v != nil && *v > maxJSSafeInteger {
				t.Fatalf("unsafe integer %d accepted", *v)
			}
		}
	})
}
