package toolsources_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/toolsources"
	"github.com/codemodehq/codemode/pkg/toolsources/toolprovider"
)

// codemodeBin is the real `codemode` binary, built once by TestMain: `codemode mcp` is the MCP
// server and `codemode exec-server` the exec-server the manifests below name.
var codemodeBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "toolsources-bin")
	if err != nil {
		panic(err)
	}
	codemodeBin = filepath.Join(dir, "codemode")
	build := exec.Command("go", "build", "-o", codemodeBin, "../../services/codemode")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		panic("building codemode: " + err.Error())
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// writeManifest writes body as tools.json in a new directory and returns its path.
func writeManifest(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tools.json")
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestOpenServesEverySourceOfAManifest: one manifest naming a command tool, an MCP server and
// an exec-server gives three sets, in that order, whose tools all answer through one Delegate;
// closing stops the servers.
func TestOpenServesEverySourceOfAManifest(t *testing.T) {
	manifest := writeManifest(t, fmt.Sprintf(`{
		"tools": [{"name": "answer", "description": "Prints 42.", "command": ["sh", "-c", "cat >/dev/null; echo 42"]}],
		"mcp_servers": [{"name": "cm", "command": [%[1]q, "mcp"]}],
		"exec_server": {"command": [%[1]q, "exec-server", "--listen", "stdio", "--root", "."]}
	}`, codemodeBin))
	sets, closeSets, err := toolsources.Open(context.Background(), manifest, toolsources.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := closeSets(); err != nil {
			t.Errorf("closing the sources: %v", err)
		}
	}()
	if len(sets) != 3 {
		t.Fatalf("%d sets, want 3 (commands, MCP servers, exec-server)", len(sets))
	}
	d, err := toolprovider.NewDelegate(nil, sets...)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, def := range d.Definitions() {
		names = append(names, def.Name)
	}
	for _, want := range []string{"answer", "mcp__cm__exec", "mcp__cm__wait", "exec__run", "fs__read", "fs__list"} {
		if !strings.Contains(" "+strings.Join(names, " ")+" ", " "+want+" ") {
			t.Errorf("tools %v lack %s", names, want)
		}
	}
	for _, tc := range []struct {
		tool, input, want string
	}{
		{"answer", `{}`, `42`},
		{"exec__run", `{"argv": ["echo", "through the exec-server"]}`, `through the exec-server`},
		{"mcp__cm__exec", `{"code": "text(6 * 7)"}`, `42`},
	} {
		out, err := d.InvokeTool(context.Background(), call(t, d, tc.tool, tc.input))
		if err != nil || !strings.Contains(string(out), tc.want) {
			t.Errorf("%s(%s) = %s, %v; want a result with %q", tc.tool, tc.input, out, err, tc.want)
		}
	}
}

// call is a nested call of the delegate's tool named name.
func call(t *testing.T, d *toolprovider.Delegate, name, input string) codemode.NestedToolCall {
	t.Helper()
	for _, def := range d.Definitions() {
		if def.Name == name {
			return codemode.NestedToolCall{CellID: "1", RuntimeToolCallID: "tool-1", ToolName: def.ToolName, ToolKind: def.Kind, Input: json.RawMessage(input)}
		}
	}
	t.Fatalf("no tool %s", name)
	return codemode.NestedToolCall{}
}

// TestOpenTellsAFailedStartFromARefusedManifest: an exec-server (or MCP server) that does not
// start is ErrNotStarted, named at its place in the manifest, and the sources opened before it
// are stopped (goleak in TestMain); a manifest the schema refuses is a *toolprovider.ManifestError
// and not ErrNotStarted.
func TestOpenTellsAFailedStartFromARefusedManifest(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-program")
	for _, tc := range []struct {
		name, body, prefix string
	}{
		{"exec-server", fmt.Sprintf(`{"mcp_servers": [{"name": "cm", "command": [%q, "mcp"]}], "exec_server": {"command": [%q]}}`, codemodeBin, missing), "/exec_server: the exec-server did not start: "},
		{"MCP server", `{"mcp_servers": [{"name": "gone", "command": ["sh", "-c", "exit 3"]}]}`, "/mcp_servers/0: MCP server `gone` did not start: "},
	} {
		manifest := writeManifest(t, tc.body)
		_, _, err := toolsources.Open(context.Background(), manifest, toolsources.Options{})
		if !errors.Is(err, toolsources.ErrNotStarted) || !strings.HasPrefix(err.Error(), manifest+": "+tc.prefix) {
			t.Errorf("%s: %v; want ErrNotStarted with %q", tc.name, err, manifest+": "+tc.prefix)
		}
	}
	manifest := writeManifest(t, `{"exec_server": {"url": "http://127.0.0.1:1"}}`)
	_, _, err := toolsources.Open(context.Background(), manifest, toolsources.Options{})
	var refused *toolprovider.ManifestError
	if !errors.As(err, &refused) || errors.Is(err, toolsources.ErrNotStarted) {
		t.Errorf("a url that is not ws://: %v; want a *toolprovider.ManifestError", err)
	}
}
