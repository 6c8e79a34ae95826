// Package schemabreak reports breaking changes between two trees of JSON Schema documents: the
// committed baseline (what deployed peers speak) and the current schemas. Because every V1
// object rejects unknown fields (docs/protocol/v1.md#unknown-fields), additions to closed objects and new union variants
// are breaking too: an old peer refuses them.
package schemabreak

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// Finding is one breaking change. Path is "<file>#<JSON pointer into the schema>".
type Finding struct {
	Path    string
	Message string
}

// String renders "path: message".
func (f Finding) String() string { return f.Path + ": " + f.Message }

// CompareDirs compares every *.schema.json under baseline with the same relative path under
// current. Findings are sorted by path.
func CompareDirs(baseline, current string) ([]Finding, error) {
	oldDocs, err := loadDir(baseline)
	if err != nil {
		return nil, err
	}
	newDocs, err := loadDir(current)
	if err != nil {
		return nil, err
	}
	known := generations(oldDocs)
	var out []Finding
	for _, name := range sortedKeys(oldDocs) {
		nd, ok := newDocs[name]
		if !ok {
			out = append(out, Finding{name, "type removed"})
			continue
		}
		c := &comparer{file: name, knownGenerations: known}
		c.schema("", oldDocs[name], nd)
		out = append(out, c.found...)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

func loadDir(root string) (map[string]any, error) {
	docs := map[string]any{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".schema.json") {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		var doc any
		if err := json.Unmarshal(data, &doc); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		rel, _ := filepath.Rel(root, p)
		docs[filepath.ToSlash(rel)] = doc
		return nil
	})
	return docs, err
}

// CompareSchemas compares one document (or subschema) pair; file prefixes the reported paths.
func CompareSchemas(file string, oldSchema, newSchema any) []Finding {
	c := &comparer{file: file}
	c.schema("", oldSchema, newSchema)
	return c.found
}

type comparer struct {
	file  string
	found []Finding
	// knownGenerations are the x-generation names the baseline uses. A field or variant added
	// with another one opens a new wire generation: peers of the known generations keep their
	// shapes (schemas/jsonschema/README.md, "Wire generations"), so it breaks nobody.
	knownGenerations map[string]bool
}

// generations collects every x-generation value in docs.
func generations(docs map[string]any) map[string]bool {
	out := map[string]bool{}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if g, ok := v["x-generation"].(string); ok {
				out[g] = true
			}
			for _, child := range v {
				walk(child)
			}
		case []any:
			for _, child := range v {
				walk(child)
			}
		}
	}
	for _, d := range docs {
		walk(d)
	}
	return out
}

// newGeneration reports whether schema s belongs to a generation the baseline does not know.
func (c *comparer) newGeneration(s any) bool {
	m, _ := s.(map[string]any)
	g, _ := m["x-generation"].(string)
	return g != "" && !c.knownGenerations[g]
}

func (c *comparer) report(ptr, format string, args ...any) {
	c.found = append(c.found, Finding{Path: c.file + "#" + ptr, Message: fmt.Sprintf(format, args...)})
}

func (c *comparer) schema(ptr string, oldAny, newAny any) {
	o, _ := oldAny.(map[string]any)
	n, _ := newAny.(map[string]any)
	if o == nil || n == nil {
		if fmt.Sprint(oldAny) != fmt.Sprint(newAny) {
			c.report(ptr, "schema changed from %v to %v", oldAny, newAny)
		}
		return
	}
	c.ref(ptr, o, n)
	c.types(ptr, o, n)
	c.constEnum(ptr, o, n)
	c.bounds(ptr, o, n)
	c.strictness(ptr, o, n)
	c.properties(ptr, o, n)
	c.union(ptr, o, n)
	c.children(ptr, o, n)
}

func (c *comparer) ref(ptr string, o, n map[string]any) {
	if or, nr := o["$ref"], n["$ref"]; or != nr {
		c.report(ptr+"/$ref", "reference changed from %v to %v", or, nr)
	}
}

func typeSet(v any) []string {
	switch t := v.(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, it := range t {
			out = append(out, fmt.Sprint(it))
		}
		return out
	}
	return nil
}

func (c *comparer) types(ptr string, o, n map[string]any) {
	ot, nt := typeSet(o["type"]), typeSet(n["type"])
	if len(ot) == 0 && len(nt) > 0 {
		c.report(ptr+"/type", "type narrowed: now restricted to %v", nt)
		return
	}
	for _, t := range ot {
		if len(nt) > 0 && !slices.Contains(nt, t) && !(t == "number" && slices.Contains(nt, "integer")) {
			c.report(ptr+"/type", "type narrowed: %s no longer accepted", t)
		}
	}
	for _, t := range nt {
		if len(ot) > 0 && !slices.Contains(ot, t) {
			c.report(ptr+"/type", "type widened: old peers reject %s", t)
		}
	}
	if ox, nx := o["x-int"], n["x-int"]; ox != nil && ox != nx {
		c.report(ptr+"/x-int", "integer kind changed from %v to %v", ox, nx)
	}
}

func (c *comparer) constEnum(ptr string, o, n map[string]any) {
	if oc, ok := o["const"]; ok {
		if nc, ok := n["const"]; !ok || fmt.Sprint(oc) != fmt.Sprint(nc) {
			c.report(ptr+"/const", "constant changed from %v to %v", oc, n["const"])
		}
	}
	oe, _ := o["enum"].([]any)
	ne, _ := n["enum"].([]any)
	if oe == nil || ne == nil {
		return
	}
	has := func(list []any, v any) bool {
		return slices.ContainsFunc(list, func(x any) bool { return fmt.Sprint(x) == fmt.Sprint(v) })
	}
	for _, v := range oe {
		if !has(ne, v) {
			c.report(ptr+"/enum", "enum value %v removed", v)
		}
	}
	for _, v := range ne {
		if !has(oe, v) {
			c.report(ptr+"/enum", "enum value %v added (old peers reject it)", v)
		}
	}
}

func number(v any) *big.Rat {
	f, ok := v.(float64)
	if !ok {
		return nil
	}
	r := new(big.Rat)
	r.SetFloat64(f)
	return r
}

// bounds flags lower bounds that rose and upper bounds that fell.
func (c *comparer) bounds(ptr string, o, n map[string]any) {
	for _, k := range []string{"minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties"} {
		ov, nv := number(o[k]), number(n[k])
		if nv != nil && (ov == nil || nv.Cmp(ov) > 0) {
			c.report(ptr+"/"+k, "range narrowed: %s raised to %s", k, nv.RatString())
		}
	}
	for _, k := range []string{"maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties"} {
		ov, nv := number(o[k]), number(n[k])
		if nv != nil && (ov == nil || nv.Cmp(ov) < 0) {
			c.report(ptr+"/"+k, "range narrowed: %s lowered to %s", k, nv.RatString())
		}
	}
}

func (c *comparer) strictness(ptr string, o, n map[string]any) {
	for _, k := range []string{"pattern", "x-nonblank", "uniqueItems", "x-disjoint"} {
		if nv, ok := n[k]; ok && fmt.Sprint(o[k]) != fmt.Sprint(nv) {
			c.report(ptr+"/"+k, "constraint %s added or changed", k)
		}
	}
	if n["unevaluatedProperties"] == false && o["unevaluatedProperties"] != false && o["type"] == "object" {
		c.report(ptr+"/unevaluatedProperties", "object closed: unknown fields now rejected")
	}
}

func stringList(v any) []string {
	var out []string
	if l, ok := v.([]any); ok {
		for _, it := range l {
			out = append(out, fmt.Sprint(it))
		}
	}
	return out
}

func (c *comparer) properties(ptr string, o, n map[string]any) {
	oreq, nreq := stringList(o["required"]), stringList(n["required"])
	for _, r := range nreq {
		if !slices.Contains(oreq, r) {
			c.report(ptr+"/required", "field %q newly required", r)
		}
	}
	op, _ := o["properties"].(map[string]any)
	np, _ := n["properties"].(map[string]any)
	for _, k := range sortedKeys(op) {
		if _, ok := np[k]; !ok {
			c.report(ptr+"/properties/"+escape(k), "field removed")
		}
	}
	closedInOld := o["unevaluatedProperties"] == false || o["additionalProperties"] == false
	for _, k := range sortedKeys(np) {
		if _, ok := op[k]; !ok && closedInOld && !c.newGeneration(np[k]) {
			c.report(ptr+"/properties/"+escape(k), "field added to a closed object (old peers reject unknown fields)")
		}
	}
}

func (c *comparer) union(ptr string, o, n map[string]any) {
	for _, k := range []string{"oneOf", "anyOf"} {
		oa, _ := o[k].([]any)
		na, _ := n[k].([]any)
		if oa == nil && na == nil {
			continue
		}
		oRefs, nRefs := refs(oa), refs(na)
		for _, r := range oRefs {
			if !slices.Contains(nRefs, r) {
				c.report(ptr+"/"+k, "variant %s removed", r)
			}
		}
		defs, _ := n["$defs"].(map[string]any)
		for _, r := range nRefs {
			if !slices.Contains(oRefs, r) && !c.newGeneration(defs[strings.TrimPrefix(r, "#/$defs/")]) {
				c.report(ptr+"/"+k, "variant %s added (old peers reject unknown variants)", r)
			}
		}
		// Inline alternatives without $ref are compared by position.
		for i := 0; i < len(oa) && i < len(na); i++ {
			if m, ok := oa[i].(map[string]any); ok && m["$ref"] == nil {
				c.schema(fmt.Sprintf("%s/%s/%d", ptr, k, i), oa[i], na[i])
			}
		}
	}
}

func refs(list []any) []string {
	var out []string
	for _, it := range list {
		if m, ok := it.(map[string]any); ok {
			if r, ok := m["$ref"].(string); ok {
				out = append(out, r)
			}
		}
	}
	return out
}

// children recurses into subschemas present in both versions.
func (c *comparer) children(ptr string, o, n map[string]any) {
	for _, k := range []string{"properties", "$defs"} {
		om, _ := o[k].(map[string]any)
		nm, _ := n[k].(map[string]any)
		for _, name := range sortedKeys(om) {
			nv, ok := nm[name]
			if !ok {
				if k == "$defs" {
					c.report(ptr+"/$defs/"+escape(name), "definition removed")
				}
				continue
			}
			c.schema(ptr+"/"+k+"/"+escape(name), om[name], nv)
		}
	}
	if oi, ok := o["items"]; ok {
		if ni, ok := n["items"]; ok {
			c.schema(ptr+"/items", oi, ni)
		} else {
			c.report(ptr+"/items", "items schema removed")
		}
	}
}

func escape(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
