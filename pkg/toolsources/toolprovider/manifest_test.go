package toolprovider

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/codemodehq/codemode/pkg/codemode"
	schemas "github.com/codemodehq/codemode/schemas/manifest"
)

func TestManifestSchemaCompiles(t *testing.T) {
	if _, err := manifestSchema(); err != nil {
		t.Fatal(err)
	}
}

// tool is a valid manifest entry as JSON text with fields replaced or added by overrides
// ("key": raw JSON, or "-key" to delete).
func tool(overrides ...string) string {
	fields := map[string]string{
		"name":        `"t"`,
		"description": `"a tool"`,
		"command":     `["true"]`,
	}
	order := []string{"name", "description", "command"}
	for i := 0; i < len(overrides); i += 2 {
		key, value := overrides[i], overrides[i+1]
		if strings.HasPrefix(key, "-") {
			delete(fields, key[1:])
			continue
		}
		if _, ok := fields[key]; !ok {
			order = append(order, key)
		}
		fields[key] = value
	}
	var parts []string
	for _, k := range order {
		if v, ok := fields[k]; ok {
			parts = append(parts, `"`+k+`": `+v)
		}
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func manifestOf(tools ...string) string {
	return `{"tools": [` + strings.Join(tools, ", ") + `]}`
}

// Every refusal names the file and the place in it, and says what is expected there.
func TestParseRefusesABadManifestNamingTheField(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "plain-file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, manifest, want string
	}{
		{"not a duration", manifestOf(tool(), tool("name", `"u"`), tool("name", `"v"`, "timeout", `"30"`)),
			`tools.json: /tools/2/timeout: must be a duration like "30s", not "30"`},
		{"a zero duration", manifestOf(tool("timeout", `"0s"`)),
			`tools.json: /tools/0/timeout: must be a duration like "30s", not "0s"`},
		{"no tools", `{}`,
			`tools.json: the manifest names no tools: give "tools", "mcp_servers", "exec_server" or several`},
		{"an MCP server with neither command nor url", `{"mcp_servers": [{"name": "s"}]}`,
			`tools.json: /mcp_servers/0: a server needs a "command" (a stdio server) or a "url" (a streamable HTTP server)`},
		{"an MCP server with both", `{"mcp_servers": [{"name": "s", "command": ["true"], "url": "http://127.0.0.1:1/mcp"}]}`,
			`tools.json: /mcp_servers/0/url: a server has a command (stdio) or a url (streamable HTTP), not both`},
		{"an MCP server url that is no http URL", `{"mcp_servers": [{"name": "s", "url": "ftp://x/mcp"}]}`,
			`tools.json: /mcp_servers/0/url: must be an http:// or https:// URL like "http://127.0.0.1:8080/mcp", not "ftp://x/mcp"`},
		{"headers for a stdio server", `{"mcp_servers": [{"name": "s", "command": ["true"], "headers": {"A": "b"}}]}`,
			`tools.json: /mcp_servers/0/headers: headers are for a url (streamable HTTP) server; this server has a command`},
		{"env for an HTTP server", `{"mcp_servers": [{"name": "s", "url": "http://127.0.0.1:1/mcp", "env": {}}]}`,
			`tools.json: /mcp_servers/0/env: env is for a command (stdio) server; this server has a url`},
		{"an MCP server name used twice", `{"mcp_servers": [{"name": "s", "command": ["true"]}, {"name": "s", "url": "http://127.0.0.1:1/mcp"}]}`,
			`tools.json: /mcp_servers/1/name: MCP server "s" is already defined at /mcp_servers/0`},
		{"an MCP server name that is no identifier", `{"mcp_servers": [{"name": "my-server", "command": ["true"]}]}`,
			`tools.json: /mcp_servers/0/name: must be a JavaScript identifier (ASCII letters, digits, _ and $, not starting with a digit), not "my-server"`},
		{"an MCP server timeout that is no duration", `{"mcp_servers": [{"name": "s", "command": ["true"], "timeout": "60"}]}`,
			`tools.json: /mcp_servers/0/timeout: must be a duration like "30s", not "60"`},
		{"an MCP result limit past 64 MiB", `{"mcp_servers": [{"name": "s", "command": ["true"], "max_result_bytes": 67108865}]}`,
			`tools.json: /mcp_servers/0/max_result_bytes: must be at most 67108864`},
		{"an MCP server program not in PATH", `{"mcp_servers": [{"name": "s", "command": ["codemode-no-such-program"]}]}`,
			`tools.json: /mcp_servers/0/command/0: program "codemode-no-such-program" not found in PATH`},
		{"an MCP server env variable passed and set", `{"mcp_servers": [{"name": "s", "command": ["true"], "env": {"pass": ["HOME"], "set": {"HOME": "/"}}}]}`,
			`tools.json: /mcp_servers/0/env/set/HOME: also listed in env.pass: pass a variable or set it, not both`},
		{"a missing command", manifestOf(tool("-command", "")),
			`tools.json: /tools/0: the required property "command" is missing`},
		{"two missing properties", manifestOf(`{"name": "t"}`),
			`tools.json: /tools/0: the required properties "description", "command" are missing`},
		{"a misspelt property", manifestOf(tool("timout", `"1s"`)),
			`tools.json: /tools/0: unknown property "timout"`},
		{"an unknown kind", manifestOf(tool("kind", `"tool"`)),
			`tools.json: /tools/0/kind: must be "function" or "freeform", not "tool"`},
		{"a name that is no identifier", manifestOf(tool("name", `"read-file"`)),
			`tools.json: /tools/0/name: must be a JavaScript identifier (ASCII letters, digits, _ and $, not starting with a digit), not "read-file"`},
		{"a command without a program", manifestOf(tool("command", `[]`)),
			`tools.json: /tools/0/command: must have at least 1 item`},
		{"an empty program", manifestOf(tool("command", `[""]`)),
			`tools.json: /tools/0/command/0: must not be empty`},
		{"a command as a string", manifestOf(tool("command", `"ls -l"`)),
			`tools.json: /tools/0/command: must be an array, not a string`},
		{"no concurrency", manifestOf(tool("max_concurrency", `0`)),
			`tools.json: /tools/0/max_concurrency: must be at least 1`},
		{"an output limit as text", manifestOf(tool("max_output_bytes", `"1MB"`)),
			`tools.json: /tools/0/max_output_bytes: must be an integer, not a string`},
		{"a fractional output limit", manifestOf(tool("max_output_bytes", `1.5`)),
			`tools.json: /tools/0/max_output_bytes: must be an integer, not a number`},
		{"a bad variable name to pass", manifestOf(tool("env", `{"pass": ["HOME", "MY-VAR"]}`)),
			`tools.json: /tools/0/env/pass/1: must be an environment variable name like HOME or GOCACHE, not "MY-VAR"`},
		{"a variable passed twice", manifestOf(tool("env", `{"pass": ["HOME", "HOME"]}`)),
			`tools.json: /tools/0/env/pass: items 0 and 1 are the same`},
		{"a bad variable name to set", manifestOf(tool("env", `{"set": {"MY-VAR": "x"}}`)),
			`tools.json: /tools/0/env/set/MY-VAR: must be an environment variable name like HOME or GOCACHE, not "MY-VAR"`},
		{"a variable set to a number", manifestOf(tool("env", `{"set": {"N": 1}}`)),
			`tools.json: /tools/0/env/set/N: must be a string, not a number`},
		{"a duplicate property", manifestOf(tool("timeout", `"1s"`, "dir", `"."`) + `,` + `{"name": "u", "name": "v", "description": "d", "command": ["true"]}`),
			`tools.json: /tools/1: property "name" appears twice (JSON keeps only the last)`},
		{"a syntax error", "{\n  \"tools\": [\n    {\"name\": \"t\",}\n  ]\n}",
			`tools.json:3:18: invalid character '}' looking for beginning of object key string`},
		{"a truncated file", `{"tools": [`,
			`tools.json:1:12: unexpected end of JSON input`},
		{"two documents", `{"tools": []} {"tools": []}`,
			`tools.json:1:15: unexpected data after the JSON value`},
		{"a freeform tool with an input schema", manifestOf(tool("kind", `"freeform"`, "input_schema", `{"type": "string"}`)),
			`tools.json: /tools/0/input_schema: a freeform tool's input is a string; input_schema is for function tools`},
		{"an input schema that is no JSON Schema", manifestOf(tool("input_schema", `{"type": "object", "properties": {"n": {"type": 5}}}`)),
			`tools.json: /tools/0/input_schema/properties/n/type: not valid JSON Schema: ...`},
		{"a function tool whose input is a string", manifestOf(tool("input_schema", `{"type": "string"}`)),
			`tools.json: /tools/0/input_schema/type: a function tool's input is an object, so its input_schema must allow "object"`},
		{"an output schema that is no JSON Schema", manifestOf(tool("output_schema", `{"required": "n"}`)),
			`tools.json: /tools/0/output_schema/required: not valid JSON Schema: ...`},
		{"a name used twice", manifestOf(tool(), tool()),
			`tools.json: /tools/1/name: tool "t" is already defined at /tools/0`},
		{"a namespace that makes a name used twice", manifestOf(tool("name", `"a_b"`), tool("namespace", `"a_"`, "name", `"b"`)),
			`tools.json: /tools/1/name: tool "a_b" is already defined at /tools/0`},
		{"a missing working directory", manifestOf(tool("dir", `"nosuch"`)),
			`tools.json: /tools/0/dir: working directory ` + filepath.Join(dir, "nosuch") + `: no such file or directory`},
		{"a working directory that is a file", manifestOf(tool("dir", `"plain-file"`)),
			`tools.json: /tools/0/dir: working directory ` + filepath.Join(dir, "plain-file") + ` is not a directory`},
		{"a program not in PATH", manifestOf(tool("command", `["codemode-no-such-program", "x"]`)),
			`tools.json: /tools/0/command/0: program "codemode-no-such-program" not found in PATH`},
		{"a missing program by path", manifestOf(tool("command", `["./bin/tool"]`)),
			`tools.json: /tools/0/command/0: program ` + filepath.Join(dir, "bin/tool") + `: no such file or directory`},
		{"a program that is not executable", manifestOf(tool("command", `["./plain-file"]`)),
			`tools.json: /tools/0/command/0: program ` + filepath.Join(dir, "plain-file") + `: permission denied`},
		{"a variable passed and set", manifestOf(tool("env", `{"pass": ["HOME"], "set": {"HOME": "/tmp"}}`)),
			`tools.json: /tools/0/env/set/HOME: also listed in env.pass: pass a variable or set it, not both`},
		{"problems in document order", manifestOf(tool("kind", `"x"`), tool(), tool(), tool(), tool(), tool(), tool(), tool(), tool(), tool(), tool("kind", `"y"`)),
			"tools.json: /tools/0/kind: must be \"function\" or \"freeform\", not \"x\"\n" +
				`tools.json: /tools/10/kind: must be "function" or "freeform", not "y"`},
		{"every problem at once", manifestOf(tool("timeout", `"soon"`), tool("name", `"u"`, "kind", `"x"`)),
			"tools.json: /tools/0/timeout: must be a duration like \"30s\", not \"soon\"\n" +
				`tools.json: /tools/1/kind: must be "function" or "freeform", not "x"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := Parse("tools.json", []byte(c.manifest), dir)
			var me *ManifestError
			if !errors.As(err, &me) {
				t.Fatalf("Parse = %v, %v; want a *ManifestError", p, err)
			}
			got := err.Error()
			if prefix, ok := strings.CutSuffix(c.want, "..."); ok {
				if !strings.HasPrefix(got, prefix) || strings.Contains(got, "\n") {
					t.Fatalf("error:\n%s\nwant one line starting with:\n%s", got, prefix)
				}
				return
			}
			if got != c.want {
				t.Fatalf("error:\n%s\nwant:\n%s", got, c.want)
			}
		})
	}
}

func TestLoadNamesTheFileItWasGiven(t *testing.T) {
	path := filepath.Join(t.TempDir(), "my-tools.json")
	if err := os.WriteFile(path, []byte(`{"tools": 1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path)
	if want := path + ": /tools: must be an array, not a number"; err == nil || err.Error() != want {
		t.Fatalf("Load = %v, want %s", err, want)
	}
	_, err = Load(filepath.Join(t.TempDir(), "missing.json"))
	if !errors.Is(err, os.ErrNotExist) || !strings.HasPrefix(err.Error(), "reading the tool manifest: ") {
		t.Fatalf("Load of a missing file = %v", err)
	}
}

// A loaded manifest yields the definitions a session enables: the JavaScript name is the
// namespace and the name concatenated (Codex's display), schemas pass through unchanged.
func TestDefinitionsFollowTheManifest(t *testing.T) {
	manifest := manifestOf(
		tool("name", `"find"`, "namespace", `"files__"`, "input_schema", `{"type":"object","properties":{"root":{"type":"string"}}}`,
			"output_schema", `{"type":"array"}`),
		tool("name", `"shout"`, "kind", `"freeform"`, "description", `"Upper-cases."`),
	)
	p, err := Parse("tools.json", []byte(manifest), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defs := p.Definitions()
	if len(defs) != 2 {
		t.Fatalf("%d definitions", len(defs))
	}
	find, shout := defs[0], defs[1]
	if find.Name != "files__find" || find.ToolName.Name != "find" || find.ToolName.Namespace == nil ||
		*find.ToolName.Namespace != "files__" || find.Kind != codemode.ToolKindFunction || find.Description != "a tool" {
		t.Errorf("find = %+v", find)
	}
	if string(find.InputSchema) != `{"type":"object","properties":{"root":{"type":"string"}}}` || string(find.OutputSchema) != `{"type":"array"}` {
		t.Errorf("schemas %s, %s", find.InputSchema, find.OutputSchema)
	}
	if shout.Name != "shout" || shout.ToolName.Namespace != nil || shout.Kind != codemode.ToolKindFreeform ||
		shout.InputSchema != nil || shout.OutputSchema != nil || shout.Description != "Upper-cases." {
		t.Errorf("shout = %+v", shout)
	}
}

// The limits a manifest leaves out take the documented defaults, and the schema says the same.
func TestOmittedLimitsTakeTheDefaults(t *testing.T) {
	p, err := Parse("tools.json", []byte(manifestOf(tool())), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tl := p.tools[0]
	if cap(tl.slots) != DefaultMaxConcurrency || tl.cmd.timeout != DefaultTimeout || tl.cmd.maxOutputBytes != DefaultMaxOutputBytes {
		t.Errorf("max_concurrency %d, timeout %v, max_output_bytes %d", cap(tl.slots), tl.cmd.timeout, tl.cmd.maxOutputBytes)
	}
	var schema struct {
		Defs struct {
			Tool struct {
				Properties map[string]struct {
					Default any `json:"default"`
				} `json:"properties"`
			} `json:"tool"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal([]byte(schemas.ToolsV1), &schema); err != nil {
		t.Fatal(err)
	}
	props := schema.Defs.Tool.Properties
	if props["timeout"].Default != DefaultTimeout.String() || props["max_output_bytes"].Default != float64(DefaultMaxOutputBytes) ||
		props["max_concurrency"].Default != float64(DefaultMaxConcurrency) {
		t.Errorf("the schema's defaults %v differ from the code's", props)
	}
}

// A manifest's MCP servers come out checked, with their defaults, for pkg/toolsources/mcptools to start.
func TestParseReadsMCPServers(t *testing.T) {
	t.Setenv("CODEMODE_TEST_PASSED", "yes")
	dir := t.TempDir()
	p, err := Parse("tools.json", []byte(`{"mcp_servers": [
		{"name": "local", "command": ["true", "-x"], "env": {"pass": ["CODEMODE_TEST_PASSED"], "set": {"B": "2"}}, "timeout": "5s"},
		{"name": "remote", "url": "http://127.0.0.1:1/mcp", "headers": {"Authorization": "Bearer t"}, "max_result_bytes": 1024, "startup_timeout": "1s"}
	]}`), dir)
	if err != nil {
		t.Fatal(err)
	}
	if defs := p.Definitions(); len(defs) != 0 {
		t.Errorf("Definitions = %v, want none (MCP tools are listed by pkg/toolsources/mcptools)", defs)
	}
	servers := p.MCPServers()
	if len(servers) != 2 {
		t.Fatalf("MCPServers = %+v", servers)
	}
	local, remote := servers[0], servers[1]
	if local.Name != "local" || local.Pointer != "/mcp_servers/0" || !filepath.IsAbs(local.Program) || local.Dir != dir ||
		!slices.Equal(local.Args, []string{"-x"}) || !slices.Equal(local.Env, []string{"CODEMODE_TEST_PASSED=yes", "B=2"}) ||
		local.Timeout != 5*time.Second || local.StartupTimeout != DefaultMCPStartupTimeout || local.MaxResultBytes != DefaultMCPMaxResultBytes || local.URL != "" {
		t.Errorf("local server = %+v", local)
	}
	if remote.URL != "http://127.0.0.1:1/mcp" || remote.Headers["Authorization"] != "Bearer t" || remote.Program != "" ||
		remote.Timeout != DefaultMCPTimeout || remote.StartupTimeout != time.Second || remote.MaxResultBytes != 1024 {
		t.Errorf("remote server = %+v", remote)
	}
}
