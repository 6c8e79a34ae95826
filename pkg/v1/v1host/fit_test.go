package v1host

import (
	"strings"
	"testing"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/serdejson"
	"github.com/codemodehq/codemode/pkg/v1/v1frame"
)

// TestEncodedLenIsSerdeJSONs: the budget's measure is the frames' own escaping.
func TestEncodedLenIsSerdeJSONs(t *testing.T) {
	for _, s := range []string{"", "plain", "\"quoted\" \\ back", "\n\r\t\b\f", "\x00\x01\x1f", "é ü 中 😀", "\x7f", strings.Repeat("\u0001", 100)} {
		if got, want := encodedLen(s), len(serdejson.Quote(s))-2; got != want {
			t.Errorf("encodedLen(%q) = %d, want %d", s, got, want)
		}
		for _, item := range []codemode.ContentItem{codemode.InputText{Text: s}, codemode.InputImage{ImageURL: s}, codemode.InputAudio{AudioURL: s}} {
			if worstLen(item) < itemLen(item) {
				t.Errorf("worstLen(%#v) = %d, below itemLen %d: fitFrame would pass what does not fit", item, worstLen(item), itemLen(item))
			}
		}
	}
}

// TestFitFrameKeepsWhatFits: a response whose items fit is left alone; one that does not keeps
// the items that fit, in order (a later small one too), and ends with a text saying what was
// dropped.
func TestFitFrameKeepsWhatFits(t *testing.T) {
	small := codemode.RuntimeResponse{Kind: codemode.Result, ContentItems: []codemode.ContentItem{codemode.InputText{Text: "a"}}}
	if got := fitFrame(small); len(got.ContentItems) != 1 {
		t.Fatalf("a small response changed: %+v", got)
	}
	huge := strings.Repeat("\u0001", 12<<20) // 12 MiB raw, 72 MiB escaped
	r := codemode.RuntimeResponse{Kind: codemode.Result, ContentItems: []codemode.ContentItem{
		codemode.InputText{Text: "important"}, codemode.InputText{Text: huge}, codemode.InputText{Text: "after"},
	}}
	got := fitFrame(r)
	var texts []string
	for _, item := range got.ContentItems {
		texts = append(texts, item.(codemode.InputText).Text)
	}
	want := []string{"important", "after", "[codemode dropped 1 of 3 output items (72.0 MiB once encoded): a response must fit one 64 MiB frame; write less, or in several cells]"}
	if strings.Join(texts, "|") != strings.Join(want, "|") {
		t.Fatalf("items %q, want %q", texts, want)
	}
	total := 0
	for _, item := range got.ContentItems {
		total += itemLen(item)
	}
	if total > v1frame.MaxFrameBytes-frameReserve {
		t.Fatalf("kept %d bytes, above the budget", total)
	}
}

// TestAnOversizedResultKeepsWhatFits: a cell whose output is within its 64 MiB limit but whose
// frame would not be (12 MiB of a control character, six bytes each once escaped) gets its
// result with the items that fit and a note of what was dropped, and the cell ends normally.
// Before, the whole result was replaced by "initial response exceeds the IPC frame limit".
func TestAnOversizedResultKeepsWhatFits(t *testing.T) {
	c := serveRaw(t, New(newProvider(t))).ready()
	c.send(open(1, "s"))
	c.expect(ready(1, "s"))
	c.send(execute(2, "s", `text("important"); text("\u0001".repeat(12 << 20)); text("after");`))
	var initial string
	for initial == "" {
		if got := c.recv(); typeOf(got) == "execute/initialResponse" {
			initial = got
		}
	}
	for _, want := range []string{`"important"`, `"after"`, `[codemode dropped 1 of 3 output items (72.0 MiB once encoded)`} {
		if !strings.Contains(initial, want) {
			t.Fatalf("initial response lacks %s: %.300s", want, initial)
		}
	}
	if strings.Contains(initial, "exceeds the IPC frame limit") || len(initial) > 1<<20 {
		t.Fatalf("initial response: %.300s (%d bytes)", initial, len(initial))
	}
}
