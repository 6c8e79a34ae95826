package modeltool

import (
	"io"
	"strconv"
	"strings"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// renderTerminal renders tool output items as plain text for a terminal (used by
// `codemode run`): texts verbatim, media as one-line placeholders such as
// "[image image/png, 68 bytes, detail high]" since a terminal cannot show them. Every item
// ends on a line of its own.
func renderTerminal(items []codemode.ContentItem) string {
	var b strings.Builder
	for _, item := range items {
		text := terminalText(item)
		b.WriteString(text)
		if text != "" && !strings.HasSuffix(text, "\n") {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// WriteTerminal writes renderTerminal(items) to w.
func WriteTerminal(w io.Writer, items []codemode.ContentItem) error {
	_, err := io.WriteString(w, renderTerminal(items))
	return err
}

func terminalText(item codemode.ContentItem) string {
	switch item := item.(type) {
	case codemode.InputText:
		return item.Text
	case codemode.InputImage:
		placeholder := "[image " + describeDataURL(item.ImageURL)
		if item.Detail != "" {
			placeholder += ", detail " + string(item.Detail)
		}
		return placeholder + "]"
	case codemode.InputAudio:
		return "[audio " + describeDataURL(item.AudioURL) + "]"
	default:
		return ""
	}
}

// describeDataURL summarizes a data: URL as "{mime}, {n} bytes" (decoded size for base64
// payloads), or reports the URL's length when it is not a data URL.
func describeDataURL(url string) string {
	meta, payload, ok := strings.Cut(url, ",")
	rest, isData := strings.CutPrefix(strings.ToLower(meta), "data:")
	if !ok || !isData {
		return strconv.Itoa(len(url)) + "-byte URL"
	}
	mime, params, _ := strings.Cut(rest, ";")
	if mime == "" {
		mime = "text/plain"
	}
	size := len(payload)
	for _, param := range strings.Split(params, ";") {
		if param == "base64" {
			size = base64DecodedLen(payload)
		}
	}
	return mime + ", " + strconv.Itoa(size) + " bytes"
}

func base64DecodedLen(payload string) int {
	payload = strings.TrimRight(payload, "=")
	return len(payload) * 3 / 4
}
