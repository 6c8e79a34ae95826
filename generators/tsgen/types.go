package tsgen

import (
	"fmt"
	"strings"

	"github.com/codemodehq/codemode/generators/internal/emit"
	"github.com/codemodehq/codemode/generators/wiregen"
)

// runtimeExports lists the runtime names generated modules may import; each module imports the
// ones it uses (noUnusedLocals).
var runtimeExports = []string{
	"allowOnly", "decodeBool", "defaulted", "decodeEnum", "decodeUnitEnum", "decodeMap", "decodeStringOrI64", "encodeMap", "decodeI32", "decodeI64", "decodeInteger", "decodeJSONValue",
	"decodeList", "decodeNonBlank", "decodeString", "decodeU32", "decodeU64", "encodeInteger",
	"encodeList", "encodeSet", "errorAt", "externalKey", "externalVariant", "firstCommon",
	"firstDuplicate", "formatTemplate", "isObject", "joinPath", "optional", "parseJSON", "unmarshal",
	"readObject", "required", "stringifyJSON", "toInt64", "unionTag", "unknownVariant",
	"validated", "WireDecodeError",
}

// runtimeTypes are the runtime types generated modules may import.
var runtimeTypes = []string{"Int64", "JsonObject", "JsonValue"}

// importLine imports from the runtime module what body uses.
func (m *model) importLine(body string, extraTypes ...string) string {
	var names []string
	names = append(names, usedNames(body, runtimeExports)...)
	for _, t := range usedNames(body, append(runtimeTypes, extraTypes...)) {
		names = append(names, "type "+t)
	}
	if len(names) == 0 {
		return ""
	}
	return "import { " + strings.Join(names, ", ") + " } from " + jsString(m.runtime) + ";\n\n"
}

// typesFile renders types.ts: declarations, decoders, encoders and the public codec functions
// of every schema, in schema order.
func (m *model) typesFile() ([]byte, error) {
	for _, s := range m.schemas {
		m.p("// ---- %s (%s) ----", s.Name, s.File)
		m.p("")
		switch s.Kind {
		case wiregen.KindScalar:
			m.scalar(s)
		case wiregen.KindSet:
			m.set(s)
		case wiregen.KindObject:
			m.doc("", s.Doc)
			m.interfaceDecl(s.Name, "", "", s.Fields)
			m.objectReader(s.Name, "struct "+s.Name, "", "", s.Fields, s.IgnoreUnknown, s.Disjoint)
			m.objectWriter(s.Name, "", "", s.Fields)
			m.semantic(s)
		case wiregen.KindInternalUnion:
			m.internalUnion(s)
		case wiregen.KindExternalUnion:
			m.externalUnion(s)
		default:
			return nil, fmt.Errorf("%s: unknown x-kind %q", s.Name, s.Kind)
		}
		m.publicCodec(s)
	}
	if err := m.generics(); err != nil {
		return nil, err
	}
	m.registry()
	body := m.take()
	var out strings.Builder
	out.WriteString(generatedHeader + "\n\n")
	fmt.Fprintf(&out, "// Types, strict decoders and canonical encoders of every %s wire type, generated from\n", m.protocol)
	fmt.Fprintf(&out, "// %s (see schemas/jsonschema/README.md for the dialect).\n\n", m.schemaPath)
	out.WriteString(m.importLine(body))
	out.WriteString(body)
	return []byte(out.String()), nil
}

func (m *model) scalar(s *wiregen.Schema) {
	m.doc("", s.Doc)
	if s.Base == "unit-enum" {
		quoted := make([]string, len(s.UnitVariants))
		for i, v := range s.UnitVariants {
			quoted[i] = jsString(v)
		}
		m.p("export type %s = %s;", s.Name, strings.Join(quoted, " | "))
		m.p("")
		m.p("function read%s(n: unknown, path: string): %s {", s.Name, s.Name)
		m.p("  return decodeUnitEnum(n, path, [%s] as const);", strings.Join(quoted, ", "))
		m.p("}")
		m.p("")
		m.p("function write%s(v: %s): JsonValue {", s.Name, s.Name)
		m.p("  return v;")
		m.p("}")
		m.p("")
		return
	}
	if s.Base == "string-or-i64" {
		m.p("export type %s = string | Int64;", s.Name)
		m.p("")
		m.p("function read%s(n: unknown, path: string): %s {", s.Name, s.Name)
		m.p("  return decodeStringOrI64(n, path, %s);", jsString(s.Name))
		m.p("}")
		m.p("")
		m.p("function write%s(v: %s): JsonValue {", s.Name, s.Name)
		m.p("  return typeof v === \"string\" ? v : encodeInteger(v);")
		m.p("}")
		m.p("")
		return
	}
	if s.Base == "string" {
		m.p("export type %s = string;", s.Name)
		m.p("")
		m.p("function read%s(n: unknown, path: string): %s {", s.Name, s.Name)
		switch {
		case s.NonBlank != "":
			m.p("  return decodeNonBlank(n, path, %s);", jsString(s.NonBlank))
		case s.Prefix != "":
			m.p("  const s = decodeString(n, path);")
			m.p("  if (!s.startsWith(%s)) {", jsString(s.Prefix))
			m.p("    throw errorAt(path, %s);", jsString(s.PrefixErr))
			m.p("  }")
			m.p("  return s;")
		default:
			m.p("  return decodeString(n, path);")
		}
		m.p("}")
		m.p("")
		m.p("function write%s(v: %s): JsonValue {", s.Name, s.Name)
		m.p("  return v;")
		m.p("}")
		m.p("")
		return
	}
	wide, unsigned := intFamily(s.Base)
	call := fmt.Sprintf("decodeInteger(n, path, %sn, %sn, %s, %t)", s.Min, s.Max, jsString(s.Expecting), unsigned)
	if wide {
		m.p("export type %s = Int64;", s.Name)
		call = "toInt64(" + call + ")"
	} else {
		m.p("export type %s = number;", s.Name)
		call = "Number(" + call + ")"
	}
	m.p("")
	m.p("function read%s(n: unknown, path: string): %s {", s.Name, s.Name)
	m.p("  return %s;", call)
	m.p("}")
	m.p("")
	m.p("function write%s(v: %s): JsonValue {", s.Name, s.Name)
	m.p("  return encodeInteger(v);")
	m.p("}")
	m.p("")
}

func (m *model) set(s *wiregen.Schema) {
	m.doc("", s.Doc)
	m.p("export type %s = %s[];", s.Name, s.Item)
	m.p("")
	m.p("function read%s(n: unknown, path: string): %s {", s.Name, s.Name)
	m.p("  const items = decodeList(n, path, read%s);", s.Item)
	if s.MinItems {
		m.p("  if (items.length === 0) {")
		m.p("    throw errorAt(path, %s);", jsString(s.EmptyError))
		m.p("  }")
	}
	m.p("  const duplicate = firstDuplicate(items);")
	m.p("  if (duplicate !== undefined) {")
	m.p("    throw errorAt(path, formatTemplate(%s, duplicate));", jsString(s.DuplicateErr))
	m.p("  }")
	m.p("  return items;")
	m.p("}")
	m.p("")
	m.p("function write%s(v: %s): JsonValue {", s.Name, s.Name)
	m.p("  return encodeSet(v, write%s);", s.Item)
	m.p("}")
	m.p("")
}

// interfaceDecl declares an object type; tag/tagValue, when set, is the union tag member.
func (m *model) interfaceDecl(name, tag, tagValue string, fields []wiregen.Field) {
	m.p("export interface %s {", name)
	if tag != "" {
		m.p("  %s: %s;", propName(tag), jsString(tagValue))
	}
	for _, f := range fields {
		if !f.Required {
			m.doc("  ", absentDoc[f.Absent])
		}
		m.p("  %s;", m.fieldDecl(f, nil))
	}
	m.p("}")
	m.p("")
}

var absentDoc = map[string]string{
	"omit": "Optional; omitted from the JSON when absent (null decodes as absent).",
	"null": "Optional; null when absent, and encoded as null.",
}

// fieldDecl declares a property: `key: T`, `key: T | null` (x-absent null) or `key?: T`
// (x-absent omit); a JSON value already includes null.
func (m *model) fieldDecl(f wiregen.Field, subst map[string]string) string {
	t := m.tsTypeSubst(f.Type, subst)
	switch {
	case f.Required, f.Absent == "default":
		return propName(f.JSON) + ": " + t
	case f.Absent == "omit":
		return propName(f.JSON) + "?: " + t
	case f.Type.Kind == "value":
		return propName(f.JSON) + ": " + t
	}
	return propName(f.JSON) + ": " + t + " | null"
}

// readFunc is an expression of type (n: unknown, path: string) => T for ft's non-none form.
func (m *model) readFunc(ft wiregen.FieldType) string {
	if name, ok := emit.RuntimeDecoder(ft.Kind, ft.Int); ok {
		return emit.LowerFirst(name)
	}
	switch ft.Kind {
	case "ref":
		return "read" + ft.Ref
	case "enum":
		return fmt.Sprintf("(n: unknown, path: string) => decodeEnum(n, path, %s as const)", jsStrings(ft.Enum))
	case "array":
		return fmt.Sprintf("(n: unknown, path: string) => decodeList(n, path, %s)", m.readFunc(*ft.Items))
	case "map":
		return fmt.Sprintf("(n: unknown, path: string) => decodeMap(n, path, %s)", m.readFunc(*ft.Items))
	}
	panic("unknown field kind " + ft.Kind)
}

// writeExpr is an expression of type JsonValue encoding x, of ft's non-none form.
func (m *model) writeExpr(ft wiregen.FieldType, x string, depth int) string {
	switch ft.Kind {
	case "ref":
		return "write" + ft.Ref + "(" + x + ")"
	case "int":
		return "encodeInteger(" + x + ")"
	case "array":
		it := fmt.Sprintf("it%d", depth)
		return fmt.Sprintf("encodeList(%s, (%s) => %s)", x, it, m.writeExpr(*ft.Items, it, depth+1))
	case "map":
		it := fmt.Sprintf("it%d", depth)
		return fmt.Sprintf("encodeMap(%s, (%s) => %s)", x, it, m.writeExpr(*ft.Items, it, depth+1))
	}
	return x // strings, enums and JSON values are JSON already
}

// objectReader writes read<name>(n, path). tag/tagValue name the union tag member (checked by
// the union's reader, re-added to the result); ignoreUnknown skips the unknown-key check.
func (m *model) objectReader(name, expecting, tag, tagValue string, fields []wiregen.Field, ignoreUnknown bool, disjoint *wiregen.Disjoint) {
	m.p("function read%s(n: unknown, path: string): %s {", name, name)
	if len(fields) == 0 && ignoreUnknown {
		m.p("  // A unit variant: serde ignores its extra keys, only the shape is checked.")
		m.p("  readObject(n, path, %s);", jsString(expecting))
		m.p("  return { %s: %s };", propName(tag), jsString(tagValue))
		m.p("}")
		m.p("")
		return
	}
	m.p("  const o = readObject(n, path, %s);", jsString(expecting))
	if !ignoreUnknown {
		keys := []string{}
		for _, f := range fields {
			keys = append(keys, f.JSON)
		}
		// Unknown keys are reported before missing ones, as serde's deny_unknown_fields does
		// while it walks the members; the union tag is allowed but not listed, as serde lists a
		// variant's fields.
		m.p("  allowOnly(o, path, %s, %s);", jsString(tag), jsStrings(keys))
	}
	locals := map[string]string{}
	for i, f := range fields {
		local := fmt.Sprintf("f%d", i)
		locals[f.JSON] = local
		switch {
		case f.Required:
			m.p("  const %s = required(o, path, %s, %s);", local, jsString(f.JSON), m.readFunc(f.Type))
		case f.Absent == "default":
			m.p("  const %s = defaulted(o, path, %s, %s, () => %s);", local, jsString(f.JSON), m.readFunc(f.Type), zeroValue(f.Type))
		default:
			m.p("  const %s = optional(o, path, %s, %s);", local, jsString(f.JSON), m.readFunc(f.Type))
		}
	}
	if disjoint != nil {
		m.p("  const common = firstCommon(%s, %s);", locals[disjoint.Fields[0]], locals[disjoint.Fields[1]])
		m.p("  if (common !== undefined) {")
		m.p("    throw errorAt(path, formatTemplate(%s, common));", jsString(disjoint.Error))
		m.p("  }")
	}
	var members []string
	if tag != "" {
		members = append(members, propName(tag)+": "+jsString(tagValue))
	}
	for _, f := range fields {
		local := locals[f.JSON]
		switch {
		case f.Required, f.Absent == "default":
			members = append(members, propName(f.JSON)+": "+local)
		case f.Absent == "omit":
			members = append(members, fmt.Sprintf("...(%s === undefined ? {} : { %s: %s })", local, propName(f.JSON), local))
		default:
			members = append(members, propName(f.JSON)+": "+local+" ?? null")
		}
	}
	m.p("  return { %s };", strings.Join(members, ", "))
	m.p("}")
	m.p("")
}

// objectWriter writes write<name>(v): the tag first, then the fields in schema order. Inputs that
// are not objects pass through, so that validation reports them with the decoder's words.
func (m *model) objectWriter(name, tag, tagValue string, fields []wiregen.Field) {
	m.p("function write%s(v: %s): JsonValue {", name, name)
	m.p("  if (!isObject(v)) {")
	m.p("    return v as unknown as JsonValue;")
	m.p("  }")
	if tag != "" {
		m.p("  const out: JsonObject = { %s: %s };", propName(tag), jsString(tagValue))
	} else {
		m.p("  const out: JsonObject = {};")
	}
	for _, f := range fields {
		in, out := access("v", f.JSON), access("out", f.JSON)
		switch {
		case f.Required, f.Absent == "default":
			m.p("  %s = %s;", out, m.writeExpr(f.Type, in, 0))
		case f.Absent == "omit":
			m.p("  if (%s != null) {", in)
			m.p("    %s = %s;", out, m.writeExpr(f.Type, in, 0))
			m.p("  }")
		default:
			m.p("  %s = %s == null ? null : %s;", out, in, m.writeExpr(f.Type, in, 0))
		}
	}
	m.p("  return out;")
	m.p("}")
	m.p("")
}

func (m *model) semantic(s *wiregen.Schema) {
	if len(s.Semantic) == 0 {
		return
	}
	m.p("/** check%sSemantics applies the checks a Codex peer runs after decoding, before acting on v. */", s.Name)
	m.p("export function check%sSemantics(v: %s): void {", s.Name, s.Name)
	for _, c := range s.Semantic {
		f := access("v", c.Field)
		m.p("  if (%s != null && BigInt(%s) < %sn) {", f, f, c.Minimum)
		m.p("    throw new WireDecodeError(\"\", %s);", jsString(c.Error))
		m.p("  }")
	}
	m.p("}")
	m.p("")
}

func variantNames(s *wiregen.Schema) []string {
	names := make([]string, len(s.Variants))
	for i, v := range s.Variants {
		names[i] = v.Name
	}
	return names
}

func tagValues(s *wiregen.Schema) []string {
	tags := make([]string, len(s.Variants))
	for i, v := range s.Variants {
		tags[i] = v.TagValue
	}
	return tags
}

func (m *model) unionDecl(s *wiregen.Schema) {
	doc := s.Doc
	if s.Generic != "" {
		doc += " Instantiates " + s.Generic + "."
	}
	m.doc("", doc)
	m.p("export type %s = %s;", s.Name, strings.Join(variantNames(s), " | "))
	m.p("")
}

func (m *model) internalUnion(s *wiregen.Schema) {
	m.unionDecl(s)
	m.p("function read%s(n: unknown, path: string): %s {", s.Name, s.Name)
	m.p("  const tag = unionTag(n, path, %s, %s);", jsString(s.Tag), jsString("internally tagged enum "+s.Name))
	m.p("  switch (tag) {")
	for _, v := range s.Variants {
		m.p("    case %s:", jsString(v.TagValue))
		m.p("      return read%s(n, path);", v.Name)
	}
	m.p("  }")
	m.p("  throw unknownVariant(joinPath(path, %s), tag, %s);", jsString(s.Tag), jsStrings(tagValues(s)))
	m.p("}")
	m.p("")
	m.p("function write%s(v: %s): JsonValue {", s.Name, s.Name)
	m.p("  switch (isObject(v) ? %s : undefined) {", access("v", s.Tag))
	for _, v := range s.Variants {
		m.p("    case %s:", jsString(v.TagValue))
		m.p("      return write%s(v as %s);", v.Name, v.Name)
	}
	m.p("  }")
	m.p("  return v as unknown as JsonValue;")
	m.p("}")
	m.p("")
	for _, v := range s.Variants {
		m.doc("", fmt.Sprintf("%s is the %s variant %q.", v.Name, s.Name, v.TagValue))
		m.interfaceDecl(v.Name, s.Tag, v.TagValue, v.Fields)
		m.objectReader(v.Name, "struct variant "+s.Name+"::"+v.Name, s.Tag, v.TagValue, v.Fields, v.IgnoreUnknown, v.Disjoint)
		m.objectWriter(v.Name, s.Tag, v.TagValue, v.Fields)
	}
}

func (m *model) externalUnion(s *wiregen.Schema) {
	m.unionDecl(s)
	m.p("function read%s(n: unknown, path: string): %s {", s.Name, s.Name)
	m.p("  const [key, value] = externalVariant(n, path, %s);", jsString(s.Name))
	m.p("  switch (key) {")
	for _, v := range s.Variants {
		inner := bodyName(v)
		if v.Wrapped != nil {
			inner = v.Wrapped.Ref
		}
		m.p("    case %s:", jsString(v.TagValue))
		m.p("      return { %s: read%s(value, joinPath(path, key)) };", propName(v.TagValue), inner)
	}
	m.p("  }")
	m.p("  throw unknownVariant(path, key, %s);", jsStrings(tagValues(s)))
	m.p("}")
	m.p("")
	m.p("function write%s(v: %s): JsonValue {", s.Name, s.Name)
	m.p("  switch (externalKey(v, %s)) {", jsStrings(tagValues(s)))
	for _, v := range s.Variants {
		inner := bodyName(v)
		if v.Wrapped != nil {
			inner = v.Wrapped.Ref
		}
		m.p("    case %s:", jsString(v.TagValue))
		m.p("      return { %s: write%s(%s) };", propName(v.TagValue), inner, access("(v as "+v.Name+")", v.TagValue))
	}
	m.p("  }")
	m.p("  return v as unknown as JsonValue;")
	m.p("}")
	m.p("")
	for _, v := range s.Variants {
		if v.Wrapped != nil {
			m.doc("", fmt.Sprintf("%s is the %s variant {%q: %s}.", v.Name, s.Name, v.TagValue, v.Wrapped.Ref))
			m.p("export interface %s {", v.Name)
			m.p("  %s: %s;", propName(v.TagValue), v.Wrapped.Ref)
			m.p("}")
			m.p("")
			continue
		}
		m.doc("", fmt.Sprintf("%s is the %s variant {%q: %s}.", v.Name, s.Name, v.TagValue, bodyName(v)))
		m.p("export interface %s {", v.Name)
		m.p("  %s: %s;", propName(v.TagValue), bodyName(v))
		m.p("}")
		m.p("")
		m.doc("", fmt.Sprintf("%s is the object inside the %s variant %q.", bodyName(v), s.Name, v.TagValue))
		m.interfaceDecl(bodyName(v), "", "", v.Fields)
		m.objectReader(bodyName(v), "struct variant "+s.Name+"::"+v.Name, "", "", v.Fields, false, v.Disjoint)
		m.objectWriter(bodyName(v), "", "", v.Fields)
	}
}

// publicCodec writes the exported decode/unmarshal/encode/marshal functions of a schema type.
func (m *model) publicCodec(s *wiregen.Schema) {
	n := s.Name
	m.p("/**")
	m.p(" * decode%s decodes a JSON value: parseJSON's output (exact), or JSON.parse's (which has", n)
	m.p(" * already turned 1.0 into 1 and rounded integers beyond 2^53). Throws WireDecodeError.")
	m.p(" */")
	m.p("export function decode%s(json: unknown): %s {", n, n)
	m.p("  return read%s(json, \"\");", n)
	m.p("}")
	m.p("")
	m.p("/** unmarshal%s parses and decodes one JSON document exactly as the Go codec does. */", n)
	m.p("export function unmarshal%s(text: string | Uint8Array): %s {", n, n)
	m.p("  return unmarshal(text, read%s);", n)
	m.p("}")
	m.p("")
	m.p("/** encode%s returns the canonical JSON value of v; throws WireEncodeError if it would not decode. */", n)
	m.p("export function encode%s(v: %s): JsonValue {", n, n)
	m.p("  return validated(%s, write%s(v), read%s);", jsString(n), n, n)
	m.p("}")
	m.p("")
	m.p("/** marshal%s returns the canonical JSON text of v (what a Codex peer sends). */", n)
	m.p("export function marshal%s(v: %s): string {", n, n)
	m.p("  return stringifyJSON(encode%s(v));", n)
	m.p("}")
	m.p("")
}

// registry writes wireCodecs: every schema type's codec by schema title.
func (m *model) registry() {
	m.p("/** WireCodec bundles the codec functions of one wire type. */")
	m.p("export interface WireCodec<T> {")
	m.p("  readonly name: string;")
	m.p("  decode(json: unknown): T;")
	m.p("  unmarshal(text: string | Uint8Array): T;")
	m.p("  encode(v: T): JsonValue;")
	m.p("  marshal(v: T): string;")
	m.p("}")
	m.p("")
	m.p("/** wireCodecs maps every schema title to its codec. */")
	m.p("export const wireCodecs = {")
	for _, s := range m.schemas {
		n := s.Name
		m.p("  %s: { name: %s, decode: decode%s, unmarshal: unmarshal%s, encode: encode%s, marshal: marshal%s } as WireCodec<%s>,",
			propName(n), jsString(n), n, n, n, n, n)
	}
	m.p("} as const;")
	m.p("")
	m.p("/** WireTypeName is a schema title. */")
	m.p("export type WireTypeName = keyof typeof wireCodecs;")
}

// zeroValue is the TypeScript value an x-absent "default" field decodes to when absent (Rust's
// Default of the type).
func zeroValue(ft wiregen.FieldType) string {
	switch ft.Kind {
	case "bool":
		return "false"
	case "string":
		return `""`
	case "int":
		return "0"
	case "array":
		return "[]"
	case "map":
		return "({})"
	}
	panic("x-absent default on a property of kind " + ft.Kind)
}
