// Command mcp_notes is an example MCP server for codemode's tool manifest (examples/mcp.json):
// a stdio server, built on the official MCP Go SDK, over the text files of its working
// directory's data/ folder. Its three tools become tools.mcp__notes__<tool> in a cell:
//
//   - list_notes: the notes with their line and word counts, as structured content
//     ({"notes": [{"name": "notes.txt", "lines": 3, "words": 41}, …]});
//   - read_note {"name": "notes.txt"}: the note's text as a text block; a missing note is an
//     isError result, which rejects the cell's promise with its text;
//   - bar_chart {"values": [3, 1, 2]}: a PNG bar chart of the values, as an MCP image block
//     that a cell passes to image().
package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"log"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type (
	note struct {
		Name  string `json:"name"`
		Lines int    `json:"lines"`
		Words int    `json:"words"`
	}
	listOut struct {
		Notes []note `json:"notes"`
	}
	readIn struct {
		Name string `json:"name" jsonschema:"the note's file name, e.g. notes.txt"`
	}
	chartIn struct {
		Values []float64 `json:"values" jsonschema:"the bars' heights (non-negative), left to right"`
	}
)

const dataDir = "data"

func main() {
	server := mcp.NewServer(&mcp.Implementation{Name: "notes", Version: "v1"}, nil)
	mcp.AddTool(server, &mcp.Tool{
		Name:        "list_notes",
		Description: "Lists the text notes (.txt and .md files of the data folder) with their line and word counts.",
	}, listNotes)
	mcp.AddTool(server, &mcp.Tool{
		Name:        "read_note",
		Description: "Returns the text of one note.",
	}, readNote)
	mcp.AddTool(server, &mcp.Tool{
		Name:        "bar_chart",
		Description: "Draws a PNG bar chart of the values and returns it as an image block.",
	}, barChart)
	if err := server.Run(context.Background(), &mcp.StdioTransport{}); err != nil && !errors.Is(err, mcp.ErrConnectionClosed) {
		log.Fatal(err)
	}
}

func listNotes(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, listOut, error) {
	entries, err := os.ReadDir(dataDir)
	if err != nil {
		return nil, listOut{}, err
	}
	out := listOut{Notes: []note{}}
	for _, e := range entries {
		if ext := filepath.Ext(e.Name()); e.IsDir() || (ext != ".txt" && ext != ".md") {
			continue
		}
		text, err := os.ReadFile(filepath.Join(dataDir, e.Name()))
		if err != nil {
			return nil, listOut{}, err
		}
		out.Notes = append(out.Notes, note{Name: e.Name(), Lines: strings.Count(string(text), "\n"), Words: len(strings.Fields(string(text)))})
	}
	return nil, out, nil
}

func readNote(_ context.Context, _ *mcp.CallToolRequest, in readIn) (*mcp.CallToolResult, any, error) {
	if in.Name != filepath.Base(in.Name) || in.Name == "" {
		return nil, nil, fmt.Errorf("%q is not a note's name (a file name such as notes.txt)", in.Name)
	}
	text, err := os.ReadFile(filepath.Join(dataDir, in.Name))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, fmt.Errorf("there is no note named %q", in.Name)
	}
	if err != nil {
		return nil, nil, err
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(text)}}}, nil, nil
}

func barChart(_ context.Context, _ *mcp.CallToolRequest, in chartIn) (*mcp.CallToolResult, any, error) {
	if len(in.Values) == 0 || len(in.Values) > 100 {
		return nil, nil, errors.New("values must have 1 to 100 numbers")
	}
	const barWidth, gap, height = 16, 4, 64
	top := slices.Max(in.Values)
	img := image.NewRGBA(image.Rect(0, 0, len(in.Values)*(barWidth+gap)+gap, height))
	for i := range img.Pix {
		img.Pix[i] = 0xff // white
	}
	bar := color.RGBA{R: 0x2b, G: 0x6c, B: 0xb0, A: 0xff}
	for i, v := range in.Values {
		if v < 0 {
			return nil, nil, fmt.Errorf("value %d is negative", i)
		}
		h := 0
		if top > 0 {
			h = int(v / top * (height - 1))
		}
		for x := gap + i*(barWidth+gap); x < gap+i*(barWidth+gap)+barWidth; x++ {
			for y := height - h; y < height; y++ {
				img.Set(x, y, bar)
			}
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return nil, nil, err
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.ImageContent{Data: buf.Bytes(), MIMEType: "image/png"}}}, nil, nil
}
