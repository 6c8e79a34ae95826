package mcpserver

import (
	"encoding/base64"
	"net/url"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/modeltool"
)

// imageDetailMeta is the _meta key under which an image's detail travels, as in the MCP image
// blocks a cell's image() accepts (docs/protocol/javascript.md#image).
const imageDetailMeta = "codex/imageDetail"

// toolResult is what exec or wait answers for resp: Codex's formatted output (docs/protocol/javascript.md#tool-output: the
// status header, the items truncated to maxTokens, "Script error:" for a failed script), texts
// as text content, images and audio as MCP image and audio content. A failed script is an
// error result.
func toolResult(resp codemode.RuntimeResponse, wall time.Duration, maxTokens int) *mcp.CallToolResult {
	items := modeltool.FormatRuntimeResponse(resp, wall, maxTokens)
	content := make([]mcp.Content, 0, len(items))
	for _, item := range items {
		content = append(content, mcpContent(item))
	}
	return &mcp.CallToolResult{Content: content, IsError: !modeltool.ResponseSucceeded(resp)}
}

// errorResult is an error result with one text: what the model reads for a refused call.
func errorResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, IsError: true}
}

// mcpContent converts one output item. A media URL that is not a data: URL (the runtime admits
// none) becomes a text naming it.
func mcpContent(item codemode.ContentItem) mcp.Content {
	switch item := item.(type) {
	case codemode.InputText:
		return &mcp.TextContent{Text: item.Text}
	case codemode.InputImage:
		mime, data, ok := decodeDataURL(item.ImageURL, "image/png")
		if !ok {
			return &mcp.TextContent{Text: "[image " + item.ImageURL + "]"}
		}
		image := &mcp.ImageContent{Data: data, MIMEType: mime}
		if item.Detail != "" {
			image.Meta = mcp.Meta{imageDetailMeta: string(item.Detail)}
		}
		return image
	case codemode.InputAudio:
		mime, data, ok := decodeDataURL(item.AudioURL, "audio/wav")
		if !ok {
			return &mcp.TextContent{Text: "[audio " + item.AudioURL + "]"}
		}
		return &mcp.AudioContent{Data: data, MIMEType: mime}
	}
	return &mcp.TextContent{}
}

// decodeDataURL splits a data: URL (RFC 2397) into its media type (defaultMIME when it names
// none) and its decoded bytes, base64 or percent-encoded.
func decodeDataURL(u, defaultMIME string) (mime string, data []byte, ok bool) {
	meta, payload, found := strings.Cut(u, ",")
	if !found || len(meta) < 5 || !strings.EqualFold(meta[:5], "data:") {
		return "", nil, false
	}
	params := strings.Split(meta[5:], ";")
	mime = strings.TrimSpace(params[0])
	if mime == "" {
		mime = defaultMIME
	}
	isBase64 := false
	for _, p := range params[1:] {
		if strings.EqualFold(strings.TrimSpace(p), "base64") {
			isBase64 = true
		}
	}
	if !isBase64 {
		s, err := url.PathUnescape(payload)
		return mime, []byte(s), err == nil
	}
	payload = strings.TrimSpace(payload)
	if data, err := base64.StdEncoding.DecodeString(payload); err == nil {
		return mime, data, true
	}
	data, err := base64.RawStdEncoding.DecodeString(strings.TrimRight(payload, "="))
	return mime, data, err == nil
}
