package modeltool

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/codemodehq/codemode/pkg/serdejson"
)

// Bounds of the JSON Schema → TypeScript renderer, Codex's values. Every exhausted bound
// degrades the affected type to `unknown` instead of failing.
const (
	// maxLocalRefExpansionsPerPath exposes one nested recursive shape, then renders the next
	// occurrence of the same $ref on the active path as `unknown`, keeping declarations finite.
	maxLocalRefExpansionsPerPath = 2
	// maxTotalLocalRefExpansions bounds repeated refs and DAG fan-out separately from cycle
	// depth, so one compact schema cannot expand into an arbitrarily large declaration.
	maxTotalLocalRefExpansions = 32
	// maxRenderedSchemaBytes caps one rendered schema; a longer rendering becomes `unknown`.
	maxRenderedSchemaBytes = 16_000
	// maxRenderWorkBytes charges intermediate strings as they are built, so repeated refs
	// cannot allocate unbounded expanded copies before the final cap is checked.
	maxRenderWorkBytes = maxRenderedSchemaBytes * 4
)

// renderableSchemaKeywords are the keywords that make $ref siblings worth rendering.
var renderableSchemaKeywords = []string{
	"const", "enum", "anyOf", "oneOf", "allOf", "type", "properties",
	"additionalProperties", "required", "items", "prefixItems",
}

// renderJSONSchemaToTypeScript renders a JSON Schema as the TypeScript type shown to the model in
// nested tool declarations, by the rules of Codex's render_json_schema_to_typescript, so a model
// sees the declarations it was trained against (docs/protocol/javascript.md#the-exec-tool):
//
//   - `true` → unknown, `false` → never; `const`/`enum` → JSON literals joined by " | ";
//     `anyOf`/`oneOf` → " | "; `allOf` → " & " (union members parenthesized);
//   - `type` keywords (string, number/integer → number, boolean, null, array, object; a
//     type array is a union); objects as `{ a: T; b?: U; }` with sorted keys, optional unless
//     `required`, an index signature from additionalProperties (or when there are no
//     properties), and one `// comment` line per description line in a multi-line form when
//     any property has a description; arrays as `Array<T>`, tuples `[A, B]`, else `unknown[]`;
//   - local `$ref`s (`#`, `#/…` with `~0`/`~1` and %-escapes) are expanded inline, at most
//     twice per pointer on the active path and 32 times in total; refs below a nested `$id`
//     stay `unknown`; $ref siblings intersect as `(ref) & (siblings)`;
//   - rendering work is metered (64 000 bytes) and the result is capped at 16 000 bytes;
//     exhausting either yields `unknown`.
//
// A schema that is not valid JSON, or nests deeper than serde_json's limit of 128, renders
// as `unknown` (Codex never receives such a schema as a value).
func renderJSONSchemaToTypeScript(schema json.RawMessage) string {
	root, err := serdejson.Parse(schema)
	if err != nil {
		return "unknown"
	}
	return renderSchema(root)
}

func renderSchema(root *serdejson.Value) string {
	rendered := newSchemaRenderer(root).render(root)
	if len(rendered) > maxRenderedSchemaBytes {
		return "unknown"
	}
	return rendered
}

// schemaRenderer holds the budgets of one rendering.
type schemaRenderer struct {
	root                     *serdejson.Value
	nestedSchemaResources    int
	activeLocalRefExpansions map[string]int
	remainingRefExpansions   int
	remainingWorkBytes       int
	workBudgetExhausted      bool
}

func newSchemaRenderer(root *serdejson.Value) *schemaRenderer {
	return &schemaRenderer{
		root:                     root,
		activeLocalRefExpansions: map[string]int{},
		remainingRefExpansions:   maxTotalLocalRefExpansions,
		remainingWorkBytes:       maxRenderWorkBytes,
	}
}

func (r *schemaRenderer) render(schema *serdejson.Value) string {
	if r.workBudgetExhausted {
		return "unknown"
	}
	// A nested `$id` starts a new schema resource: fragment refs below it are scoped to
	// that resource, not to the document root, so they cannot be resolved here.
	entersResource := schema != r.root && schema.AsObject().Has("$id")
	if entersResource {
		r.nestedSchemaResources++
	}
	rendered := "unknown"
	if b, ok := schema.AsBool(); ok && !b {
		rendered = "never"
	} else if m := schema.AsObject(); m != nil {
		rendered = r.renderMap(m)
	}
	if entersResource {
		r.nestedSchemaResources--
	}
	return r.finishRender(rendered)
}

func (r *schemaRenderer) renderMap(m *serdejson.Map) string {
	if r.workBudgetExhausted {
		return "unknown"
	}
	if m.Has("$ref") {
		return r.renderRef(m)
	}
	if value := m.Get("const"); value != nil {
		return r.renderLiteral(value)
	}
	if values, ok := m.Get("enum").AsArray(); ok {
		rendered := make([]string, 0, len(values))
		for _, value := range values {
			literal := r.renderLiteral(value)
			if r.workBudgetExhausted || !r.consumeWork(len(literal)) {
				return "unknown"
			}
			rendered = append(rendered, literal)
		}
		if len(rendered) > 0 {
			return strings.Join(rendered, " | ")
		}
	}
	for _, key := range []string{"anyOf", "oneOf"} {
		if variants, ok := m.Get(key).AsArray(); ok {
			if rendered, ok := r.renderEach(variants, func(s string) string { return s }); !ok {
				return "unknown"
			} else if len(rendered) > 0 {
				return strings.Join(rendered, " | ")
			}
		}
	}
	if variants, ok := m.Get("allOf").AsArray(); ok {
		if rendered, ok := r.renderEach(variants, parenthesizeUnionForIntersection); !ok {
			return "unknown"
		} else if len(rendered) > 0 {
			return strings.Join(rendered, " & ")
		}
	}
	if schemaType := m.Get("type"); schemaType != nil {
		if types, ok := schemaType.AsArray(); ok {
			var rendered []string
			for _, t := range types {
				name, isString := t.AsString()
				if !isString {
					continue
				}
				if r.workBudgetExhausted {
					return "unknown"
				}
				rendered = append(rendered, r.renderTypeKeyword(m, name))
			}
			if len(rendered) > 0 {
				return strings.Join(rendered, " | ")
			}
		}
		if name, ok := schemaType.AsString(); ok {
			return r.renderTypeKeyword(m, name)
		}
	}
	if m.Has("properties") || m.Has("additionalProperties") || m.Has("required") {
		return r.renderObject(m)
	}
	if m.Has("items") || m.Has("prefixItems") {
		return r.renderArray(m)
	}
	return "unknown"
}

// renderEach renders schemas in order, stopping (ok false) once the work budget is gone.
func (r *schemaRenderer) renderEach(schemas []*serdejson.Value, wrap func(string) string) ([]string, bool) {
	rendered := make([]string, 0, len(schemas))
	for _, schema := range schemas {
		if r.workBudgetExhausted {
			return nil, false
		}
		rendered = append(rendered, wrap(r.render(schema)))
	}
	return rendered, true
}

func (r *schemaRenderer) renderRef(m *serdejson.Map) string {
	referenced := "unknown"
	if r.nestedSchemaResources == 0 {
		if reference, ok := m.Get("$ref").AsString(); ok {
			if pointer, ok := localJSONPointer(reference); ok {
				referenced = r.expandLocalRef(pointer)
			}
		}
	}
	if r.workBudgetExhausted {
		return "unknown"
	}
	siblings := serdejson.NewMap()
	for _, key := range m.Keys() {
		if key != "$ref" && key != "$defs" && key != "definitions" {
			siblings.Set(key, m.Get(key))
		}
	}
	if !hasRenderableSchemaKeywords(siblings) {
		return referenced
	}
	siblingType := r.renderMap(siblings)
	switch {
	case referenced == "unknown":
		return siblingType
	case siblingType == "unknown":
		return referenced
	default:
		return "(" + referenced + ") & (" + siblingType + ")"
	}
}

// expandLocalRef renders the target of a local pointer within the expansion bounds. A
// dangling pointer is `unknown` and is not charged against the total expansion budget.
func (r *schemaRenderer) expandLocalRef(pointer string) string {
	active := r.activeLocalRefExpansions[pointer]
	if active >= maxLocalRefExpansionsPerPath || r.remainingRefExpansions == 0 {
		return "unknown"
	}
	target := r.root.Pointer(pointer)
	if target == nil {
		return "unknown"
	}
	r.remainingRefExpansions--
	r.activeLocalRefExpansions[pointer] = active + 1
	rendered := r.render(target)
	if active == 0 {
		delete(r.activeLocalRefExpansions, pointer)
	} else {
		r.activeLocalRefExpansions[pointer] = active
	}
	return rendered
}

func (r *schemaRenderer) renderTypeKeyword(m *serdejson.Map, schemaType string) string {
	switch schemaType {
	case "string":
		return "string"
	case "number", "integer":
		return "number"
	case "boolean":
		return "boolean"
	case "null":
		return "null"
	case "array":
		return r.renderArray(m)
	case "object":
		return r.renderObject(m)
	default:
		return "unknown"
	}
}

func (r *schemaRenderer) renderArray(m *serdejson.Map) string {
	if items := m.Get("items"); items != nil {
		itemType := r.render(items)
		if r.workBudgetExhausted {
			return "unknown"
		}
		return "Array<" + itemType + ">"
	}
	if items, ok := m.Get("prefixItems").AsArray(); ok {
		itemTypes, ok := r.renderEach(items, func(s string) string { return s })
		if !ok {
			return "unknown"
		}
		if len(itemTypes) > 0 {
			return "[" + strings.Join(itemTypes, ", ") + "]"
		}
	}
	return "unknown[]"
}

func (r *schemaRenderer) renderObject(m *serdejson.Map) string {
	var required []string
	if names, ok := m.Get("required").AsArray(); ok {
		for _, name := range names {
			if s, ok := name.AsString(); ok {
				required = append(required, s)
			}
		}
	}
	properties := m.Get("properties").AsObject()
	if properties == nil {
		properties = serdejson.NewMap()
	}
	hasDescriptions := false
	for _, name := range properties.Keys() {
		if hasPropertyDescription(properties.Get(name)) {
			hasDescriptions = true
			break
		}
	}
	if hasDescriptions {
		return r.renderCommentedObject(m, properties, required)
	}
	var lines []string
	for _, name := range properties.Keys() {
		property := r.renderObjectProperty(name, properties.Get(name), required)
		if r.workBudgetExhausted || !r.pushLine(&lines, property) {
			return "unknown"
		}
	}
	if !r.appendIndexSignature(&lines, m, properties, "") {
		return "unknown"
	}
	if len(lines) == 0 {
		return "{}"
	}
	return "{ " + strings.Join(lines, " ") + " }"
}

// renderCommentedObject is the multi-line object form, used when a property has a
// description: each description line becomes a `// comment` above its property.
func (r *schemaRenderer) renderCommentedObject(m, properties *serdejson.Map, required []string) string {
	var lines []string
	if !r.pushLine(&lines, "{") {
		return "unknown"
	}
	for _, name := range properties.Keys() {
		value := properties.Get(name)
		if description, ok := value.AsObject().Get("description").AsString(); ok {
			for _, line := range strings.Split(description, "\n") {
				line = strings.TrimSpace(line)
				if line == "" {
					continue
				}
				// Codex refuses the comment before allocating it when it cannot fit; this
				// path returns `unknown` without marking the budget exhausted.
				if len(line)+5 > r.remainingWorkBytes || !r.pushLine(&lines, "  // "+line) {
					return "unknown"
				}
			}
		}
		property := r.renderObjectProperty(name, value, required)
		if r.workBudgetExhausted || !r.pushLine(&lines, "  "+property) {
			return "unknown"
		}
	}
	if !r.appendIndexSignature(&lines, m, properties, "  ") || !r.pushLine(&lines, "}") {
		return "unknown"
	}
	return strings.Join(lines, "\n")
}

func (r *schemaRenderer) renderObjectProperty(name string, value *serdejson.Value, required []string) string {
	if len(name) > r.remainingWorkBytes {
		r.workBudgetExhausted = true
		return "unknown"
	}
	optional := "?"
	for _, requiredName := range required {
		if requiredName == name {
			optional = ""
			break
		}
	}
	propertyName := renderPropertyName(name)
	propertyType := r.render(value)
	if r.workBudgetExhausted {
		return "unknown"
	}
	return propertyName + optional + ": " + propertyType + ";"
}

// appendIndexSignature adds `[key: string]: T;` for additionalProperties (true → unknown,
// false → none, a schema → its type), or `unknown` when the object lists no properties and
// says nothing about additional ones. It returns false when the work budget ran out.
func (r *schemaRenderer) appendIndexSignature(lines *[]string, m, properties *serdejson.Map, prefix string) bool {
	additional := m.Get("additionalProperties")
	switch {
	case additional == nil:
		if properties.Len() == 0 {
			return r.pushLine(lines, prefix+"[key: string]: unknown;")
		}
		return true
	case additional.Kind() == serdejson.Bool:
		if allowed, _ := additional.AsBool(); !allowed {
			return true
		}
		return r.pushLine(lines, prefix+"[key: string]: unknown;")
	default:
		return r.pushLine(lines, prefix+"[key: string]: "+r.render(additional)+";")
	}
}

func (r *schemaRenderer) finishRender(rendered string) string {
	if r.consumeWork(len(rendered)) {
		return rendered
	}
	return "unknown"
}

// renderLiteral serializes a const/enum value, refusing before serializing when even its
// upper-bound size exceeds the remaining work budget.
func (r *schemaRenderer) renderLiteral(value *serdejson.Value) string {
	if literalSizeUpperBound(value) > r.remainingWorkBytes {
		r.workBudgetExhausted = true
		return "unknown"
	}
	return value.String()
}

func (r *schemaRenderer) consumeWork(n int) bool {
	if n > r.remainingWorkBytes {
		r.workBudgetExhausted = true
		return false
	}
	r.remainingWorkBytes -= n
	return true
}

func (r *schemaRenderer) pushLine(lines *[]string, line string) bool {
	if !r.consumeWork(len(line)) {
		return false
	}
	*lines = append(*lines, line)
	return true
}

func parenthesizeUnionForIntersection(rendered string) string {
	if strings.Contains(rendered, " | ") {
		return "(" + rendered + ")"
	}
	return rendered
}

// localJSONPointer returns the JSON pointer of a same-document reference ("#" or "#/…"),
// percent-decoding the URI fragment first.
func localJSONPointer(reference string) (string, bool) {
	fragment, ok := strings.CutPrefix(reference, "#")
	if !ok {
		return "", false
	}
	pointer, ok := percentDecode(fragment)
	if !ok || (pointer != "" && !strings.HasPrefix(pointer, "/")) {
		return "", false
	}
	return pointer, true
}

func percentDecode(s string) (string, bool) {
	decoded := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			decoded = append(decoded, s[i])
			continue
		}
		if i+2 >= len(s) {
			return "", false
		}
		high, okHigh := hexDigit(s[i+1])
		low, okLow := hexDigit(s[i+2])
		if !okHigh || !okLow {
			return "", false
		}
		decoded = append(decoded, high<<4|low)
		i += 2
	}
	if !utf8.Valid(decoded) {
		return "", false
	}
	return string(decoded), true
}

func hexDigit(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	default:
		return 0, false
	}
}

func hasRenderableSchemaKeywords(m *serdejson.Map) bool {
	for _, key := range renderableSchemaKeywords {
		if m.Has(key) {
			return true
		}
	}
	return false
}

func hasPropertyDescription(value *serdejson.Value) bool {
	description, ok := value.AsObject().Get("description").AsString()
	return ok && description != ""
}

// renderPropertyName keeps identifier-shaped names bare and quotes the rest as JSON strings.
func renderPropertyName(name string) string {
	if NormalizeIdentifier(name) == name {
		return name
	}
	return serdejson.Quote(name)
}

// literalSizeUpperBound bounds the serialized size of a JSON value without serializing it:
// a string byte can expand to at most a six-byte \u escape.
func literalSizeUpperBound(v *serdejson.Value) int {
	switch v.Kind() {
	case serdejson.Null, serdejson.Bool, serdejson.Number:
		return len(v.String())
	case serdejson.String:
		s, _ := v.AsString()
		return saturatingAdd(saturatingMul(len(s), 6), 2)
	case serdejson.Array:
		elems, _ := v.AsArray()
		size := 2
		for _, elem := range elems {
			size = saturatingAdd(saturatingAdd(size, 1), literalSizeUpperBound(elem))
		}
		return size
	default:
		m := v.AsObject()
		size := 2
		for _, key := range m.Keys() {
			size = saturatingAdd(saturatingAdd(size, 4), saturatingMul(len(key), 6))
			size = saturatingAdd(size, literalSizeUpperBound(m.Get(key)))
		}
		return size
	}
}

const maxInt = int(^uint(0) >> 1)

func saturatingAdd(a, b int) int {
	if a > maxInt-b {
		return maxInt
	}
	return a + b
}

func saturatingMul(a, b int) int {
	if b != 0 && a > maxInt/b {
		return maxInt
	}
	return a * b
}
