package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/codemodehq/codemode/pkg/hostprogram"
	"github.com/codemodehq/codemode/pkg/mcpserver"
	"github.com/codemodehq/codemode/pkg/toolsources"
	"github.com/codemodehq/codemode/pkg/toolsources/toolprovider"
)

func init() {
	register("mcp", command{summary: "serve exec and wait to MCP clients (stdio, or streamable HTTP with --listen)", run: mcpCommand})
}

var mcpCmd = flagCommand{
	name:     "codemode mcp",
	synopsis: "codemode mcp [--tools FILE] [--listen IP:PORT] [--token TOKEN] [--max-yield-ms MS] [--max-heap-bytes N] [--memory-budget BYTES] [--session-timeout D]",
	help: `usage: codemode mcp [flags]

Serves Code Mode to an MCP client (Claude Desktop, VS Code, any MCP host): an MCP server whose
two tools are Codex's exec (arguments {"code": "JavaScript", "yield_time_ms"?, "max_output_tokens"?})
and wait (cell_id, yield_time_ms, max_tokens, terminate), described for MCP clients (the QuickJS
sandbox cells run in, notify() as progress notifications), with the TypeScript declarations of
the tools a cell can call. Each MCP client session has its own code-mode session (its cells and
stored values); when the client goes away its running cells are terminated. Without --listen the MCP messages go over stdin and stdout (what
a client that spawns codemode mcp expects); logs and errors go to stderr.

Flags:
  --tools FILE
        the tools cells can call, from a tool manifest; a manifest with an error is refused
        before anything runs. Without --tools, two demo tools: echo and upper.
          codemode mcp --tools examples/tools.json
  --listen IP:PORT
        serve MCP's streamable HTTP transport on this address instead of stdio, at /mcp; the
        URL is printed on stdout (port 0 picks a free one). An address that is not loopback
        needs --token.
          codemode mcp --listen 127.0.0.1:0
  --token TOKEN
        every HTTP request must carry Authorization: Bearer TOKEN (default: $CODEMODE_MCP_TOKEN).
          codemode mcp --listen 0.0.0.0:8765 --token "$(cat token.txt)"
  --max-yield-ms MS
        cap the yield time of every exec and wait, in milliseconds (0: no cap).
          codemode mcp --max-yield-ms 30000
  --max-heap-bytes N
        cap the JavaScript heap of every cell, in bytes (0: the runtime's own cap).
          codemode mcp --max-heap-bytes 67108864
  --memory-budget BYTES
        keep the server's resident memory under BYTES (digits, or with Ki, Mi, Gi), as
        codemode-host does: cells' heaps and their output not yet observed share three
        quarters of it, and a cell the budget cannot hold fails (its heap) or has text()
        throw (its output), saying the budget is spent. GOMEMLIMIT is set to seven eighths of
        it unless the environment sets GOMEMLIMIT. Default: three quarters of the cgroup's
        memory limit, or 2Gi without one.
          codemode mcp --memory-budget 512Mi
  --session-timeout D
        close an HTTP client session that sent no request for this long, terminating its
        cells (default 30m; 0 keeps idle sessions until they are deleted).
          codemode mcp --listen 127.0.0.1:8765 --session-timeout 5m
  -h, --help
        print this help.

Ctrl-C or SIGTERM terminates every running cell and exits 0; so does the stdio client closing
stdin.

Exit status: 0 the client went away or a signal stopped the server; 1 the server failed;
2 wrong invocation, a refused manifest, or a non-loopback address without a token.

Examples:
  codemode mcp --tools examples/tools.json
  codemode mcp --listen 127.0.0.1:8765 --tools examples/tools.json
`,
}

// mcpOptions are the flags of `codemode mcp`.
type mcpOptions struct {
	tools          string
	listen         string
	token          string
	maxYieldMs     uint64
	maxHeapBytes   uint64
	sessionTimeout time.Duration
	memoryBudget   string
}

// mcpFlags defines the flags of `codemode mcp` into o (their help is mcpCmd.help).
func mcpFlags(o *mcpOptions) *flag.FlagSet {
	fs := flag.NewFlagSet(mcpCmd.name, flag.ContinueOnError)
	fs.StringVar(&o.tools, "tools", "", "")
	fs.StringVar(&o.listen, "listen", "", "")
	fs.StringVar(&o.token, "token", "", "")
	fs.Uint64Var(&o.maxYieldMs, "max-yield-ms", 0, "")
	fs.Uint64Var(&o.maxHeapBytes, "max-heap-bytes", 0, "")
	fs.DurationVar(&o.sessionTimeout, "session-timeout", mcpserver.DefaultSessionTimeout, "")
	fs.StringVar(&o.memoryBudget, "memory-budget", "", "")
	return fs
}

func mcpCommand(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return mcpWith(ctx, args, stdin, stdout, stderr, os.Getenv)
}

// mcpWith is mcpCommand with its context (ended by a signal in main) and environment given.
func mcpWith(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	var o mcpOptions
	fs := mcpFlags(&o)
	if done, status := mcpCmd.parse(fs, args, stdout, stderr); done {
		return status
	}
	if fs.NArg() > 0 {
		return mcpCmd.wrong(stderr, fmt.Sprintf("unexpected argument %s (every setting is a flag)", fs.Arg(0)))
	}
	if o.sessionTimeout < 0 {
		return mcpCmd.wrong(stderr, "--session-timeout must not be negative")
	}
	cfg := mcpserver.Config{Token: o.token, SessionTimeout: o.sessionTimeout}
	if cfg.Token == "" && o.listen != "" {
		cfg.Token = getenv(mcpserver.TokenEnv)
	}
	if o.listen != "" {
		addr, err := mcpserver.ParseListen(o.listen)
		if err != nil {
			return mcpCmd.wrong(stderr, err.Error())
		}
		cfg.Listen = addr
	}
	if o.maxYieldMs > 0 {
		cfg.Limits.MaxYieldTimeMs = &o.maxYieldMs
	}
	if o.maxHeapBytes > 0 {
		cfg.Limits.MaxHeapSizeBytes = &o.maxHeapBytes
	}
	if err := cfg.Check(); err != nil {
		return mcpCmd.wrong(stderr, err.Error())
	}
	budget, err := hostprogram.MemoryBudgetBytes(o.memoryBudget)
	if err != nil {
		return mcpCmd.wrong(stderr, err.Error())
	}
	hostprogram.ApplyGoMemoryLimit(budget, getenv)
	cfg.MemoryBudget = hostprogram.NewMemoryBudget(budget)
	sets, closeSets, status, err := mcpToolSets(ctx, o.tools)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return status
	}
	defer func() { _ = closeSets() }()
	cfg.ToolSets = sets
	std := streams(stdin, stdout, stderr)
	if err := mcpserver.Serve(ctx, cfg, std.Stdin, std.Stdout); err != nil {
		fmt.Fprintf(stderr, "codemode mcp: %v\n", err)
		var usage *mcpserver.UsageError
		if errors.As(err, &usage) {
			return exitUsage
		}
		return exitFailed
	}
	return exitOK
}

// mcpToolSets opens the tools cells can call: every source the manifest names (its commands and
// MCP servers and exec-server, through toolsources.Open, as codemode run and codemode-host do), or the demo
// tools without one. The returned function releases them. status is the exit status for err:
// a server that does not start is a failure, a refused manifest a wrong invocation.
func mcpToolSets(ctx context.Context, manifest string) ([]toolprovider.ToolSet, func() error, int, error) {
	if manifest == "" {
		return []toolprovider.ToolSet{demoTools{}}, func() error { return nil }, exitOK, nil
	}
	sets, closeSets, err := toolsources.Open(ctx, manifest, toolsources.Options{})
	switch {
	case errors.Is(err, toolsources.ErrNotStarted):
		return nil, nil, exitFailed, err
	case err != nil:
		return nil, nil, exitUsage, err
	}
	return sets, closeSets, exitOK, nil
}
