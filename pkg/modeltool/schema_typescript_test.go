package modeltool

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/codemodehq/codemode/pkg/serdejson"
)

func render(t *testing.T, schema string) string {
	t.Helper()
	if !json.Valid([]byte(schema)) {
		t.Fatalf("test schema is not JSON: %s", schema)
	}
	return renderJSONSchemaToTypeScript(json.RawMessage(schema))
}

func mustParse(t *testing.T, schema string) *serdejson.Value {
	t.Helper()
	v, err := serdejson.Parse([]byte(schema))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// Codex: json_schema_types_tests renders_recursive_local_refs_with_escaped_pointer_segments.
func TestRendersRecursiveLocalRefsWithEscapedPointerSegments(t *testing.T) {
	got := render(t, `{
		"type": "object",
		"properties": {
			"clauses": {"type": "array", "items": {"$ref": "#/$defs/Boolean~1Clause~0v1"}}
		},
		"$defs": {
			"Boolean/Clause~v1": {"type": "object", "properties": {"query": {"$ref": "#/$defs/Query"}}},
			"Query": {"oneOf": [
				{"type": "string"},
				{"type": "object", "properties": {
					"clauses": {"type": "array", "items": {"$ref": "#/$defs/Boolean~1Clause~0v1"}}
				}}
			]}
		}
	}`)
	want := "{ clauses?: Array<{ query?: string | { clauses?: Array<{ query?: string | { clauses?: Array<unknown>; }; }>; }; }>; }"
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	for _, fragment := range []string{
		"clauses?: Array<{ query?: string | { clauses?: Array<{",
		"query?: string | { clauses?: Array<unknown>; };",
	} {
		if !strings.Contains(got, fragment) {
			t.Errorf("missing %q", fragment)
		}
	}
}

// Codex: json_schema_types_tests renders_ref_siblings_uri_fragments_and_all_of_precedence.
func TestRendersRefSiblingsURIFragmentsAndAllOfPrecedence(t *testing.T) {
	cases := []struct{ schema, want string }{
		{`{"$ref": "#/$defs/Label", "enum": ["A"], "$defs": {"Label": {"type": "string"}}}`, `(string) & ("A")`},
		{`{"$ref": "#/$defs/Foo%20Bar", "$defs": {"Foo Bar": {"type": "string"}}}`, "string"},
		{`{"allOf": [
			{"$ref": "#/$defs/Choice"},
			{"type": "object", "properties": {"value": {"type": "string"}}}
		], "$defs": {"Choice": {"oneOf": [{"type": "string"}, {"type": "number"}]}}}`,
			"(string | number) & { value?: string; }"},
	}
	for _, tc := range cases {
		if got := render(t, tc.schema); got != tc.want {
			t.Errorf("render(%s)\n got %s\nwant %s", tc.schema, got, tc.want)
		}
	}
}

// Codex: json_schema_types_tests leaves_local_refs_under_nested_schema_resources_unresolved.
func TestLeavesLocalRefsUnderNestedSchemaResourcesUnresolved(t *testing.T) {
	got := render(t, `{
		"$defs": {"Choice": {"type": "string"}},
		"type": "object",
		"properties": {
			"nested": {
				"$id": "urn:nested",
				"$defs": {"Choice": {"type": "number"}},
				"type": "object",
				"properties": {"value": {"$ref": "#/$defs/Choice"}}
			}
		}
	}`)
	if want := "{ nested?: { value?: unknown; }; }"; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}

func refProperties(prefix string, n int, ref func(int) string) string {
	parts := make([]string, n)
	for i := range n {
		parts[i] = fmt.Sprintf(`"%s%d": {"$ref": %q}`, prefix, i, ref(i))
	}
	return strings.Join(parts, ",")
}

// Codex: json_schema_types_tests bounds_expansions_without_charging_dangling_refs.
func TestBoundsExpansionsWithoutChargingDanglingRefs(t *testing.T) {
	dangling := refProperties("a_missing_", maxTotalLocalRefExpansions, func(i int) string { return fmt.Sprintf("#/$defs/Missing%d", i) })
	got := render(t, `{"type": "object", "properties": {`+dangling+`, "z_valid": {"$ref": "#/$defs/Valid"}},
		"$defs": {"Valid": {"type": "string"}}}`)
	if !strings.Contains(got, "z_valid?: string;") {
		t.Errorf("dangling refs were charged: %s", got)
	}

	repeated := refProperties("property_", maxTotalLocalRefExpansions+2, func(int) string { return "#/$defs/Item" })
	got = render(t, `{"type": "object", "properties": {`+repeated+`}, "$defs": {"Item": {"type": "string"}}}`)
	if n := strings.Count(got, "string"); n != maxTotalLocalRefExpansions {
		t.Errorf("expanded %d refs, want %d: %s", n, maxTotalLocalRefExpansions, got)
	}
	if n := strings.Count(got, "unknown"); n != 2 {
		t.Errorf("%d unknown, want 2: %s", n, got)
	}
}

// Codex: json_schema_types_tests repeated_large_ref_expansions_exhaust_render_work_budget.
func TestRepeatedLargeRefExpansionsExhaustRenderWorkBudget(t *testing.T) {
	repeated := refProperties("property_", maxTotalLocalRefExpansions, func(int) string { return "#/$defs/Item" })
	schema := mustParse(t, `{"type": "object", "properties": {`+repeated+`}, "$defs": {"Item": {
		"type": "object",
		"properties": {"value": {"type": "string", "description": "`+strings.Repeat("x", maxRenderedSchemaBytes/2)+`"}}
	}}}`)
	r := newSchemaRenderer(schema)
	if got := r.render(schema); got != "unknown" {
		t.Fatalf("got %.80s…, want unknown", got)
	}
	if !r.workBudgetExhausted {
		t.Fatal("work budget not exhausted")
	}
}

// Codex: json_schema_types_tests oversized_ref_literal_exhausts_render_work_budget.
func TestOversizedRefLiteralExhaustsRenderWorkBudget(t *testing.T) {
	schema := mustParse(t, `{"$ref": "#/$defs/Value", "$defs": {"Value": {"const": "`+strings.Repeat("x", maxRenderWorkBytes)+`"}}}`)
	r := newSchemaRenderer(schema)
	if got := r.render(schema); got != "unknown" {
		t.Fatalf("got %.80s…, want unknown", got)
	}
	if !r.workBudgetExhausted {
		t.Fatal("work budget not exhausted")
	}
}

// Codex: json_schema_types_tests rendered_schema_has_a_hard_size_cap.
func TestRenderedSchemaHasAHardSizeCap(t *testing.T) {
	got := render(t, `{"type": "object", "properties": {"value": {"type": "string", "description": "`+
		strings.Repeat("x", maxRenderedSchemaBytes)+`"}}}`)
	if got != "unknown" {
		t.Fatalf("got %.80s…, want unknown", got)
	}
}

// Codex (earlier description.rs): renders_local_refs_with_a_cycle_safe_boolean_prefix.
func TestRendersLocalRefsWithACycleSafeBooleanPrefix(t *testing.T) {
	got := render(t, `{
		"type": "object",
		"properties": {"clauses": {"type": "array", "items": {"$ref": "#/$defs/Boolean~1Clause~0v1"}}},
		"required": ["clauses"],
		"additionalProperties": false,
		"$defs": {
			"Boolean/Clause~v1": {
				"type": "object",
				"properties": {
					"occur": {"type": "string", "enum": ["must", "should"]},
					"query": {"$ref": "#/$defs/Query", "description": "Use a nested group for parenthesized expressions."}
				},
				"required": ["occur", "query"],
				"additionalProperties": false
			},
			"Query": {"oneOf": [
				{"$ref": "#/$defs/Leaf"},
				{"type": "object", "properties": {"clauses": {"type": "array", "items": {"$ref": "#/$defs/Boolean~1Clause~0v1"}}},
				 "required": ["clauses"], "additionalProperties": false}
			]},
			"Leaf": {
				"type": "object",
				"properties": {"field": {"type": "string", "enum": ["A", "B", "C"]}, "value": {"type": "string"}},
				"required": ["field", "value"],
				"additionalProperties": false
			}
		}
	}`)
	want := `{ clauses: Array<{
  occur: "must" | "should";
  // Use a nested group for parenthesized expressions.
  query: { field: "A" | "B" | "C"; value: string; } | { clauses: Array<{
  occur: "must" | "should";
  // Use a nested group for parenthesized expressions.
  query: { field: "A" | "B" | "C"; value: string; } | { clauses: Array<unknown>; };
}>; };
}>; }`
	if got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestRenderJSONSchemaToTypeScriptKeywords(t *testing.T) {
	cases := []struct{ name, schema, want string }{
		{"true", `true`, "unknown"},
		{"false", `false`, "never"},
		{"non-schema", `42`, "unknown"},
		{"invalid JSON", `{`, "unknown"},
		{"empty object", `{}`, "unknown"},
		{"const string", `{"const": "a\"b"}`, `"a\"b"`},
		{"const null", `{"const": null}`, "null"},
		{"const object sorted", `{"const": {"b": 1, "a": [1.0, 2]}}`, `{"a":[1.0,2],"b":1}`},
		{"enum", `{"enum": ["x", 1, true, null]}`, `"x" | 1 | true | null`},
		{"empty enum falls through", `{"enum": [], "type": "string"}`, "string"},
		{"anyOf", `{"anyOf": [{"type": "string"}, {"type": "null"}]}`, "string | null"},
		{"oneOf after anyOf", `{"oneOf": [{"type": "string"}], "anyOf": [{"type": "number"}]}`, "number"},
		{"allOf", `{"allOf": [{"type": "string"}, {"const": "a"}]}`, `string & "a"`},
		{"type array", `{"type": ["string", "integer", 5, "null"]}`, "string | number | null"},
		{"unknown type", `{"type": "date"}`, "unknown"},
		{"array items", `{"type": "array", "items": {"type": "integer"}}`, "Array<number>"},
		{"tuple", `{"type": "array", "prefixItems": [{"type": "string"}, {"type": "boolean"}]}`, "[string, boolean]"},
		{"bare array", `{"type": "array"}`, "unknown[]"},
		{"implicit array", `{"items": {"type": "string"}}`, "Array<string>"},
		{"object without properties", `{"type": "object"}`, "{ [key: string]: unknown; }"},
		{"closed empty object", `{"type": "object", "additionalProperties": false}`, "{}"},
		{"typed index signature", `{"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": {"type": "number"}}`,
			"{ a?: string; [key: string]: number; }"},
		{"implicit object", `{"required": ["b"]}`, "{ [key: string]: unknown; }"},
		{"quoted property names", `{"type": "object", "properties": {"a-b": {}, "1x": {}, "ok_$": {}, "": {}}, "required": ["a-b"], "additionalProperties": false}`,
			`{ ""?: unknown; "1x"?: unknown; "a-b": unknown; ok_$?: unknown; }`},
		{"root ref", `{"type": "object", "properties": {"self": {"$ref": "#"}}, "additionalProperties": false}`,
			"{ self?: { self?: { self?: unknown; }; }; }"},
		{"remote ref", `{"$ref": "https://example.com/schema"}`, "unknown"},
		{"ref to missing", `{"$ref": "#/definitions/None", "type": "string"}`, "string"},
		{"bad percent escape", `{"$ref": "#/$defs/A%2", "$defs": {"A": {"type": "string"}}}`, "unknown"},
		{"multi-line description comments", `{"type": "object", "properties": {"a": {"type": "string", "description": " first\r\n\n  second "}, "b": {"type": "number"}}, "required": ["a"]}`,
			"{\n  // first\n  // second\n  a: string;\n  b?: number;\n}"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := renderJSONSchemaToTypeScript(json.RawMessage(tc.schema)); got != tc.want {
				t.Fatalf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

func FuzzRenderJSONSchemaToTypeScript(f *testing.F) {
	for _, seed := range []string{`{"type":"object","properties":{"a":{"$ref":"#"}}}`, `{"enum":[1,"x",null]}`,
		`{"allOf":[{"anyOf":[{"type":"string"},{"const":1}]}],"$defs":{"a":{"$ref":"#/$defs/a"}}}`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, schema string) {
		if got := renderJSONSchemaToTypeScript(json.RawMessage(schema)); len(got) > maxRenderedSchemaBytes {
			t.Fatalf("rendered %d bytes", len(got))
		}
	})
}

// TestRenderJSONSchemaToTypeScriptDocumentedExample is the example of the renderer's doc comment:
// descriptions become comments, optional properties get `?`, local refs and enums are inlined.
func TestRenderJSONSchemaToTypeScriptDocumentedExample(t *testing.T) {
	schema := `{
		"type": "object",
		"properties": {
			"city": {"type": "string", "description": "City name.\nUse English."},
			"days": {"type": "integer"},
			"units": {"$ref": "#/$defs/Units"}
		},
		"required": ["city"],
		"additionalProperties": false,
		"$defs": {"Units": {"enum": ["metric", "imperial"]}}
	}`
	want := "{\n  // City name.\n  // Use English.\n  city: string;\n  days?: number;\n  units?: \"metric\" | \"imperial\";\n}"
	if got := render(t, schema); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if got := render(t, `{"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "number"}}]}`); got != "string | Array<number>" {
		t.Errorf("anyOf: got %s", got)
	}
}
