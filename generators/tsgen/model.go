package tsgen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/codemodehq/codemode/generators/wiregen"
)

// model is the schema set with the lookups the TypeScript writers need.
type model struct {
	schemas []*wiregen.Schema
	byName  map[string]*wiregen.Schema
	// variants maps a variant name to its union; names are unique across the set.
	variants map[string]*wiregen.Schema
	// runtime is the module specifier of the runtime in generated imports.
	runtime string
	buf     bytes.Buffer
	// protocol and schemaPath name the wire and its schemas in generated comments.
	protocol, schemaPath string
}

func newModel(schemas []*wiregen.Schema, runtime string) (*model, error) {
	schemas = baselineOnly(schemas)
	m := &model{schemas: schemas, byName: map[string]*wiregen.Schema{}, variants: map[string]*wiregen.Schema{}, runtime: runtime}
	taken := map[string]string{}
	claim := func(name, what string) error {
		if prev, ok := taken[name]; ok {
			return fmt.Errorf("TypeScript name %s is both %s and %s", name, prev, what)
		}
		taken[name] = what
		return nil
	}
	for _, s := range schemas {
		m.byName[s.Name] = s
		if err := claim(s.Name, "schema "+s.File); err != nil {
			return nil, err
		}
	}
	for _, s := range schemas {
		for _, v := range s.Variants {
			m.variants[v.Name] = s
			if err := claim(v.Name, "a variant of "+s.Name); err != nil {
				return nil, err
			}
			if s.Kind == wiregen.KindExternalUnion && v.Wrapped == nil {
				if err := claim(bodyName(v), "the body of "+v.Name); err != nil {
					return nil, err
				}
			}
		}
	}
	return m, nil
}

// bodyName names the object inside an external variant with inline fields.
func bodyName(v wiregen.Variant) string {
	return v.Name + "Body"
}

// p writes one line of output.
func (m *model) p(format string, args ...any) {
	fmt.Fprintf(&m.buf, format, args...)
	m.buf.WriteByte('\n')
}

// take returns what was written since the last call.
func (m *model) take() string {
	s := m.buf.String()
	m.buf.Reset()
	return s
}

// jsString quotes s as a JavaScript string literal (JSON syntax, no HTML escaping).
func jsString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		panic(err) // a Go string always encodes
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func jsStrings(items []string) string {
	q := make([]string, len(items))
	for i, s := range items {
		q[i] = jsString(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

var identifier = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`)

// propName is a key as a property name in a type or object literal.
func propName(key string) string {
	if identifier.MatchString(key) {
		return key
	}
	return jsString(key)
}

// access is the expression reading key of obj.
func access(obj, key string) string {
	if identifier.MatchString(key) {
		return obj + "." + key
	}
	return obj + "[" + jsString(key) + "]"
}

// doc writes a JSDoc comment; lines are joined, "*/" cannot end it early.
func (m *model) doc(indent, text string) {
	text = strings.TrimSpace(strings.ReplaceAll(text, "*/", "*\\/"))
	if text == "" {
		return
	}
	m.p("%s/** %s */", indent, strings.Join(strings.Fields(text), " "))
}

// intFamily tells whether an integer kind is 64-bit (carried as Int64) and unsigned.
func intFamily(kind string) (wide, unsigned bool) {
	return kind == "i64" || kind == "u64", kind[0] == 'u'
}

// tsTypeSubst is the TypeScript type of a property's non-none form, with the named types of
// subst replaced (generic parameters).
func (m *model) tsTypeSubst(ft wiregen.FieldType, subst map[string]string) string {
	switch ft.Kind {
	case "ref":
		if p, ok := subst[ft.Ref]; ok {
			return p
		}
		return ft.Ref
	case "string":
		return "string"
	case "bool":
		return "boolean"
	case "map":
		return "Record<string, " + m.tsTypeSubst(*ft.Items, subst) + ">"
	case "enum":
		return strings.Join(quoteAll(ft.Enum), " | ")
	case "int":
		if wide, _ := intFamily(ft.Int); wide {
			return "Int64"
		}
		return "number"
	case "value":
		return "JsonValue"
	case "array":
		it := m.tsTypeSubst(*ft.Items, subst)
		if strings.Contains(it, " ") {
			it = "(" + it + ")"
		}
		return it + "[]"
	}
	panic("unknown field kind " + ft.Kind)
}

func quoteAll(items []string) []string {
	out := make([]string, len(items))
	for i, s := range items {
		out[i] = jsString(s)
	}
	return out
}

var comments = regexp.MustCompile(`/\*(?:[^*]|\*[^/])*\*/|(?m)^[ \t]*//[^\n]*`)

// usedNames returns those of names that body's code (comments aside) mentions as whole words,
// sorted.
func usedNames(body string, names []string) []string {
	body = comments.ReplaceAllString(body, "")
	var out []string
	for _, n := range names {
		if regexp.MustCompile(`\b` + regexp.QuoteMeta(n) + `\b`).MatchString(body) {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// baselineOnly drops the fields and variants of later wire generations (x-generation): the
// TypeScript codec speaks the baseline generation, which is what its differential test against
// Go compares.
func baselineOnly(schemas []*wiregen.Schema) []*wiregen.Schema {
	out := make([]*wiregen.Schema, len(schemas))
	for i, s := range schemas {
		c := *s
		c.Fields = withoutGenerations(s.Fields)
		c.Variants = nil
		for _, v := range s.Variants {
			if v.Generation != "" {
				continue
			}
			v.Fields = withoutGenerations(v.Fields)
			c.Variants = append(c.Variants, v)
		}
		out[i] = &c
	}
	return out
}

func withoutGenerations(fields []wiregen.Field) []wiregen.Field {
	var out []wiregen.Field
	for _, f := range fields {
		if f.Generation == "" {
			out = append(out, f)
		}
	}
	return out
}
