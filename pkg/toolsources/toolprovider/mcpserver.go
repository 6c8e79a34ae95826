package toolprovider

import (
	"cmp"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"time"
)

// The defaults of a manifest's optional per-server settings (the schema documents the same
// values).
const (
	// DefaultMCPTimeout is how long one tools/call may take when its server sets no timeout:
	// Codex's default tool_timeout_sec.
	DefaultMCPTimeout = 60 * time.Second
	// DefaultMCPStartupTimeout bounds a server's start, initialization and tools/list when it
	// sets no startup_timeout.
	DefaultMCPStartupTimeout = 30 * time.Second
	// DefaultMCPMaxResultBytes bounds one message of a server that sets no max_result_bytes:
	// 16 MiB, the Go MCP SDK's own default bound on an incoming message.
	DefaultMCPMaxResultBytes = 16 << 20
)

// MCPServer is an MCP server a manifest names (its mcp_servers), checked. It is either a stdio
// server (Program set) or a streamable HTTP one (URL set). pkg/toolsources/mcptools starts and serves it.
type MCPServer struct {
	// Name is the server's name: its tools are tools.mcp__{Name}__{tool}.
	Name string
	// Pointer is the server's place in the manifest ("/mcp_servers/0"), for messages.
	Pointer string

	// Program is a stdio server's executable, resolved (absolute); "" for an HTTP server.
	Program string
	// Args are the program's arguments.
	Args []string
	// Dir is the program's working directory (absolute).
	Dir string
	// Env is the program's whole environment, never nil: what env.pass copies from codemode's
	// own and what env.set fixes, nothing else.
	Env []string

	// URL is an HTTP server's MCP endpoint; "" for a stdio server.
	URL string
	// Headers are sent with every HTTP request to URL.
	Headers map[string]string

	// Timeout bounds one tools/call.
	Timeout time.Duration
	// StartupTimeout bounds the start (or connection), initialization and tools/list.
	StartupTimeout time.Duration
	// MaxResultBytes bounds one message from the server, so the result of one call.
	MaxResultBytes int
}

// MCPServers returns the MCP servers the manifest names, in the manifest's order.
func (p *Provider) MCPServers() []MCPServer {
	return slices.Clone(p.servers)
}

// mcpServerSpec is one entry of "mcp_servers", as written.
type mcpServerSpec struct {
	Name           string            `json:"name"`
	Command        []string          `json:"command"`
	Dir            string            `json:"dir"`
	Env            *envSpec          `json:"env"`
	URL            string            `json:"url"`
	Headers        map[string]string `json:"headers"`
	Timeout        string            `json:"timeout"`
	StartupTimeout string            `json:"startup_timeout"`
	MaxResultBytes int               `json:"max_result_bytes"`
}

// buildMCPServers checks the servers' specs and appends their problems to problems.
func buildMCPServers(specs []mcpServerSpec, base string, problems []Problem) ([]MCPServer, []Problem) {
	var servers []MCPServer
	firstAt := map[string]string{}
	for i, ss := range specs {
		at := pointer("mcp_servers", strconv.Itoa(i))
		s, sp := buildMCPServer(ss, base, at)
		problems = append(problems, sp...)
		if first, dup := firstAt[ss.Name]; dup {
			problems = append(problems, Problem{Pointer: at + "/name", Message: fmt.Sprintf("MCP server %q is already defined at %s", ss.Name, first)})
			continue
		}
		firstAt[ss.Name] = at
		if len(sp) == 0 {
			servers = append(servers, s)
		}
	}
	return servers, problems
}

// buildMCPServer checks one server spec found at pointer at.
func buildMCPServer(ss mcpServerSpec, base, at string) (MCPServer, []Problem) {
	var problems []Problem
	add := func(where, msg string) { problems = append(problems, Problem{Pointer: at + where, Message: msg}) }
	s := MCPServer{
		Name:           ss.Name,
		Pointer:        at,
		Timeout:        durationOr(ss.Timeout, DefaultMCPTimeout),
		StartupTimeout: durationOr(ss.StartupTimeout, DefaultMCPStartupTimeout),
		MaxResultBytes: cmp.Or(ss.MaxResultBytes, DefaultMCPMaxResultBytes),
	}
	switch {
	case ss.Command != nil && ss.URL != "":
		add("/url", "a server has a command (stdio) or a url (streamable HTTP), not both")
	case ss.Command == nil && ss.URL == "":
		add("", `a server needs a "command" (a stdio server) or a "url" (a streamable HTTP server)`)
	case ss.URL != "":
		for _, local := range []struct {
			name string
			set  bool
		}{{"dir", ss.Dir != ""}, {"env", ss.Env != nil}} {
			if local.set {
				add("/"+local.name, local.name+" is for a command (stdio) server; this server has a url")
			}
		}
		s.URL, s.Headers = ss.URL, maps.Clone(ss.Headers)
	default:
		if ss.Headers != nil {
			add("/headers", "headers are for a url (streamable HTTP) server; this server has a command")
		}
		dir, err := workingDir(base, ss.Dir)
		if err != nil {
			add("/dir", err.Error())
		}
		var env envSpec
		if ss.Env != nil {
			env = *ss.Env
		}
		envVars, envProblems := environment(env, at+"/env")
		problems = append(problems, envProblems...)
		if err == nil {
			program, perr := resolveProgram(ss.Command[0], dir)
			if perr != nil {
				add("/command/0", perr.Error())
			}
			s.Program = program
		}
		s.Args, s.Dir, s.Env = ss.Command[1:], dir, envVars
	}
	return s, problems
}

// validHTTPURL accepts an absolute http:// or https:// URL with a host.
func validHTTPURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("must be an http:// or https:// URL like \"http://127.0.0.1:8080/mcp\", not %q", s)
	}
	return nil
}

// durationOr parses a duration the schema has checked; "" is def.
func durationOr(s string, def time.Duration) time.Duration {
	if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return d
	}
	return def
}
