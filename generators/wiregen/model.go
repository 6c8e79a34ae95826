// Package wiregen turns the V1 JSON Schema documents (schemas/jsonschema/v1) into Go types with
// strict codecs, lane tables, a host handler interface and dispatcher, a request builder, and the
// fixture tree. The schema dialect it understands is documented in schemas/jsonschema/README.md.
package wiregen

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Kinds of named types (the "x-kind" keyword of a schema document).
const (
	KindScalar        = "scalar"
	KindSet           = "set"
	KindObject        = "object"
	KindInternalUnion = "internal-union"
	KindExternalUnion = "external-union"
)

// Schema is the model of one schema document: one named type.
type Schema struct {
	Name string
	Kind string
	Doc  string
	File string

	// Scalar: Base is "string", an integer kind (i64, u64, u32, i32), "string-or-i64" (an
	// untagged union of a string and an integer: JSON "type": ["string", "integer"]) or
	// "unit-enum" (serde's externally tagged enum of unit variants, UnitVariants: a bare
	// string, or an object with one variant key whose value is null or {}).
	Base         string
	UnitVariants []string
	Min, Max     string
	Expecting    string
	NonBlank     string // error text when the trimmed string is empty; "" when unchecked
	// Prefix (a "pattern" of the form ^literal) is what a string scalar must start with;
	// PrefixErr (x-errors.pattern) the error text otherwise.
	Prefix, PrefixErr string

	// Set.
	Item         string
	MinItems     bool
	EmptyError   string
	DuplicateErr string

	// Object (and the fields of object variants).
	Fields []Field
	// IgnoreUnknown (x-ignore-unknown-fields on an object) skips unknown members instead of
	// rejecting them: serde's default for structs without deny_unknown_fields. They are not
	// re-encoded.
	IgnoreUnknown bool
	Disjoint      *Disjoint
	Semantic      []Semantic

	// Unions.
	Tag      string // internal unions only
	Variants []Variant
	Generic  string // "WireResult<HostResponse>" for documentation

	Examples     []*node
	NonCanonical []NonCanonical
	Invalid      []Invalid
}

// Field is one property of an object.
type Field struct {
	JSON     string
	Go       string
	Type     FieldType
	Required bool
	// Absent says how an optional field's "none" is encoded: "null" (emit null), "omit" (skip),
	// or "default" (serde's #[serde(default)] on a non-Option field: absent decodes as the zero
	// value, null is refused, the value is always encoded; the Go and TS types are not optional).
	Absent string
	// Generation, when set, is the wire generation that introduced the field (x-generation):
	// it exists only from that generation on; earlier generations reject it as an unknown
	// field. Without x-absent it is required there (GenRequired); with x-absent it is optional
	// there as any optional field is.
	Generation  string
	GenRequired bool
}

// FieldType describes the Go and JSON shape of a property.
type FieldType struct {
	Kind     string // ref, string, bool, int, array, map (string keys, Items the value), enum, value
	Ref      string
	Int      string // i64 u64 u32 i32
	Enum     []string
	Nullable bool
	Items    *FieldType
}

// Variant is one alternative of a union.
type Variant struct {
	Name          string
	TagValue      string // internal: tag value; external: the key
	Fields        []Field
	Wrapped       *FieldType // external variant whose payload is a named type
	Lane          string
	LaneRules     []LaneRule
	Response      string
	IgnoreUnknown bool
	Disjoint      *Disjoint
	// Generation, when set, is the wire generation that introduced the variant
	// (x-generation): earlier generations reject its tag as an unknown variant.
	Generation string
}

// LaneRule overrides a variant's lane when every step of Match holds.
type LaneRule struct {
	Match []LaneStep
	Lane  string
}

// LaneStep says "field Field holds the union variant Variant".
type LaneStep struct{ Field, Variant string }

// Disjoint forbids an item from appearing in two set-valued fields.
type Disjoint struct {
	Fields [2]string
	Error  string
}

// Semantic is a post-decode check a peer applies before acting on a message.
type Semantic struct {
	Field   string
	Minimum string
	Error   string
}

// NonCanonical is an accepted input whose re-encoding differs from it.
type NonCanonical struct {
	Name      string
	JSON      *node
	Canonical *node
}

// Invalid is an input every decoder must reject with an error containing Error.
type Invalid struct {
	Name  string
	JSON  *node  // nil when Raw is set
	Raw   string // raw document text (duplicate keys, float lexemes, malformed JSON)
	Error string
	// BeyondJSONSchema marks inputs a plain JSON Schema validator accepts; only the generated
	// codec rejects them (x-disjoint, integer-valued floats such as 1.0).
	BeyondJSONSchema bool
}

// GenerationsFile, beside the schema documents, lists the wire generations oldest first:
// {"generations": [{"name": "baseline", "codex": "…"}, …]}. Without it the generations are
// "baseline" and the x-generation names in order of first appearance.
const GenerationsFile = "generations.json"

// LoadGenerations reads the generation names of dir's GenerationsFile, nil when there is none.
func LoadGenerations(dir string) ([]string, error) {
	data, err := os.ReadFile(filepath.Join(dir, GenerationsFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var doc struct {
		Generations []struct {
			Name string `json:"name"`
		} `json:"generations"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", GenerationsFile, err)
	}
	var names []string
	for _, g := range doc.Generations {
		names = append(names, g.Name)
	}
	if len(names) == 0 || names[0] != "baseline" {
		return nil, fmt.Errorf("%s: the first generation must be baseline", GenerationsFile)
	}
	return names, nil
}

// Load reads every *.schema.json document in dir, sorted by name.
func Load(dir string) ([]*Schema, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.schema.json"))
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	var out []*Schema
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		root, err := parseOrdered(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		s, err := buildSchema(root, filepath.Base(p))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no *.schema.json documents in %s", dir)
	}
	return out, checkRefs(out)
}

func buildSchema(root *node, file string) (*Schema, error) {
	s := &Schema{Name: root.str("title"), Kind: root.str("x-kind"), Doc: root.str("description"), File: file}
	if s.Name+".schema.json" != file {
		return nil, fmt.Errorf("title %q must match the file name", s.Name)
	}
	var err error
	switch s.Kind {
	case KindScalar:
		err = buildScalar(s, root)
	case KindSet:
		s.Item = refName(root.get("items").str("$ref"))
		s.MinItems = root.get("minItems") != nil && root.get("minItems").text != "0"
		if e := root.get("x-errors"); e != nil {
			s.EmptyError, s.DuplicateErr = e.str("empty"), e.str("duplicate")
		}
		if s.Item == "" || s.DuplicateErr == "" {
			err = fmt.Errorf("a set needs items.$ref and x-errors.duplicate")
		}
	case KindObject:
		s.Fields, err = buildFields(root, "")
		s.IgnoreUnknown = root.isTrue("x-ignore-unknown-fields")
		s.Disjoint = buildDisjoint(root)
		s.Semantic = buildSemantic(root)
	case KindInternalUnion, KindExternalUnion:
		err = buildUnion(s, root)
	default:
		err = fmt.Errorf("unknown x-kind %q", s.Kind)
	}
	if err != nil {
		return nil, err
	}
	if ex := root.get("examples"); ex != nil {
		s.Examples = ex.items
	}
	if nc := root.get("x-noncanonical-examples"); nc != nil {
		for _, it := range nc.items {
			s.NonCanonical = append(s.NonCanonical, NonCanonical{Name: it.str("name"), JSON: it.get("json"), Canonical: it.get("canonical")})
		}
	}
	if inv := root.get("x-invalid-examples"); inv != nil {
		for _, it := range inv.items {
			s.Invalid = append(s.Invalid, Invalid{Name: it.str("name"), JSON: it.get("json"), Raw: it.str("raw"), Error: it.str("error"), BeyondJSONSchema: it.isTrue("x-beyond-json-schema")})
		}
	}
	return s, nil
}

func buildScalar(s *Schema, root *node) error {
	if u := root.get("x-unit-variants"); u != nil {
		for _, it := range u.items {
			s.UnitVariants = append(s.UnitVariants, it.text)
		}
		if len(s.UnitVariants) == 0 {
			return fmt.Errorf("x-unit-variants needs at least one variant")
		}
		s.Base = "unit-enum"
		return nil
	}
	if t := root.get("type"); t != nil && t.kind == '[' {
		// The one untagged scalar union of the dialect: a string or an i64 (JSON-RPC ids).
		if len(t.items) != 2 || t.items[0].text != "string" || t.items[1].text != "integer" || root.str("x-int") != "i64" {
			return fmt.Errorf(`a scalar with a list of types must be "type": ["string", "integer"] with "x-int": "i64"`)
		}
		s.Base = "string-or-i64"
		return nil
	}
	if v := root.get("x-int"); v != nil {
		s.Base = v.text
		s.Min, s.Max = root.get("minimum").text, root.get("maximum").text
		s.Expecting = root.str("x-expecting")
		if s.Expecting == "" {
			s.Expecting = s.Base
		}
		return nil
	}
	if root.str("type") != "string" {
		return fmt.Errorf("a scalar is a string or has x-int")
	}
	s.Base = "string"
	// A pattern is a generator rule only with x-errors.pattern (elsewhere it documents x-nonblank).
	if pat := root.str("pattern"); pat != "" && root.get("x-errors").str("pattern") != "" {
		lit := strings.TrimPrefix(pat, "^")
		if lit == pat || strings.ContainsAny(lit, `\.[]()*+?{}|^$`) {
			return fmt.Errorf("a scalar pattern must be ^ and a literal prefix, not %q", pat)
		}
		s.Prefix, s.PrefixErr = lit, root.get("x-errors").str("pattern")
		if s.PrefixErr == "" {
			return fmt.Errorf("pattern needs x-errors.pattern")
		}
	}
	if root.isTrue("x-nonblank") {
		s.NonBlank = root.get("x-errors").str("blank")
		if s.NonBlank == "" {
			return fmt.Errorf("x-nonblank needs x-errors.blank")
		}
	}
	return nil
}

func buildDisjoint(obj *node) *Disjoint {
	d := obj.get("x-disjoint")
	if d == nil {
		return nil
	}
	f := d.get("fields")
	return &Disjoint{Fields: [2]string{f.items[0].text, f.items[1].text}, Error: d.str("error")}
}

func buildSemantic(obj *node) []Semantic {
	var out []Semantic
	if s := obj.get("x-semantic"); s != nil {
		for _, it := range s.items {
			out = append(out, Semantic{Field: it.str("field"), Minimum: it.get("minimum").text, Error: it.str("error")})
		}
	}
	return out
}

// buildFields reads properties/required of an object schema. skip names a property (the union
// tag) that is not a field.
func buildFields(obj *node, skip string) ([]Field, error) {
	props := obj.get("properties")
	required := map[string]bool{}
	if r := obj.get("required"); r != nil {
		for _, it := range r.items {
			required[it.text] = true
		}
	}
	if props == nil {
		return nil, nil
	}
	var out []Field
	for _, m := range props.members {
		if m.key == skip {
			continue
		}
		ft, err := buildFieldType(m.value)
		if err != nil {
			return nil, fmt.Errorf("property %s: %w", m.key, err)
		}
		f := Field{JSON: m.key, Go: goFieldName(m.key), Type: ft, Required: required[m.key], Absent: m.value.str("x-absent"), Generation: m.value.str("x-generation")}
		if f.Generation != "" {
			if f.Required {
				return nil, fmt.Errorf("property %s: an x-generation property is not listed in required", m.key)
			}
			if f.Absent == "" {
				// Required in its generation, absent before it: the Go field is a pointer,
				// emitted when set.
				f.Absent, f.GenRequired = "omit", true
			}
		}
		if !f.Required {
			switch f.Absent {
			case "null", "omit":
				f.Type.Nullable = true
			case "default":
				switch f.Type.Kind {
				case "bool", "string", "int", "array", "map":
				default:
					return nil, fmt.Errorf("property %s: x-absent default needs a bool, string, integer, array or map (a zero value)", m.key)
				}
			default:
				return nil, fmt.Errorf("optional property %s needs x-absent null|omit|default", m.key)
			}
		}
		out = append(out, f)
	}
	return out, nil
}

func buildFieldType(p *node) (FieldType, error) {
	if r := p.str("$ref"); r != "" {
		return FieldType{Kind: "ref", Ref: refName(r)}, nil
	}
	if any := p.get("anyOf"); any != nil {
		return FieldType{Kind: "ref", Ref: refName(any.items[0].str("$ref")), Nullable: true}, nil
	}
	if p.isTrue("x-json-value") {
		return FieldType{Kind: "value"}, nil
	}
	if e := p.get("enum"); e != nil {
		ft := FieldType{Kind: "enum"}
		for _, it := range e.items {
			if it.kind == 's' {
				ft.Enum = append(ft.Enum, it.text)
			}
		}
		return ft, nil
	}
	if x := p.str("x-int"); x != "" {
		return FieldType{Kind: "int", Int: x}, nil
	}
	typ := p.get("type")
	name := typ.text
	if typ.kind == '[' {
		name = typ.items[0].text
	}
	switch name {
	case "string":
		return FieldType{Kind: "string"}, nil
	case "boolean":
		return FieldType{Kind: "bool"}, nil
	case "object":
		ap := p.get("additionalProperties")
		if ap == nil || ap.kind != '{' {
			return FieldType{}, fmt.Errorf("an inline object property must be a map: additionalProperties with a schema")
		}
		items, err := buildFieldType(ap)
		return FieldType{Kind: "map", Items: &items}, err
	case "array":
		items, err := buildFieldType(p.get("items"))
		return FieldType{Kind: "array", Items: &items}, err
	}
	return FieldType{}, fmt.Errorf("unsupported property schema")
}

func buildUnion(s *Schema, root *node) error {
	s.Tag = root.str("x-tag")
	if g := root.get("x-generic"); g != nil {
		var args []string
		for _, a := range g.get("args").items {
			args = append(args, a.text)
		}
		s.Generic = g.str("name") + "<" + strings.Join(args, ", ") + ">"
	}
	defs := root.get("$defs")
	for _, alt := range root.get("oneOf").items {
		name := strings.TrimPrefix(alt.str("$ref"), "#/$defs/")
		def := defs.get(name)
		if def == nil {
			return fmt.Errorf("oneOf names missing $defs/%s", name)
		}
		v := Variant{Name: name, Lane: def.str("x-lane"), Response: def.str("x-response"), IgnoreUnknown: def.isTrue("x-ignore-unknown-fields"), Disjoint: buildDisjoint(def), Generation: def.str("x-generation")}
		for _, r := range def.get("x-lane-rules").itemsOrNil() {
			rule := LaneRule{Lane: r.str("lane")}
			for _, st := range r.get("match").items {
				rule.Match = append(rule.Match, LaneStep{Field: st.str("field"), Variant: st.str("variant")})
			}
			v.LaneRules = append(v.LaneRules, rule)
		}
		var err error
		if s.Kind == KindInternalUnion {
			v.TagValue = def.get("properties").get(s.Tag).str("const")
			v.Fields, err = buildFields(def, s.Tag)
		} else {
			only := def.get("properties").members
			if len(only) != 1 {
				return fmt.Errorf("external variant %s must have exactly one property", name)
			}
			v.TagValue = only[0].key
			if r := only[0].value.str("$ref"); r != "" {
				v.Wrapped = &FieldType{Kind: "ref", Ref: refName(r)}
			} else {
				v.Fields, err = buildFields(only[0].value, "")
			}
		}
		if err != nil {
			return fmt.Errorf("variant %s: %w", name, err)
		}
		if v.TagValue == "" {
			return fmt.Errorf("variant %s has no tag value", name)
		}
		s.Variants = append(s.Variants, v)
	}
	return nil
}

func (n *node) itemsOrNil() []*node {
	if n == nil {
		return nil
	}
	return n.items
}

func refName(ref string) string {
	return strings.TrimSuffix(ref, ".schema.json")
}

// goFieldName maps a JSON key to an exported Go name: snake_case and camelCase both become
// PascalCase ("tool_call_id" → ToolCallId, "sessionId" → SessionId). Initialisms are not
// upper-cased, so names match the schema vocabulary one to one.
func goFieldName(key string) string {
	var sb strings.Builder
	upper := true
	for _, r := range key {
		if r == '_' {
			upper = true
			continue
		}
		if upper {
			sb.WriteString(strings.ToUpper(string(r)))
			upper = false
		} else {
			sb.WriteRune(r)
		}
	}
	return sb.String()
}

func checkRefs(all []*Schema) error {
	names := map[string]*Schema{}
	for _, s := range all {
		names[s.Name] = s
	}
	var check func(ft *FieldType, where string) error
	check = func(ft *FieldType, where string) error {
		if ft == nil {
			return nil
		}
		if ft.Kind == "ref" && names[ft.Ref] == nil {
			return fmt.Errorf("%s refers to unknown type %s", where, ft.Ref)
		}
		return check(ft.Items, where)
	}
	for _, s := range all {
		if s.Kind == KindSet && names[s.Item] == nil {
			return fmt.Errorf("%s: unknown item type %s", s.Name, s.Item)
		}
		for _, f := range s.Fields {
			if err := check(&f.Type, s.Name+"."+f.JSON); err != nil {
				return err
			}
		}
		for _, v := range s.Variants {
			if err := check(v.Wrapped, s.Name+"."+v.Name); err != nil {
				return err
			}
			for _, f := range v.Fields {
				if err := check(&f.Type, v.Name+"."+f.JSON); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
