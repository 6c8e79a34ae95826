package modeltool_test

import (
	"fmt"
	"os"
	"time"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/modeltool"
)

func ExampleParseExecSource() {
	src, err := modeltool.ParseExecSource("// @exec: {\"yield_time_ms\": 2500}\nconst r = await tools.search({q: 'go'});\ntext(r);")
	if err != nil {
		panic(err)
	}
	fmt.Println(*src.YieldTimeMs, src.MaxOutputTokens == nil)
	fmt.Println(src.Code)

	_, err = modeltool.ParseExecSource("// @exec: {\"yield_time_ms\": \"soon\"}\ntext(1)")
	fmt.Println(err)
	_, err = modeltool.ParseExecSource("// @exec: {\"yield_time_ms\": 10,}\ntext(1)")
	fmt.Println(err)
	// Output:
	// 2500 true
	// const r = await tools.search({q: 'go'});
	// text(r);
	// exec pragma fields `yield_time_ms` and `max_output_tokens` must be non-negative safe integers: invalid type: string "soon", expected u64
	// exec pragma must be valid JSON with supported fields `yield_time_ms` and `max_output_tokens`: trailing comma at line 1 column 22
}

func ExampleFormatRuntimeResponse() {
	boom := "Error: boom\n    at exec_main.mjs:2:7"
	items := modeltool.FormatRuntimeResponse(codemode.RuntimeResponse{
		Kind:         codemode.Result,
		CellID:       "1",
		ContentItems: []codemode.ContentItem{codemode.InputText{Text: "partial output"}},
		ErrorText:    &boom,
	}, 1340*time.Millisecond, codemode.DefaultMaxOutputTokensPerExecCall)
	_ = modeltool.WriteTerminal(os.Stdout, items)

	items = modeltool.FormatRuntimeResponse(codemode.RuntimeResponse{
		Kind:         codemode.Yielded,
		CellID:       "2",
		ContentItems: []codemode.ContentItem{codemode.InputText{Text: "line one\nline two\nline three"}},
	}, 10*time.Second, 4)
	_ = modeltool.WriteTerminal(os.Stdout, items)
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
