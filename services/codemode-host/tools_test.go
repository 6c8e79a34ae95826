package main_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/codemode/codemodetest"
	"github.com/codemodehq/codemode/pkg/grpc/grpcclient"
	"github.com/codemodehq/codemode/pkg/v1/v1client"
)

// hostManifest writes a tool manifest whose one tool, `host_echo`, runs `cat` on the host's
// machine: it prints the call's JSON input, which is the tool's result.
func hostManifest(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tools.json")
	manifest := `{"tools": [{"name": "host_echo", "description": "Returns its input.", "command": ["cat"],
  "input_schema": {"type": "object", "properties": {"word": {"type": "string"}}, "required": ["word"]}}]}`
	if err := os.WriteFile(path, []byte(manifest), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestManifestToolsRunOnTheHost starts codemode-host with --tools and runs, over V1 and gRPC, a
// cell that calls the host's manifest tool and a tool of the client in one Promise.all: the
// host's call runs the manifest's command on the host, the client's reaches the client's
// delegate, and a client tool named like a manifest tool is refused with the host's text.
func TestManifestToolsRunOnTheHost(t *testing.T) {
	h := startHost(t, nil, "--listen", "ws://127.0.0.1:0", "--listen", "grpc://127.0.0.1:0", "--tools", hostManifest(t))
	addrs := h.addresses(2)
	providers := map[string]func(t *testing.T) codemode.SessionProvider{
		"WebSocket": func(t *testing.T) codemode.SessionProvider {
			p := v1client.NewWebSocketProvider(addrs[0], false, v1client.Options{})
			t.Cleanup(func() { _ = p.Close() })
			return p
		},
		"gRPC": func(t *testing.T) codemode.SessionProvider {
			p, err := grpcclient.New(addrs[1], grpcclient.Options{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = p.Close() })
			return p
		},
	}
	for name, provider := range providers {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
			defer cancel()
			rec := codemodetest.NewRecorder()
			rec.Handle("client_echo", func(_ context.Context, call codemode.NestedToolCall) (json.RawMessage, error) {
				return call.Input, nil
			})
			s, err := provider(t).CreateSession(ctx, rec, codemode.SessionCellExecutionLimits{})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Shutdown(ctx)
			client := codemode.ToolDefinition{Name: "client_echo", ToolName: codemode.ToolName{Name: "client_echo"}, Kind: codemode.ToolKindFunction}
			src := `const [h, c] = await Promise.all([tools.host_echo({word: "host"}), tools.client_echo({word: "client"})]);
text(h.word + " " + c.word);`
			c, err := s.Execute(ctx, codemode.ExecuteRequest{ToolCallID: "call-1", Source: src, EnabledTools: []codemode.ToolDefinition{client}})
			if err != nil {
				t.Fatal(err)
			}
			r, err := c.InitialResponse(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if text, ok := onlyText(r); r.ErrorText != nil || !ok || text != "host client" {
				t.Fatalf("cell: %+v (error %v)", r.ContentItems, r.ErrorText)
			}
			calls := rec.ToolCalls()
			if len(calls) != 1 || calls[0].Call.ToolName.Name != "client_echo" {
				t.Fatalf("the client's delegate saw %+v, want only client_echo", calls)
			}
			shadow := codemode.ToolDefinition{Name: "host_echo", ToolName: codemode.ToolName{Name: "host_echo"}, Kind: codemode.ToolKindFunction}
			_, err = s.Execute(ctx, codemode.ExecuteRequest{ToolCallID: "call-2", Source: `text(1)`, EnabledTools: []codemode.ToolDefinition{shadow}})
			want := "code-mode host: tool `host_echo` is both the client's and the host's tool manifest's; rename one of them"
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("a client tool named like the host's: %v, want an error containing %q", err, want)
			}
		})
	}
}

// onlyText returns the text of a response whose output is exactly one text item.
func onlyText(r codemode.RuntimeResponse) (string, bool) {
	if len(r.ContentItems) != 1 {
		return "", false
	}
	t, ok := r.ContentItems[0].(codemode.InputText)
	return t.Text, ok
}

// TestManifestMCPServersServeTheHostsCells starts codemode-host with examples/mcp.json, whose MCP
// server the host starts before it listens: a cell of a gRPC client calls the server's tools
// (tools.mcp__notes__…) as it calls any host tool, and gets their CallToolResults.
func TestManifestMCPServersServeTheHostsCells(t *testing.T) {
	manifest, err := filepath.Abs("../../examples/mcp.json")
	if err != nil {
		t.Fatal(err)
	}
	h := startHost(t, nil, "--listen", "grpc://127.0.0.1:0", "--tools", manifest)
	p, err := grpcclient.New(h.addresses(1)[0], grpcclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	s, err := p.CreateSession(ctx, codemodetest.NewRecorder(), codemode.SessionCellExecutionLimits{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown(ctx)
	src := `const listed = await tools.mcp__notes__list_notes();
const note = await tools.mcp__notes__read_note({ name: listed.structuredContent.notes[0].name });
text(listed.structuredContent.notes.map((n) => n.name).join(" ") + " / " + note.content[0].text.split("\n")[0]);`
	c, err := s.Execute(ctx, codemode.ExecuteRequest{ToolCallID: "call-1", Source: src})
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.InitialResponse(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if text, ok := onlyText(r); r.ErrorText != nil || !ok || text != "changelog.md notes.txt / # Changelog" {
		t.Fatalf("cell: %+v (error %v)", r.ContentItems, r.ErrorText)
	}
}
