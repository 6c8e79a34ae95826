package jsruntime

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// Bounds on data crossing into JavaScript. QuickJS parses JSON recursively on a 64 KiB C stack, so
// a deeply nested tool result could corrupt the runtime; it is rejected before it gets there.
const (
	// DefaultMaxToolResultBytes is the largest tool result delivered to a cell by default.
	DefaultMaxToolResultBytes = 64 << 20
	// MaxToolResultDepth is the deepest nesting of arrays and objects in a delivered tool result.
	MaxToolResultDepth = 256
)

// execCannotInvokeItself is Codex's error for a nested call of the exec tool.
const execCannotInvokeItself = "exec cannot invoke itself"

// toolResult is the outcome of one nested tool call, ready to settle its JS promise.
type toolResult struct {
	id     int64
	value  json.RawMessage // set when ok
	errMsg string          // the rejection string otherwise
	ok     bool
}

// checkToolResult applies the size and depth bounds; it returns the reason a result is refused.
func checkToolResult(v json.RawMessage, maxBytes int) string {
	if len(v) > maxBytes {
		return fmt.Sprintf("tool result of %d bytes exceeds the limit of %d bytes", len(v), maxBytes)
	}
	depth, maxDepth := 0, 0
	inString, escaped := false, false
	for _, b := range v {
		if inString {
			switch {
			case escaped:
				escaped = false
			case b == '\\':
				escaped = true
			case b == '"':
				inString = false
			}
			continue
		}
		switch b {
		case '"':
			inString = true
		case '[', '{':
			depth++
			if depth > maxDepth {
				maxDepth = depth
			}
			if maxDepth > MaxToolResultDepth {
				return fmt.Sprintf("tool result is nested deeper than %d levels", MaxToolResultDepth)
			}
		case ']', '}':
			depth--
		}
	}
	if !json.Valid(v) {
		return "tool result is not valid JSON"
	}
	return ""
}

// encodeBatch renders results as the JSON the prelude's deliver expects.
func encodeBatch(results []toolResult) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, r := range results {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('[')
		b.WriteString(strconv.FormatInt(r.id, 10))
		if r.ok {
			b.WriteString(",1,")
			b.Write(r.value)
		} else {
			msg, _ := json.Marshal(r.errMsg)
			b.WriteString(",0,")
			b.Write(msg)
		}
		b.WriteByte(']')
	}
	b.WriteByte(']')
	return b.String()
}

// schemaCache compiles each distinct input schema once per provider.
//
// Input validation is codemode's addition to Codex: a call whose input does not match its tool's
// input_schema is rejected in JavaScript with the validation errors, and the delegate never sees
// it. A schema that does not compile is not enforced.
type schemaCache struct {
	mu      sync.Mutex
	schemas map[string]*jsonschema.Schema // nil value: the schema did not compile
}

func newSchemaCache() *schemaCache {
	return &schemaCache{schemas: map[string]*jsonschema.Schema{}}
}

func (c *schemaCache) get(raw json.RawMessage) *jsonschema.Schema {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return nil
	}
	key := string(raw)
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.schemas[key]; ok {
		return s
	}
	s := compileSchema(raw)
	if len(c.schemas) > 4096 {
		clear(c.schemas)
	}
	c.schemas[key] = s
	return s
}

func compileSchema(raw json.RawMessage) *jsonschema.Schema {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil
	}
	const loc = "urn:codemode:tool-input-schema"
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(jsonschema.SchemeURLLoader{}) // no file or network access from $ref
	if err := c.AddResource(loc, doc); err != nil {
		return nil
	}
	s, err := c.Compile(loc)
	if err != nil {
		return nil
	}
	return s
}

// validateInput checks input (nil = absent, validated as {} for function tools) against schema and
// returns the rejection message, or "".
func validateInput(def codemode.ToolDefinition, schema *jsonschema.Schema, input json.RawMessage) string {
	if schema == nil {
		return ""
	}
	if input == nil {
		if def.Kind != codemode.ToolKindFunction {
			return ""
		}
		input = json.RawMessage("{}")
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(input))
	if err != nil {
		return fmt.Sprintf("tool `%s` input is not valid JSON: %v", def.ToolName, err)
	}
	if err := schema.Validate(v); err != nil {
		return fmt.Sprintf("tool `%s` input does not match its input_schema: %s", def.ToolName, validationText(err))
	}
	return ""
}

var englishPrinter = message.NewPrinter(language.English)

// validationText flattens a validation error to its leaf messages.
func validationText(err error) string {
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return err.Error()
	}
	var leaves []string
	var walk func(*jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			loc := "/" + strings.Join(e.InstanceLocation, "/")
			leaves = append(leaves, fmt.Sprintf("at '%s': %s", loc, e.ErrorKind.LocalizedString(englishPrinter)))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	return strings.Join(leaves, "; ")
}
