package modeltool

import (
	"reflect"
	"strings"
	"testing"

	"github.com/codemodehq/codemode/pkg/codemode"
)

func texts(values ...string) []codemode.ContentItem {
	items := make([]codemode.ContentItem, len(values))
	for i, v := range values {
		items[i] = codemode.InputText{Text: v}
	}
	return items
}

func TestApproxTokenCount(t *testing.T) {
	for text, want := range map[string]int{"": 0, "a": 1, "abcd": 1, "abcde": 2, "😀": 1, "😀a": 2} {
		if got := approxTokenCount(text); got != want {
			t.Errorf("approxTokenCount(%q) = %d, want %d", text, got, want)
		}
	}
}

// Ported from Codex's output-truncation tests (token policies), with the "Warning:" line of
// the baseline's formatted_truncate_text.
func TestFormatTruncatedText(t *testing.T) {
	const long = "this is an example of a long output that should be truncated"
	cases := []struct {
		name      string
		text      string
		maxTokens int
		want      string
	}{
		{"tokens less than placeholder", "example output", 1,
			"Warning: truncated output (original token count: 4)\nTotal output lines: 1\n\nex…3 tokens truncated…ut"},
		{"under limit returns original", "example output", 10, "example output"},
		{"over limit", long, 5,
			"Warning: truncated output (original token count: 15)\nTotal output lines: 1\n\nthis is an…10 tokens truncated… truncated"},
		{"reports original line count", long + "\nalso some other line", 10,
			"Warning: truncated output (original token count: 21)\nTotal output lines: 2\n\nthis is an example o…11 tokens truncated…also some other line"},
		{"zero budget keeps only the marker", "abc", 0,
			"Warning: truncated output (original token count: 1)\nTotal output lines: 1\n\n…1 tokens truncated…"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := formatTruncatedText(tc.text, tc.maxTokens); got != tc.want {
				t.Fatalf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestTruncateMiddleKeepsCharacterBoundaries(t *testing.T) {
	s := "😀😀😀😀😀😀😀😀😀😀\nsecond line with text\n" // 62 bytes
	// 5 tokens = 20 bytes: 10 for the head (two 4-byte emoji), 10 for the tail.
	if got, want := truncateMiddle(s, 5), "😀😀…11 tokens truncated…with text\n"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	// A tail boundary inside a multi-byte character moves forward to the next character.
	if got, want := truncateMiddle("ab😀cd", 1), "ab…1 tokens truncated…cd"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// Codex: formatted_truncate_text_content_items_with_policy_merges_all_text_for_token_budget.
func TestTruncateContentItemsMergesAllTextForTokenBudget(t *testing.T) {
	got := truncateContentItems(texts("abcdefgh", "ijklmnop"), 2)
	want := texts("Warning: truncated output (original token count: 5)\nTotal output lines: 2\n\nabcd…3 tokens truncated…mnop")
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %#v", got)
	}
}

// Codex: formatted_truncate_text_content_items_with_policy_returns_original_under_limit.
func TestTruncateContentItemsReturnsOriginalUnderLimit(t *testing.T) {
	items := texts("alpha", "", "beta")
	if got := truncateContentItems(items, 8); !reflect.DeepEqual(got, items) {
		t.Fatalf("got %#v", got)
	}
	if got := truncateContentItems(nil, 0); len(got) != 0 {
		t.Fatalf("got %#v", got)
	}
}

// Codex: truncates_across_multiple_under_limit_texts_and_reports_omitted.
func TestTruncateContentItemsGreedyAcrossMixedItems(t *testing.T) {
	chunk := "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau upsilon phi chi psi omega.\n"
	limit := approxTokenCount(chunk) * 3
	image := codemode.InputImage{ImageURL: "img:mid", Detail: codemode.ImageDetailHigh}
	items := []codemode.ContentItem{
		codemode.InputText{Text: chunk}, codemode.InputText{Text: chunk}, image,
		codemode.InputText{Text: strings.Repeat(chunk, 10)}, codemode.InputText{Text: chunk}, codemode.InputText{Text: chunk},
	}
	got := truncateContentItems(items, limit)
	if len(got) != 5 {
		t.Fatalf("got %d items: %#v", len(got), got)
	}
	if got[0] != (codemode.InputText{Text: chunk}) || got[1] != (codemode.InputText{Text: chunk}) || got[2] != image {
		t.Fatalf("leading items changed: %#v", got[:3])
	}
	snippet := got[3].(codemode.InputText).Text
	wantSnippet := truncateMiddle(strings.Repeat(chunk, 10), limit-2*approxTokenCount(chunk))
	if snippet != wantSnippet || !strings.Contains(snippet, "tokens truncated") {
		t.Fatalf("snippet %q", snippet)
	}
	if got[4] != (codemode.InputText{Text: "[omitted 2 text items ...]"}) {
		t.Fatalf("summary %#v", got[4])
	}
}

func TestTruncateContentItemsAudioAndEmptyText(t *testing.T) {
	small := codemode.InputAudio{AudioURL: "data:audio/wav;base64,AAAA"} // 26 bytes → 7 tokens
	large := codemode.InputAudio{AudioURL: "data:audio/wav;base64," + strings.Repeat("A", 400)}
	image := codemode.InputImage{ImageURL: "data:image/png;base64,AA", Detail: codemode.ImageDetailLow}
	got := truncateContentItems([]codemode.ContentItem{
		codemode.InputText{Text: ""}, small, large, image, codemode.InputText{Text: "0123456789abcdef"},
	}, 10)
	want := []codemode.ContentItem{
		small, image, codemode.InputText{Text: "012345…1 tokens truncated…abcdef"},
		codemode.InputText{Text: "[omitted 1 audio items ...]"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %#v\nwant %#v", got, want)
	}
	// With no budget left, texts are counted as omitted; images still pass.
	got = truncateContentItems([]codemode.ContentItem{image, codemode.InputText{Text: "x"}, codemode.InputText{Text: "y"}}, 0)
	want = []codemode.ContentItem{image, codemode.InputText{Text: "[omitted 2 text items ...]"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %#v\nwant %#v", got, want)
	}
}
