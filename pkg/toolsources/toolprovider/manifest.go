package toolprovider

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// The defaults of a manifest's optional per-tool limits (the schema documents the same values).
const (
	// DefaultTimeout is how long a command may run when its tool sets no timeout.
	DefaultTimeout = 30 * time.Second
	// DefaultMaxOutputBytes bounds a command's stdout when its tool sets no max_output_bytes.
	DefaultMaxOutputBytes = 1 << 20
	// DefaultMaxConcurrency is how many calls of a tool run at once when it sets no
	// max_concurrency.
	DefaultMaxConcurrency = 4
)

// manifestSpec is a manifest as written; the schema has already vouched for its shape.
type manifestSpec struct {
	Tools      []toolSpec      `json:"tools"`
	MCPServers []mcpServerSpec `json:"mcp_servers"`
	// ExecServer is checked by the schema and opened by pkg/toolsources/exectools; here it only counts
	// as a source of tools.
	ExecServer json.RawMessage `json:"exec_server"`
}

// toolSpec is one entry of "tools", as written.
type toolSpec struct {
	Name           string          `json:"name"`
	Namespace      string          `json:"namespace"`
	Description    string          `json:"description"`
	Kind           string          `json:"kind"`
	InputSchema    json.RawMessage `json:"input_schema"`
	OutputSchema   json.RawMessage `json:"output_schema"`
	Command        []string        `json:"command"`
	Dir            string          `json:"dir"`
	Env            envSpec         `json:"env"`
	Timeout        string          `json:"timeout"`
	MaxOutputBytes int             `json:"max_output_bytes"`
	MaxConcurrency int             `json:"max_concurrency"`
}

// envSpec is a tool's whole environment: variables passed from codemode's own, and fixed ones.
type envSpec struct {
	Pass []string          `json:"pass"`
	Set  map[string]string `json:"set"`
}

// Load reads and checks the manifest at path; relative working directories and programs are
// resolved against path's directory. A manifest with any problem is refused as a *ManifestError
// naming every problem; an unreadable file is an error of its own.
func Load(path string) (*Provider, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the tool manifest: %w", err)
	}
	return Parse(path, data, filepath.Dir(path))
}

// Parse checks the manifest data, named file in messages, whose relative paths are relative to
// baseDir. Programs named without a slash are looked up in PATH now, so a missing one is a
// problem of the manifest rather than of the first call.
func Parse(file string, data []byte, baseDir string) (*Provider, error) {
	refuse := func(problems []Problem) error { return &ManifestError{File: file, Problems: problems} }
	if problems := checkSyntax(data); len(problems) > 0 {
		return nil, refuse(problems)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("decoding the tool manifest %s: %w", file, err)
	}
	problems, err := schemaProblems(doc)
	if err != nil {
		return nil, err
	}
	if len(problems) > 0 {
		return nil, refuse(problems)
	}
	var spec manifestSpec
	if err := json.Unmarshal(data, &spec); err != nil {
		return nil, fmt.Errorf("decoding the tool manifest %s: %w", file, err)
	}
	base, err := filepath.Abs(baseDir)
	if err != nil {
		return nil, fmt.Errorf("resolving the manifest's directory: %w", err)
	}
	p, problems := build(spec, base)
	if len(problems) > 0 {
		return nil, refuse(problems)
	}
	return p, nil
}

// build turns checked specs into a Provider, collecting the problems the schema cannot see.
func build(spec manifestSpec, base string) (*Provider, []Problem) {
	p := &Provider{byName: map[string]*commandTool{}}
	var problems []Problem
	if spec.Tools == nil && spec.MCPServers == nil && spec.ExecServer == nil {
		problems = append(problems, Problem{Message: `the manifest names no tools: give "tools", "mcp_servers", "exec_server" or several`})
	}
	p.servers, problems = buildMCPServers(spec.MCPServers, base, problems)
	firstAt := map[string]string{} // tool name → pointer of the tool that defined it
	for i, ts := range spec.Tools {
		at := pointer("tools", strconv.Itoa(i))
		t, tp := buildTool(ts, base, at)
		problems = append(problems, tp...)
		if t == nil {
			continue
		}
		name := t.def.Name
		if first, dup := firstAt[name]; dup {
			problems = append(problems, Problem{Pointer: at + "/name", Message: fmt.Sprintf("tool %q is already defined at %s", name, first)})
			continue
		}
		firstAt[name] = at
		p.tools = append(p.tools, t)
		p.byName[routeKey(t.def.ToolName)] = t
	}
	return p, problems
}

// buildTool checks one tool spec found at pointer at. It returns nil and the problems when there
// are any.
func buildTool(ts toolSpec, base, at string) (*commandTool, []Problem) {
	var problems []Problem
	add := func(where, msg string) { problems = append(problems, Problem{Pointer: at + where, Message: msg}) }

	k := codemode.ToolKindFunction
	if ts.Kind == "freeform" {
		k = codemode.ToolKindFreeform
	}
	if k == codemode.ToolKindFreeform && ts.InputSchema != nil {
		add("/input_schema", "a freeform tool's input is a string; input_schema is for function tools")
	}
	var input *jsonschema.Schema
	if k == codemode.ToolKindFunction {
		var inputProblems []Problem
		input, inputProblems = functionInputSchema(ts.InputSchema, at+"/input_schema")
		problems = append(problems, inputProblems...)
	}
	output, outputProblems := toolSchema(ts.OutputSchema, at+"/output_schema")
	problems = append(problems, outputProblems...)

	dir, err := workingDir(base, ts.Dir)
	if err != nil {
		add("/dir", err.Error())
	}
	env, envProblems := environment(ts.Env, at+"/env")
	problems = append(problems, envProblems...)
	var program string
	if err == nil {
		if program, err = resolveProgram(ts.Command[0], dir); err != nil {
			add("/command/0", err.Error())
		}
	}
	if len(problems) > 0 {
		return nil, problems
	}
	return newCommandTool(definition(ts, k), input, output, command{
		path:           program,
		args:           ts.Command[1:],
		dir:            dir,
		env:            env,
		timeout:        timeoutOf(ts.Timeout),
		maxOutputBytes: cmp.Or(ts.MaxOutputBytes, DefaultMaxOutputBytes),
	}, cmp.Or(ts.MaxConcurrency, DefaultMaxConcurrency)), nil
}

// definition is what cells see of a tool. Its name is the ToolName's display form, namespace and
// name concatenated (Codex's form too), so the tool keeps the JavaScript identifier it would have
// under a Codex host (docs/protocol/javascript.md#tools).
func definition(ts toolSpec, k codemode.ToolKind) codemode.ToolDefinition {
	name := codemode.ToolName{Name: ts.Name}
	if ts.Namespace != "" {
		ns := ts.Namespace
		name.Namespace = &ns
	}
	return codemode.ToolDefinition{
		Name:         name.String(),
		ToolName:     name,
		Description:  ts.Description,
		Kind:         k,
		InputSchema:  ts.InputSchema,
		OutputSchema: ts.OutputSchema,
	}
}

// functionInputSchema compiles a function tool's input schema (nil when absent). Since a
// function tool's input is always an object, a top-level "type" must admit "object": any other
// schema would refuse every call.
func functionInputSchema(raw json.RawMessage, at string) (*jsonschema.Schema, []Problem) {
	s, problems := toolSchema(raw, at)
	if len(problems) > 0 || s == nil {
		return nil, problems
	}
	var top struct {
		Type any `json:"type"`
	}
	if json.Unmarshal(raw, &top) != nil || top.Type == nil {
		return s, nil
	}
	admitsObject := top.Type == "object"
	if types, ok := top.Type.([]any); ok {
		admitsObject = slices.Contains(types, any("object"))
	}
	if !admitsObject {
		return nil, []Problem{{Pointer: at + "/type", Message: `a function tool's input is an object, so its input_schema must allow "object"`}}
	}
	return s, nil
}

// toolSchema compiles a tool's input or output schema (nil when absent), reporting a schema that
// is not valid JSON Schema at the offending keyword.
func toolSchema(raw json.RawMessage, at string) (*jsonschema.Schema, []Problem) {
	if raw == nil {
		return nil, nil
	}
	s, err := compileToolSchema(raw)
	if err == nil {
		return s, nil
	}
	var sve *jsonschema.SchemaValidationError
	var ve *jsonschema.ValidationError
	if !errors.As(err, &sve) || !errors.As(sve.Err, &ve) {
		return nil, []Problem{{Pointer: at, Message: "not a usable JSON Schema: " + err.Error()}}
	}
	// The meta-schema's alternatives (a type is a name or a list of names) fail together; the
	// first complaint about a place is the one to read.
	var problems []Problem
	seen := map[string]bool{}
	for _, leaf := range leaves(ve) {
		where := at + pointer(leaf.at...)
		if seen[where] {
			continue
		}
		seen[where] = true
		problems = append(problems, Problem{Pointer: where, Message: "not valid JSON Schema: " + leaf.kind.LocalizedString(englishPrinter)})
	}
	return nil, problems
}

// workingDir resolves a tool's dir against the manifest's directory and checks that it is one.
func workingDir(base, dir string) (string, error) {
	if dir == "" {
		return base, nil
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(base, dir)
	}
	info, err := os.Stat(dir)
	var pe *fs.PathError
	switch {
	case errors.As(err, &pe):
		return "", fmt.Errorf("working directory %s: %w", dir, pe.Err)
	case err != nil:
		return "", fmt.Errorf("working directory %s: %w", dir, err)
	case !info.IsDir():
		return "", fmt.Errorf("working directory %s is not a directory", dir)
	}
	return dir, nil
}

// environment builds a tool's complete environment. The result is never nil: exec.Cmd gives a
// command with a nil Env codemode's whole environment, which is exactly what must not happen by
// accident.
func environment(spec envSpec, at string) ([]string, []Problem) {
	env := []string{}
	var problems []Problem
	for _, name := range spec.Pass {
		if _, isSet := spec.Set[name]; isSet {
			problems = append(problems, Problem{Pointer: at + pointer("set", name), Message: "also listed in env.pass: pass a variable or set it, not both"})
		}
		if v, ok := os.LookupEnv(name); ok {
			env = append(env, name+"="+v)
		}
	}
	names := make([]string, 0, len(spec.Set))
	for name := range spec.Set {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if err := checkEnvName(name); err != nil {
			problems = append(problems, Problem{Pointer: at + pointer("set", name), Message: err.Error()})
		}
		env = append(env, name+"="+spec.Set[name])
	}
	return env, problems
}

// resolveProgram finds a command's program now rather than at its first call: a name without a
// slash in codemode's PATH, a path relative to the tool's working directory.
func resolveProgram(program, dir string) (string, error) {
	if !strings.ContainsRune(program, '/') && !strings.ContainsRune(program, filepath.Separator) {
		path, err := exec.LookPath(program)
		if err != nil {
			return "", fmt.Errorf("program %q not found in PATH", program)
		}
		return filepath.Abs(path)
	}
	path := program
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	if _, err := exec.LookPath(path); err != nil {
		var ee *exec.Error // its text repeats the path
		if errors.As(err, &ee) {
			err = ee.Err
		}
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return "", fmt.Errorf("program %s: %w", path, err)
	}
	return path, nil
}

// timeoutOf parses a timeout the schema has checked; "" is the default.
func timeoutOf(s string) time.Duration {
	if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return d
	}
	return DefaultTimeout
}
