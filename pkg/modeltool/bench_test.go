package modeltool

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// benchSchema is a realistic MCP-style input schema with refs, enums and descriptions.
const benchSchema = `{
	"type": "object",
	"properties": {
		"query": {"type": "string", "description": "Search query."},
		"filters": {"type": "array", "items": {"$ref": "#/$defs/Filter"}},
		"limit": {"type": "integer", "description": "Maximum results.\nDefaults to 10."},
		"sort": {"enum": ["relevance", "date", "name"]}
	},
	"required": ["query"],
	"additionalProperties": false,
	"$defs": {"Filter": {"type": "object", "properties": {
		"field": {"type": "string"}, "op": {"enum": ["eq", "ne", "lt", "gt"]},
		"value": {"anyOf": [{"type": "string"}, {"type": "number"}, {"type": "boolean"}]},
		"and": {"type": "array", "items": {"$ref": "#/$defs/Filter"}}
	}, "required": ["field", "op", "value"]}}
}`

func BenchmarkRenderJSONSchemaToTypeScript(b *testing.B) {
	schema := json.RawMessage(benchSchema)
	b.SetBytes(int64(len(schema)))
	for b.Loop() {
		renderJSONSchemaToTypeScript(schema)
	}
}

func BenchmarkParseExecSource(b *testing.B) {
	input := "// @exec: {\"yield_time_ms\": 2500, \"max_output_tokens\": 4000}\n" + strings.Repeat("text(await tools.search({query: 'x'}));\n", 50)
	b.SetBytes(int64(len(input)))
	for b.Loop() {
		if _, err := ParseExecSource(input); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFormatRuntimeResponseTruncating1MiB(b *testing.B) {
	resp := codemode.RuntimeResponse{Kind: codemode.Result, CellID: "1",
		ContentItems: texts(strings.Repeat("0123456789abcdef\n", 1<<16))}
	b.SetBytes(1 << 20)
	for b.Loop() {
		FormatRuntimeResponse(resp, time.Second, codemode.DefaultMaxOutputTokensPerExecCall)
	}
}
