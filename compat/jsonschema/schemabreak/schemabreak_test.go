package schemabreak

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func parse(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return v
}

const closed = `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":["integer","null"],"minimum":0,"maximum":10}},"required":["a"],"unevaluatedProperties":false}`

func TestCompareSchemasTable(t *testing.T) {
	cases := []struct {
		name, old, new string
		want           []string // "pointer: message" substrings, in order; empty = compatible
	}{
		{"identical", closed, closed, nil},
		{"description only", closed, strings.Replace(closed, `"required"`, `"description":"x","required"`, 1), nil},
		{"field removed", closed, `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"unevaluatedProperties":false}`,
			[]string{"#/properties/b: field removed"}},
		{"field added to closed object", closed, strings.Replace(closed, `"a":{"type":"string"}`, `"a":{"type":"string"},"c":{"type":"string"}`, 1),
			[]string{"#/properties/c: field added to a closed object (old peers reject unknown fields)"}},
		{"field added to open object", `{"type":"object","properties":{}}`, `{"type":"object","properties":{"c":{}}}`, nil},
		{"newly required", closed, strings.Replace(closed, `"required":["a"]`, `"required":["a","b"]`, 1),
			[]string{"#/required: field \"b\" newly required"}},
		{"null no longer accepted", closed, strings.Replace(closed, `["integer","null"]`, `"integer"`, 1),
			[]string{"#/properties/b/type: type narrowed: null no longer accepted"}},
		{"range narrowed", closed, strings.Replace(closed, `"maximum":10`, `"maximum":9`, 1),
			[]string{"#/properties/b/maximum: range narrowed: maximum lowered to 9"}},
		{"range widened", closed, strings.Replace(closed, `"maximum":10`, `"maximum":11`, 1), nil},
		{"minimum raised", closed, strings.Replace(closed, `"minimum":0`, `"minimum":1`, 1),
			[]string{"#/properties/b/minimum: range narrowed: minimum raised to 1"}},
		{"variant removed", `{"oneOf":[{"$ref":"#/$defs/A"},{"$ref":"#/$defs/B"}],"$defs":{"A":{},"B":{}}}`, `{"oneOf":[{"$ref":"#/$defs/A"}],"$defs":{"A":{}}}`,
			[]string{"#/oneOf: variant #/$defs/B removed", "#/$defs/B: definition removed"}},
		{"variant added", `{"oneOf":[{"$ref":"#/$defs/A"}],"$defs":{"A":{}}}`, `{"oneOf":[{"$ref":"#/$defs/A"},{"$ref":"#/$defs/B"}],"$defs":{"A":{},"B":{}}}`,
			[]string{"#/oneOf: variant #/$defs/B added (old peers reject unknown variants)"}},
		{"tag renamed", `{"properties":{"type":{"const":"a"}}}`, `{"properties":{"type":{"const":"b"}}}`,
			[]string{"#/properties/type/const: constant changed from a to b"}},
		{"enum value removed", `{"enum":["function","freeform"]}`, `{"enum":["function"]}`, []string{"#/enum: enum value freeform removed"}},
		{"ref changed", `{"$ref":"A.schema.json"}`, `{"$ref":"B.schema.json"}`, []string{"#/$ref: reference changed"}},
		{"object closed", `{"type":"object","properties":{}}`, `{"type":"object","properties":{},"unevaluatedProperties":false}`,
			[]string{"#/unevaluatedProperties: object closed"}},
		{"nonblank added", `{"type":"string"}`, `{"type":"string","pattern":"\\S","x-nonblank":true}`,
			[]string{"#/pattern: constraint pattern added", "#/x-nonblank: constraint x-nonblank added"}},
		{"field of a new generation added", closed, strings.Replace(closed, `"a":{"type":"string"}`, `"a":{"type":"string"},"c":{"type":"string","x-generation":"next"}`, 1), nil},
		{"field of a known generation added", closed, strings.Replace(closed, `"a":{"type":"string"}`, `"a":{"type":"string"},"c":{"type":"string","x-generation":"old"}`, 1),
			[]string{"#/properties/c: field added to a closed object"}},
		{"variant of a new generation added", `{"oneOf":[{"$ref":"#/$defs/A"}],"$defs":{"A":{}}}`, `{"oneOf":[{"$ref":"#/$defs/A"},{"$ref":"#/$defs/B"}],"$defs":{"A":{},"B":{"x-generation":"next"}}}`, nil},
		{"nested field added", `{"$defs":{"V":` + closed + `}}`, `{"$defs":{"V":` + strings.Replace(closed, `"a":{"type":"string"}`, `"a":{"type":"string"},"d":{}`, 1) + `}}`,
			[]string{"#/$defs/V/properties/d: field added to a closed object"}},
	}
	for _, c := range cases {
		c2 := &comparer{file: "T.schema.json", knownGenerations: map[string]bool{"old": true}}
		c2.schema("", parse(t, c.old), parse(t, c.new))
		got := c2.found
		if len(got) != len(c.want) {
			t.Errorf("%s: got %v, want %d findings %v", c.name, got, len(c.want), c.want)
			continue
		}
		for i, w := range c.want {
			if !strings.Contains(got[i].String(), "T.schema.json"+w) {
				t.Errorf("%s: finding %d = %q, want it to contain %q", c.name, i, got[i], w)
			}
		}
	}
}

func TestCompareDirsReportsRemovedTypes(t *testing.T) {
	oldDir, newDir := t.TempDir(), t.TempDir()
	write := func(dir, name, body string) {
		if err := os.MkdirAll(filepath.Join(dir, "v1"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "v1", name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(oldDir, "A.schema.json", closed)
	write(oldDir, "B.schema.json", closed)
	write(newDir, "A.schema.json", closed)
	write(newDir, "C.schema.json", closed) // new types are additive
	got, err := CompareDirs(oldDir, newDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].String() != "v1/B.schema.json: type removed" {
		t.Fatalf("got %v", got)
	}
}

// TestCurrentSchemasMatchTheBaseline is the gate itself, run as a test as well.
func TestCurrentSchemasMatchTheBaseline(t *testing.T) {
	got, err := CompareDirs("../baseline", "../../../schemas/jsonschema")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range got {
		t.Errorf("breaking change: %s", f)
	}
}

// TestNewerCodexDurationFieldIsBreaking replays the field failure of docs/protocol/v1.md#wire-generations: adding the
// required code_mode_host_duration_ns to a runtime response body breaks baseline peers. The
// committed schema describes the field as a generation of its own (x-generation), so the test
// starts from the baseline shape without it.
func TestNewerCodexDurationFieldIsBreaking(t *testing.T) {
	data, err := os.ReadFile("../baseline/v1/WireRuntimeResponse.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	body := doc["$defs"].(map[string]any)["Result"].(map[string]any)["properties"].(map[string]any)["Result"].(map[string]any)
	body["properties"].(map[string]any)["code_mode_host_duration_ns"] = map[string]any{"type": "integer", "x-int": "u64"}
	body["required"] = append(body["required"].([]any), "code_mode_host_duration_ns")
	var old map[string]any
	_ = json.Unmarshal(data, &old)
	delete(old["$defs"].(map[string]any)["Result"].(map[string]any)["properties"].(map[string]any)["Result"].(map[string]any)["properties"].(map[string]any), "code_mode_host_duration_ns")
	got := CompareSchemas("v1/WireRuntimeResponse.schema.json", any(old), any(doc))
	want := []string{
		`v1/WireRuntimeResponse.schema.json#/$defs/Result/properties/Result/required: field "code_mode_host_duration_ns" newly required`,
		"v1/WireRuntimeResponse.schema.json#/$defs/Result/properties/Result/properties/code_mode_host_duration_ns: field added to a closed object (old peers reject unknown fields)",
	}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for i := range want {
		if got[i].String() != want[i] {
			t.Errorf("finding %d = %q, want %q", i, got[i], want[i])
		}
	}
}
