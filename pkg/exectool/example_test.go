package exectool_test

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/exectool"
)

func ExampleParseExecSource() {
	src, err := exectool.ParseExecSource("// @exec: {\"yield_time_ms\": 2500}\nconst r = await tools.search({q: 'go'});\ntext(r);")
	if err != nil {
		panic(err)
	}
	fmt.Println(*src.YieldTimeMs, src.MaxOutputTokens == nil)
	fmt.Println(src.Code)

	_, err = exectool.ParseExecSource("// @exec: {\"yield_time_ms\": \"soon\"}\ntext(1)")
	fmt.Println(err)
	_, err = exectool.ParseExecSource("// @exec: {\"yield_time_ms\": 10,}\ntext(1)")
	fmt.Println(err)
	// Output:
	// 2500 true
	// const r = await tools.search({q: 'go'});
	// text(r);
	// exec pragma fields `yield_time_ms` and `max_output_tokens` must be non-negative safe integers: invalid type: string "soon", expected u64
	// exec pragma must be valid JSON with supported fields `yield_time_ms` and `max_output_tokens`: trailing comma at line 1 column 22
}

func ExampleRenderJSONSchemaToTypeScript() {
	schema := json.RawMessage(`{
		"type": "object",
		"properties": {
			"city": {"type": "string", "description": "City name.\nUse English."},
			"days": {"type": "integer"},
			"units": {"$ref": "#/$defs/Units"}
		},
		"required": ["city"],
		"additionalProperties": false,
		"$defs": {"Units": {"enum": ["metric", "imperial"]}}
	}`)
	fmt.Println(exectool.RenderJSONSchemaToTypeScript(schema))
	fmt.Println(exectool.RenderJSONSchemaToTypeScript(json.RawMessage(`{"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "number"}}]}`)))
	// Output:
	// {
	//   // City name.
	//   // Use English.
	//   city: string;
	//   days?: number;
	//   units?: "metric" | "imperial";
	// }
	// string | Array<number>
}

func ExampleAugmentToolDefinition() {
	def := exectool.AugmentToolDefinition(codemode.ToolDefinition{
		Name:        "get-weather",
		ToolName:    codemode.ToolName{Name: "get-weather"},
		Description: "Look up the weather.",
		Kind:        codemode.ToolKindFunction,
		InputSchema: json.RawMessage(`{"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}`),
	})
	fmt.Println(def.Description)
	// Output:
	// Look up the weather.
	//
	// exec tool declaration:
	// ```ts
	// declare const tools: { get_weather(args: { city: string; }): Promise<unknown>; };
	// ```
}

func ExampleFormatRuntimeResponse() {
	boom := "Error: boom\n    at exec_main.mjs:2:7"
	items := exectool.FormatRuntimeResponse(codemode.RuntimeResponse{
		Kind:         codemode.Result,
		CellID:       "1",
		ContentItems: []codemode.ContentItem{codemode.InputText{Text: "partial output"}},
		ErrorText:    &boom,
	}, 1340*time.Millisecond, codemode.DefaultMaxOutputTokensPerExecCall)
	fmt.Print(exectool.RenderTerminal(items))

	items = exectool.FormatRuntimeResponse(codemode.RuntimeResponse{
		Kind:         codemode.Yielded,
		CellID:       "2",
		ContentItems: []codemode.ContentItem{codemode.InputText{Text: "line one\nline two\nline three"}},
	}, 10*time.Second, 4)
	fmt.Print(exectool.RenderTerminal(items))
	// Output:
	// Script failed
	// Wall time 1.3 seconds
	// Output:
	// partial output
	// Script error:
	// Error: boom
	//     at exec_main.mjs:2:7
	// Script running with cell ID 2
	// Wall time 10.0 seconds
	// Output:
	// Warning: truncated output (original token count: 7)
	// Total output lines: 3
	//
	// line one…3 tokens truncated…ne three
}
