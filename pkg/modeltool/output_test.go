package modeltool

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/codemodehq/codemode/pkg/codemode"
)

func errorText(s string) *string { return &s }

func TestFormatRuntimeResponseStatusHeaders(t *testing.T) {
	cases := []struct {
		name    string
		resp    codemode.RuntimeResponse
		wall    time.Duration
		header  string
		success bool
	}{
		{"yielded", codemode.RuntimeResponse{Kind: codemode.Yielded, CellID: "7"}, 10*time.Second + 40*time.Millisecond,
			"Script running with cell ID 7\nWall time 10.0 seconds\nOutput:\n", true},
		{"terminated", codemode.RuntimeResponse{Kind: codemode.Terminated, CellID: "1"}, 1250 * time.Millisecond,
			"Script terminated\nWall time 1.3 seconds\nOutput:\n", true},
		{"completed", codemode.RuntimeResponse{Kind: codemode.Result, CellID: "1"}, 0,
			"Script completed\nWall time 0.0 seconds\nOutput:\n", true},
		{"failed", codemode.RuntimeResponse{Kind: codemode.Result, CellID: "1", ErrorText: errorText("boom")}, 49 * time.Millisecond,
			"Script failed\nWall time 0.0 seconds\nOutput:\n", false},
		{"half rounds away from zero", codemode.RuntimeResponse{Kind: codemode.Result, CellID: "1"}, 50 * time.Millisecond,
			"Script completed\nWall time 0.1 seconds\nOutput:\n", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			items := FormatRuntimeResponse(tc.resp, tc.wall, codemode.DefaultMaxOutputTokensPerExecCall)
			if got := items[0].(codemode.InputText).Text; got != tc.header {
				t.Errorf("header %q, want %q", got, tc.header)
			}
			if got := ResponseSucceeded(tc.resp); got != tc.success {
				t.Errorf("success %v, want %v", got, tc.success)
			}
		})
	}
}

func TestFormatRuntimeResponseItems(t *testing.T) {
	resp := codemode.RuntimeResponse{
		Kind: codemode.Result, CellID: "3", ErrorText: errorText("Error: bad\n    at exec_main.mjs:1:7"),
		ContentItems: []codemode.ContentItem{
			codemode.InputText{Text: "before"},
			codemode.InputImage{ImageURL: "data:image/png;base64,AAAA"},
			codemode.InputImage{ImageURL: "data:image/png;base64,BBBB", Detail: codemode.ImageDetailOriginal},
		},
	}
	got := FormatRuntimeResponse(resp, 2*time.Second, 100)
	want := []codemode.ContentItem{
		codemode.InputText{Text: "Script failed\nWall time 2.0 seconds\nOutput:\n"},
		codemode.InputText{Text: "before"},
		codemode.InputImage{ImageURL: "data:image/png;base64,AAAA", Detail: codemode.ImageDetailHigh},
		codemode.InputImage{ImageURL: "data:image/png;base64,BBBB", Detail: codemode.ImageDetailOriginal},
		codemode.InputText{Text: "Script error:\nError: bad\n    at exec_main.mjs:1:7"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %#v\nwant %#v", got, want)
	}
	hidden := formatRuntimeResponseWith(resp, 2*time.Second, formatOptions{MaxOutputTokens: 100, HideOriginalImageDetail: true})
	if img := hidden[3].(codemode.InputImage); img.Detail != "" {
		t.Errorf("original detail kept: %#v", img)
	}
}

func TestFormatRuntimeResponseTruncatesBeforeTheHeader(t *testing.T) {
	resp := codemode.RuntimeResponse{Kind: codemode.Result, CellID: "1", ErrorText: errorText(strings.Repeat("e", 40)),
		ContentItems: texts(strings.Repeat("a", 40))}
	got := FormatRuntimeResponse(resp, 0, 5)
	// The error text joins the texts before truncation: 40 + 1 + 14 + 40 = 95 bytes, 24 tokens.
	want := texts(
		"Script failed\nWall time 0.0 seconds\nOutput:\n",
		"Warning: truncated output (original token count: 24)\nTotal output lines: 3\n\n"+
			"aaaaaaaaaa…19 tokens truncated…eeeeeeeeee",
	)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %#v\nwant %#v", got, want)
	}
}

func TestFormatRuntimeResponseMissingCell(t *testing.T) {
	outcome := codemode.MissingCellOutcome("9")
	got := FormatRuntimeResponse(outcome.Response, 0, 10)
	want := texts("Script failed\nWall time 0.0 seconds\nOutput:\n", "Script error:\nexec cell 9 not found")
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %#v", got)
	}
}

func TestResolveMaxOutputTokens(t *testing.T) {
	if got := ResolveMaxOutputTokens(nil); got != 10_000 {
		t.Errorf("default %d", got)
	}
	if got := ResolveMaxOutputTokens(u64(0)); got != 0 {
		t.Errorf("zero %d", got)
	}
	if got := ResolveMaxOutputTokens(u64(^uint64(0))); got != maxInt {
		t.Errorf("saturation %d", got)
	}
}

func TestRenderTerminal(t *testing.T) {
	got := renderTerminal([]codemode.ContentItem{
		codemode.InputText{Text: "Script completed\nWall time 0.1 seconds\nOutput:\n"},
		codemode.InputText{Text: "hello"},
		codemode.InputImage{ImageURL: "data:image/png;base64,iVBORw0KGgo=", Detail: codemode.ImageDetailHigh},
		codemode.InputAudio{AudioURL: "data:audio/wav;base64,UklGRg=="},
		codemode.InputImage{ImageURL: "https://example.com/x.png"},
		codemode.InputText{Text: ""},
	})
	want := "Script completed\nWall time 0.1 seconds\nOutput:\nhello\n" +
		"[image image/png, 8 bytes, detail high]\n[audio audio/wav, 4 bytes]\n[image 25-byte URL]\n"
	if got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
}
