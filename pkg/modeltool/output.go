package modeltool

import (
	"math"
	"strconv"
	"time"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// formatOptions tunes formatRuntimeResponseWith.
type formatOptions struct {
	// MaxOutputTokens is the output budget (the exec pragma's max_output_tokens or wait's
	// max_tokens); use ResolveMaxOutputTokens to apply Codex's default of 10 000.
	MaxOutputTokens int
	// HideOriginalImageDetail clears an "original" image detail, for models that cannot
	// request original-resolution images (Codex's sanitize_original_image_detail).
	HideOriginalImageDetail bool
}

// ResolveMaxOutputTokens returns the requested budget, or
// codemode.DefaultMaxOutputTokensPerExecCall when none was requested. Budgets beyond the
// int range saturate.
func ResolveMaxOutputTokens(requested *uint64) int {
	if requested == nil {
		return codemode.DefaultMaxOutputTokensPerExecCall
	}
	if *requested > uint64(maxInt) {
		return maxInt
	}
	return int(*requested)
}

// FormatRuntimeResponse turns a runtime response into the exec/wait tool output the model reads,
// composed by the rules of Codex core's handle_runtime_response, because a model trained against
// Codex reads that text (docs/protocol/javascript.md#tool-output): images without a detail get
// "high"; a failed Result appends "Script error:\n{error_text}"; the items are truncated to
// maxOutputTokens (see truncateContentItems); and a header item is prepended:
//
//	{status}
//	Wall time {seconds, one decimal} seconds
//	Output:
//
// where status is "Script running with cell ID {id}", "Script terminated", "Script completed"
// or "Script failed" (see scriptStatus).
func FormatRuntimeResponse(resp codemode.RuntimeResponse, wallTime time.Duration, maxOutputTokens int) []codemode.ContentItem {
	return formatRuntimeResponseWith(resp, wallTime, formatOptions{MaxOutputTokens: maxOutputTokens})
}

// formatRuntimeResponseWith is FormatRuntimeResponse with options.
func formatRuntimeResponseWith(resp codemode.RuntimeResponse, wallTime time.Duration, opts formatOptions) []codemode.ContentItem {
	items := make([]codemode.ContentItem, 0, len(resp.ContentItems)+2)
	for _, item := range resp.ContentItems {
		items = append(items, modelContentItem(item, opts.HideOriginalImageDetail))
	}
	if resp.Kind == codemode.Result && resp.ErrorText != nil {
		items = append(items, codemode.InputText{Text: "Script error:\n" + *resp.ErrorText})
	}
	items = truncateContentItems(items, max(opts.MaxOutputTokens, 0))
	header := codemode.InputText{Text: scriptStatus(resp) + "\nWall time " + formatWallTime(wallTime) +
		" seconds\nOutput:\n"}
	return append([]codemode.ContentItem{header}, items...)
}

// modelContentItem applies Codex's conversion of runtime items to model items: a missing
// image detail becomes the default (high), and "original" is cleared when hidden.
func modelContentItem(item codemode.ContentItem, hideOriginal bool) codemode.ContentItem {
	image, ok := item.(codemode.InputImage)
	if !ok {
		return item
	}
	if image.Detail == "" {
		image.Detail = codemode.DefaultImageDetail
	}
	if hideOriginal && image.Detail == codemode.ImageDetailOriginal {
		image.Detail = ""
	}
	return image
}

// scriptStatus is the first line of a tool output: "Script running with cell ID {id}" for
// Yielded, "Script terminated", and "Script completed" or "Script failed" for a Result.
func scriptStatus(resp codemode.RuntimeResponse) string {
	switch {
	case resp.Kind == codemode.Yielded:
		return "Script running with cell ID " + resp.CellID.String()
	case resp.Kind == codemode.Terminated:
		return "Script terminated"
	case resp.ErrorText == nil:
		return "Script completed"
	default:
		return "Script failed"
	}
}

// ResponseSucceeded is the success flag Codex attaches to the tool output: true for
// Yielded and Terminated, and for a Result without error text.
func ResponseSucceeded(resp codemode.RuntimeResponse) bool {
	return resp.Kind != codemode.Result || resp.ErrorText == nil
}

// formatWallTime reproduces Codex's `((secs_f32 * 10).round() / 10)` printed with one
// decimal, in float32 arithmetic like the original.
func formatWallTime(d time.Duration) string {
	seconds := float32(d/time.Second) + float32(d%time.Second)/float32(time.Second)
	// math.Round rounds half away from zero, like Rust's f32::round; float32→float64 is exact.
	rounded := float32(math.Round(float64(seconds*10))) / 10
	return strconv.FormatFloat(float64(rounded), 'f', 1, 32)
}
