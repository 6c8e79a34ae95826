package wiregen

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

const (
	v1Schemas         = "../../schemas/jsonschema/v1"
	execServerSchemas = "../../schemas/jsonschema/execserver"
)

// schemaSets are the schema directories the generators are run over: the dialect is one for
// both protocols.
var schemaSets = []string{v1Schemas, execServerSchemas}

// compileDir compiles every document of one schema directory with a standard 2020-12 validator,
// proving the schemas are plain JSON Schema (the x- keywords are annotations to it).
func compileDir(t *testing.T, dir string) map[string]*jsonschema.Schema {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.schema.json"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no schema documents under %s: %v", dir, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(jsonschema.SchemeURLLoader{}) // no file or network access: everything is a resource
	urls := map[string]string{}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		id := doc.(map[string]any)["$id"].(string)
		if err := c.AddResource(id, doc); err != nil {
			t.Fatal(err)
		}
		urls[strings.TrimSuffix(filepath.Base(p), ".schema.json")] = id
	}
	out := map[string]*jsonschema.Schema{}
	for name, id := range urls {
		s, err := c.Compile(id)
		if err != nil {
			t.Fatalf("compile %s: %v", name, err)
		}
		out[name] = s
	}
	return out
}

func validate(t *testing.T, s *jsonschema.Schema, n *node) error {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(n.compact(nil)))
	if err != nil {
		t.Fatal(err)
	}
	return s.Validate(v)
}

// TestExamplesValidateAgainstTheirSchemas: every example and non-canonical input is valid JSON
// Schema-wise; invalid examples are rejected unless they carry x-beyond-json-schema, which marks
// rules that need code (duplicate keys, float lexemes, x-disjoint, lexical JSON errors).
func TestExamplesValidateAgainstTheirSchemas(t *testing.T) {
	for _, dir := range schemaSets {
		t.Run(filepath.Base(dir), func(t *testing.T) { examplesValidate(t, dir) })
	}
}

func examplesValidate(t *testing.T, dir string) {
	compiled := compileDir(t, dir)
	schemas, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var beyond []string
	for _, s := range schemas {
		cs := compiled[s.Name]
		for i, ex := range s.Examples {
			if err := validate(t, cs, ex); err != nil {
				t.Errorf("%s example %d: %v", s.Name, i, err)
			}
		}
		for _, nc := range s.NonCanonical {
			if err := validate(t, cs, nc.JSON); err != nil {
				t.Errorf("%s non-canonical %s: %v", s.Name, nc.Name, err)
			}
			if err := validate(t, cs, nc.Canonical); err != nil {
				t.Errorf("%s non-canonical %s (canonical form): %v", s.Name, nc.Name, err)
			}
		}
		for _, inv := range s.Invalid {
			if inv.JSON == nil || inv.BeyondJSONSchema {
				beyond = append(beyond, s.Name+"."+inv.Name)
				if inv.JSON != nil && validate(t, cs, inv.JSON) != nil {
					t.Errorf("%s invalid %s is marked x-beyond-json-schema but the schema rejects it", s.Name, inv.Name)
				}
				continue
			}
			if validate(t, cs, inv.JSON) == nil {
				t.Errorf("%s invalid %s: the schema accepts it (mark it x-beyond-json-schema if only code can reject it)", s.Name, inv.Name)
			}
		}
	}
	sort.Strings(beyond)
	t.Logf("invalid examples that need code beyond JSON Schema: %s", strings.Join(beyond, ", "))
}
