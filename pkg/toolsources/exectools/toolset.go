package exectools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	wire "github.com/codemodehq/codemode/gen/go/execserverwire"
	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/execserver/execrpc"
)

// ToolSet is the exec-server's tools for cells: exec__run, fs__read and fs__list. Relative paths
// are resolved against the exec-server's working directory.
type ToolSet struct {
	client *Client
	cwd    string
	defs   []codemode.ToolDefinition
}

// NewToolSet makes the tools of a connected client.
func NewToolSet(ctx context.Context, c *Client) (*ToolSet, error) {
	info, err := call(ctx, c, "environment/info", nil, wire.DecodeEnvironmentInfo)
	if err != nil {
		return nil, err
	}
	cwd := "/"
	if info.Cwd != nil {
		if u, err := url2path(*info.Cwd); err == nil {
			cwd = u
		}
	}
	return &ToolSet{client: c, cwd: cwd, defs: definitions()}, nil
}

// Close closes the client.
func (t *ToolSet) Close() error { return t.client.Close() }

func definitions() []codemode.ToolDefinition {
	def := func(ns, name, desc, in, out string) codemode.ToolDefinition {
		n := codemode.ToolName{Name: name, Namespace: &ns}
		return codemode.ToolDefinition{Name: n.String(), ToolName: n, Description: desc, Kind: codemode.ToolKindFunction, InputSchema: json.RawMessage(in), OutputSchema: json.RawMessage(out)}
	}
	return []codemode.ToolDefinition{
		def("exec__", "run", "Runs a command (argv, no shell) on the exec-server and waits for it to end; cwd defaults to the server's working directory. A non-zero exit is not an error: check exitCode.",
			`{"type":"object","properties":{"argv":{"type":"array","items":{"type":"string"},"minItems":1},"cwd":{"type":"string"}},"required":["argv"],"additionalProperties":false}`,
			`{"type":"object","properties":{"stdout":{"type":"string"},"stderr":{"type":"string"},"exitCode":{"type":"integer"}},"required":["stdout","stderr","exitCode"]}`),
		def("fs__", "read", "Reads a text file on the exec-server.",
			`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false}`,
			`{"type":"string"}`),
		def("fs__", "list", "Lists a directory on the exec-server, sorted by name.",
			`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false}`,
			`{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"},"isDirectory":{"type":"boolean"},"isFile":{"type":"boolean"}},"required":["name","isDirectory","isFile"]}}`),
	}
}

// Definitions returns the three tools.
func (t *ToolSet) Definitions() []codemode.ToolDefinition { return t.defs }

// InvokeTool runs one call; a cancelled ctx terminates the call's process.
func (t *ToolSet) InvokeTool(ctx context.Context, c codemode.NestedToolCall) (json.RawMessage, error) {
	var in struct {
		Argv []string `json:"argv"`
		Cwd  string   `json:"cwd"`
		Path string   `json:"path"`
	}
	if len(c.Input) > 0 {
		if err := json.Unmarshal(c.Input, &in); err != nil {
			return nil, fmt.Errorf("invalid input: %v", err)
		}
	}
	ns := ""
	if c.ToolName.Namespace != nil {
		ns = *c.ToolName.Namespace
	}
	switch ns + c.ToolName.Name {
	case "exec__run":
		if len(in.Argv) == 0 {
			return nil, errors.New("argv must name a command")
		}
		cwd := t.cwd
		if in.Cwd != "" {
			cwd = t.abs(in.Cwd)
		}
		r, err := t.client.Run(ctx, in.Argv, cwd)
		if err != nil {
			return nil, rpcText(err)
		}
		return json.Marshal(map[string]any{"stdout": r.Stdout, "stderr": r.Stderr, "exitCode": r.ExitCode})
	case "fs__read":
		data, err := t.client.ReadFile(ctx, t.abs(in.Path))
		if err != nil {
			return nil, rpcText(err)
		}
		return json.Marshal(string(data))
	case "fs__list":
		entries, err := t.client.ReadDirectory(ctx, t.abs(in.Path))
		if err != nil {
			return nil, rpcText(err)
		}
		// The protocol lists in the file system's order; a model reads a sorted list.
		slices.SortFunc(entries, func(a, b wire.FsReadDirectoryEntry) int { return strings.Compare(a.FileName, b.FileName) })
		out := make([]map[string]any, len(entries))
		for i, e := range entries {
			out[i] = map[string]any{"name": e.FileName, "isDirectory": e.IsDirectory, "isFile": e.IsFile}
		}
		return json.Marshal(out)
	}
	return nil, fmt.Errorf("code-mode tool %s is not enabled for this execution", c.ToolName)
}

func (t *ToolSet) abs(p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(t.cwd, p)
}

// rpcText keeps an exec-server error's message for the script (without the code).
func rpcText(err error) error {
	var e *execrpc.Error
	if errors.As(err, &e) {
		return errors.New(e.Message)
	}
	return err
}

// Manifest is the "exec_server" member of a tool manifest.
type Manifest struct {
	Command []string `json:"command"`
	URL     string   `json:"url"`
	// TokenEnv names the environment variable that holds the exec-server's bearer token.
	TokenEnv string `json:"token_env"`
}

// FromManifest connects to the exec-server a tool manifest names under "exec_server" (the
// manifest's schema has already validated it); nil, nil when it names none. A command runs in
// the manifest's directory.
func FromManifest(ctx context.Context, manifestPath string) (*ToolSet, error) {
	data, err := os.ReadFile(manifestPath)
	if err != nil {
		return nil, err
	}
	var doc struct {
		ExecServer *Manifest `json:"exec_server"`
	}
	if err := json.Unmarshal(data, &doc); err != nil || doc.ExecServer == nil {
		return nil, err
	}
	var c *Client
	if m := doc.ExecServer; m.URL != "" {
		token := ""
		if m.TokenEnv != "" {
			if token = os.Getenv(m.TokenEnv); token == "" {
				return nil, fmt.Errorf("token_env names $%s, which is empty or unset", m.TokenEnv)
			}
		}
		c, err = DialURL(ctx, m.URL, token)
	} else {
		c, err = Spawn(ctx, m.Command, filepath.Dir(manifestPath))
	}
	if err != nil {
		return nil, err
	}
	ts, err := NewToolSet(ctx, c)
	if err != nil {
		c.Close()
		return nil, err
	}
	return ts, nil
}

func url2path(u wire.PathUri) (string, error) {
	return uriPath(u)
}
