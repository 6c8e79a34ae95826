package modeltool

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// approxBytesPerToken is Codex's token estimate: one token per four bytes, rounded up.
const approxBytesPerToken = 4

// approxTokenCount estimates the tokens of a text as ceil(len/4) bytes, Codex's
// approx_token_count.
func approxTokenCount(text string) int { return approxTokensFromBytes(len(text)) }

func approxTokensFromBytes(n int) int {
	return saturatingAdd(n, approxBytesPerToken-1) / approxBytesPerToken
}

func approxBytesForTokens(tokens int) int { return saturatingMul(tokens, approxBytesPerToken) }

// truncateMiddle keeps the head and tail of text within maxTokens·4 bytes and replaces the
// middle with "…{n} tokens truncated…", where n estimates the tokens beyond the budget
// (ceil((len−budget)/4)). The budget is split in half, each half cut back to a UTF-8
// boundary. A zero budget leaves only the marker. This is Codex's
// truncate_middle_with_token_budget.
func truncateMiddle(text string, maxTokens int) string {
	if text == "" {
		return ""
	}
	maxBytes := approxBytesForTokens(maxTokens)
	if maxTokens > 0 && len(text) <= maxBytes {
		return text
	}
	if maxBytes == 0 {
		return truncationMarker(approxTokensFromBytes(len(text)))
	}
	leftBudget := maxBytes / 2
	rightBudget := maxBytes - leftBudget
	prefix, suffix := splitHeadTail(text, leftBudget, rightBudget)
	return prefix + truncationMarker(approxTokensFromBytes(len(text)-maxBytes)) + suffix
}

func truncationMarker(removedTokens int) string {
	return "…" + strconv.Itoa(removedTokens) + " tokens truncated…"
}

// splitHeadTail returns the longest prefix of whole characters within headBytes and the
// suffix starting at the first character boundary at or after len−tailBytes (never
// overlapping the prefix).
func splitHeadTail(text string, headBytes, tailBytes int) (string, string) {
	prefixEnd := 0
	for prefixEnd < len(text) {
		_, size := utf8.DecodeRuneInString(text[prefixEnd:])
		if prefixEnd+size > headBytes {
			break
		}
		prefixEnd += size
	}
	suffixStart := len(text)
	tailTarget := max(len(text)-tailBytes, 0)
	for i := range text {
		if i >= tailTarget {
			suffixStart = i
			break
		}
	}
	suffixStart = max(suffixStart, prefixEnd)
	return text[:prefixEnd], text[suffixStart:]
}

// formatTruncatedText returns text unchanged when it fits in maxTokens·4 bytes, and
// otherwise Codex's formatted_truncate_text:
//
//	Warning: truncated output (original token count: {n})
//	Total output lines: {lines}
//
//	{head}…{k} tokens truncated…{tail}
func formatTruncatedText(text string, maxTokens int) string {
	if len(text) <= approxBytesForTokens(maxTokens) {
		return text
	}
	return "Warning: truncated output (original token count: " + strconv.Itoa(approxTokenCount(text)) +
		")\nTotal output lines: " + strconv.Itoa(rustLineCount(text)) + "\n\n" + truncateMiddle(text, maxTokens)
}

// rustLineCount counts lines like Rust's str::lines: split on "\n", without a final empty
// line after a trailing newline.
func rustLineCount(text string) int {
	if text == "" {
		return 0
	}
	return strings.Count(strings.TrimSuffix(text, "\n"), "\n") + 1
}

// HostTruncatedOutput is a response's output for a session opened with outputTruncation "server"
// (Codex 0.169; docs/protocol/v1.md#output-truncation). Codex's client then shows the items alone,
// so they must be what Codex's own host sends: a failed Result's "Script error:\n{error_text}"
// appended to the items, and the items truncated to budget tokens (see truncateContentItems);
// without a budget they go out whole. The response's ErrorText is kept.
func HostTruncatedOutput(resp codemode.RuntimeResponse, budget *int) []codemode.ContentItem {
	items := resp.ContentItems
	if resp.Kind == codemode.Result && resp.ErrorText != nil {
		items = append(slices.Clip(items), codemode.InputText{Text: "Script error:\n" + *resp.ErrorText})
	}
	if budget == nil {
		return items
	}
	return truncateContentItems(items, max(*budget, 0))
}

// truncateContentItems applies Codex's code-mode output budget of maxTokens tokens. When
// every item is text, the texts are joined with "\n" and, if over budget, replaced by one
// formatTruncatedText item. Otherwise items are taken greedily in order: empty texts are
// dropped, images always kept, audio kept when its estimate fits the remaining budget, the
// first text that does not fit is middle-truncated to the remainder and later texts are
// omitted; "[omitted N text items ...]" and "[omitted N audio items ...]" notes are appended.
func truncateContentItems(items []codemode.ContentItem, maxTokens int) []codemode.ContentItem {
	if allText(items) {
		return truncateTextItems(items, maxTokens)
	}
	return truncateMixedItems(items, maxTokens)
}

func allText(items []codemode.ContentItem) bool {
	for _, item := range items {
		if _, ok := item.(codemode.InputText); !ok {
			return false
		}
	}
	return true
}

func truncateTextItems(items []codemode.ContentItem, maxTokens int) []codemode.ContentItem {
	if len(items) == 0 {
		return items
	}
	texts := make([]string, 0, len(items))
	for _, item := range items {
		texts = append(texts, item.(codemode.InputText).Text)
	}
	combined := strings.Join(texts, "\n")
	if len(combined) <= approxBytesForTokens(maxTokens) {
		return items
	}
	return []codemode.ContentItem{codemode.InputText{Text: formatTruncatedText(combined, maxTokens)}}
}

func truncateMixedItems(items []codemode.ContentItem, maxTokens int) []codemode.ContentItem {
	out := make([]codemode.ContentItem, 0, len(items))
	remaining := maxTokens
	omittedText, omittedAudio := 0, 0
	for _, item := range items {
		switch item := item.(type) {
		case codemode.InputText:
			if item.Text == "" {
				// Empty text carries no content but would still cost an API array slot.
				continue
			}
			if remaining == 0 {
				omittedText++
				continue
			}
			if cost := approxTokenCount(item.Text); cost <= remaining {
				out = append(out, item)
				remaining -= cost
				continue
			}
			if snippet := truncateMiddle(item.Text, remaining); snippet != "" {
				out = append(out, codemode.InputText{Text: snippet})
			} else {
				omittedText++
			}
			remaining = 0
		case codemode.InputAudio:
			if cost := estimateAudioTokens(item.AudioURL); cost <= remaining {
				out = append(out, item)
				remaining -= cost
			} else {
				omittedAudio++
			}
		default:
			out = append(out, item)
		}
	}
	if omittedText > 0 {
		out = append(out, codemode.InputText{Text: "[omitted " + strconv.Itoa(omittedText) + " text items ...]"})
	}
	if omittedAudio > 0 {
		out = append(out, codemode.InputText{Text: "[omitted " + strconv.Itoa(omittedAudio) + " audio items ...]"})
	}
	return out
}

// estimateAudioTokens estimates the tokens of an audio data URL. Codex builds with audio
// input decode the clip and charge 10 tokens per second; builds without it (and any clip
// Codex cannot decode) fall back to approxTokenCount of the URL, which is what this
// function does for every clip. Known divergence: decodable clips are usually charged
// fewer tokens by Codex than here.
func estimateAudioTokens(audioURL string) int { return approxTokenCount(audioURL) }
