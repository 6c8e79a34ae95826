package v1host

import (
	"fmt"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/v1/v1frame"
)

// A cell's output is bounded in raw bytes (jsruntime's 64 MiB), but a V1 frame carries it as
// JSON, where a control character takes six bytes: output within the cell's limit can still
// exceed the frame. Rather than lose the whole response, the host keeps the content items that
// fit and says what it dropped.

// frameReserve is what a response needs besides its content items: the envelope, the IDs, the
// error text of a failed script and the durations, with room to spare.
const frameReserve = 1 << 20

// fitFrame returns r with as many of its content items, in order, as fit one frame once encoded,
// and a last text item that says how many were dropped; r itself when everything fits.
func fitFrame(r codemode.RuntimeResponse) codemode.RuntimeResponse {
	budget := v1frame.MaxFrameBytes - frameReserve
	if r.ErrorText != nil {
		budget -= encodedLen(*r.ErrorText)
	}
	if fits(r.ContentItems, budget, worstLen) || fits(r.ContentItems, budget, itemLen) {
		return r
	}
	kept := make([]codemode.ContentItem, 0, len(r.ContentItems))
	used, dropped, droppedBytes := 0, 0, 0
	for _, item := range r.ContentItems {
		n := itemLen(item)
		if used+n > budget {
			dropped++
			droppedBytes += n
			continue
		}
		used += n
		kept = append(kept, item)
	}
	r.ContentItems = append(kept, codemode.InputText{Text: droppedNotice(dropped, len(r.ContentItems), droppedBytes)})
	return r
}

// fits reports whether items measured by size fit budget.
func fits(items []codemode.ContentItem, budget int, size func(codemode.ContentItem) int) bool {
	total := 0
	for _, item := range items {
		total += size(item)
	}
	return total <= budget
}

// droppedNotice tells the model what fitFrame left out.
func droppedNotice(dropped, of, bytes int) string {
	return fmt.Sprintf("[codemode dropped %d of %d output items (%.1f MiB once encoded): a response must fit one %d MiB frame; write less, or in several cells]",
		dropped, of, float64(bytes)/(1<<20), v1frame.MaxFrameBytes>>20)
}

// itemLen is an item's size in a frame, near enough for a budget with frameReserve to spare.
func itemLen(item codemode.ContentItem) int {
	const overhead = 64 // the item's object, type and detail (worstLen's too)
	switch it := item.(type) {
	case codemode.InputText:
		return overhead + encodedLen(it.Text)
	case codemode.InputImage:
		return overhead + encodedLen(it.ImageURL)
	case codemode.InputAudio:
		return overhead + encodedLen(it.AudioURL)
	}
	return overhead
}

// encodedLen is the length of s as a JSON string body written by the frames' encoder (serde_json's
// escaping: two bytes for a quote, a backslash and the five short escapes, six for the other
// control characters, the bytes themselves otherwise).
func encodedLen(s string) int {
	n := len(s)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t' || c == '\b' || c == '\f':
			n++
		case c < 0x20:
			n += 5
		}
	}
	return n
}

// worstLen bounds itemLen from above without reading the text: every byte escaped as \u00XX.
// Output far below a frame, the usual case, needs no exact count (a byte at a time, about a
// millisecond per MiB).
func worstLen(item codemode.ContentItem) int {
	const overhead = 64
	switch it := item.(type) {
	case codemode.InputText:
		return overhead + 6*len(it.Text)
	case codemode.InputImage:
		return overhead + 6*len(it.ImageURL)
	case codemode.InputAudio:
		return overhead + 6*len(it.AudioURL)
	}
	return overhead
}
