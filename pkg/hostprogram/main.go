package hostprogram

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
)

// Streams are the process's standard streams.
type Streams struct {
	Stdin  io.ReadCloser
	Stdout io.WriteCloser
	Stderr io.Writer
}

// Exit statuses of Main.
const (
	ExitOK     = 0 // drained after a signal, or the stdio client closed the connection
	ExitFailed = 1 // a listener or the runtime failed, or the drain overran its bound
	ExitUsage  = 2 // a wrong invocation, a refused manifest, a non-loopback address without a token
)

// Main runs the host program named name with the command line args and returns its exit
// status. Each bound network address is printed on stdout in the line a launcher of Codex's host
// reads to find it (ws://ADDR, http://ADDR: docs/protocol/v1.md#websocket-and-lanes,
// docs/protocol/grpc.md#endpoints), or on stderr when stdout carries V1 frames (--listen stdio).
// Logs go to stderr.
// The first signal on signals drains, a second exits at once.
func Main(name string, args []string, s Streams, getenv func(string) string, signals <-chan os.Signal) int {
	var f Flags
	fs := f.FlagSet(name)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(s.Stdout, Help(name))
			return ExitOK
		}
		return wrong(s.Stderr, name, FlagError(err))
	}
	if f.Version {
		fmt.Fprintln(s.Stdout, VersionLine(programName(name)))
		return ExitOK
	}
	if fs.NArg() > 0 {
		return wrong(s.Stderr, name, fmt.Errorf("unexpected argument %q (every setting is a flag)", fs.Arg(0)))
	}
	if err := f.Finish(getenv, s.Stderr); err != nil {
		return wrong(s.Stderr, name, err)
	}
	// The process's Go memory limit follows the budget (unless GOMEMLIMIT says otherwise): set
	// here, by the program that owns the process, never by New, which tests embed.
	ApplyGoMemoryLimit(f.MemoryBudget, getenv)
	p, err := New(f.Config, s.Stdin, s.Stdout)
	if err != nil {
		return failed(s.Stderr, name, err)
	}
	p.Name = programName(name)
	bound, err := p.Bind(context.Background())
	if err != nil {
		_ = p.Close()
		return failed(s.Stderr, name, err)
	}
	var announce io.Writer = s.Stdout
	if p.cfg.HasStdio() {
		announce = s.Stderr
	}
	for _, b := range bound {
		if b.URL != "" {
			fmt.Fprintln(announce, b.URL)
		}
	}
	if u := p.AdminURL(); u != "" {
		fmt.Fprintln(announce, u) // last, after the --listen addresses
	}
	if err := p.Run(signals); err != nil {
		return failed(s.Stderr, name, err)
	}
	return ExitOK
}

// programName is the program a host named name runs in, as its version line and its "started"
// log line name it: "codemode-host", or "codemode" for the CLI's "codemode host".
func programName(name string) string {
	if program, _, found := strings.Cut(name, " "); found {
		return program
	}
	return name
}

// flagNameAfter matches the texts of the flag package's errors up to the dash it writes before
// a flag's name: "flag provided but not defined: -", "flag needs an argument: -",
// `invalid value "V" for flag -` and `invalid boolean value "V" for -`.
var flagNameAfter = regexp.MustCompile(`^(?:flag provided but not defined: |flag needs an argument: |invalid (?:boolean )?value "(?:[^"\\]|\\.)*" for (?:flag )?)-`)

// FlagError is err, an error of the flag package's Parse, with the flag spelt as its help spells
// it: the flag package writes one dash before a flag's name whatever the user typed, so
// `--wiat` would come back as -wiat while every help text says --NAME.
func FlagError(err error) error {
	msg := err.Error()
	loc := flagNameAfter.FindStringIndex(msg)
	if loc == nil {
		return err
	}
	return errors.New(msg[:loc[1]] + "-" + msg[loc[1]:])
}

// wrong reports a wrong invocation: what was wrong, then the synopsis. It returns ExitUsage.
func wrong(stderr io.Writer, name string, err error) int {
	fmt.Fprintf(stderr, "%s: %v\nusage: %s\n(`%s --help` explains every flag)\n", name, err, Synopsis(name), name)
	return ExitUsage
}

// failed reports an error: a *UsageError is exit status 2, anything else 1.
func failed(stderr io.Writer, name string, err error) int {
	fmt.Fprintf(stderr, "%s: %v\n", name, err)
	var u *UsageError
	if errors.As(err, &u) {
		return ExitUsage
	}
	return ExitFailed
}

// Synopsis is the one-line usage of the host named name.
func Synopsis(name string) string {
	return name + " [--listen stdio|grpc+stdio://|ws://IP:PORT|grpc://IP:PORT]... [--tools FILE] [--token TOKEN] [--allow-origin ORIGIN]... [flags]"
}

// Help is the --help text of the host named name. Its placeholders are braced so that no word
// of the text can be one: a bare NAME once rewrote "$HOSTNAME" and "--generation NAME".
func Help(name string) string {
	return strings.NewReplacer("{program}", name, "{token_env}", TokenEnv).Replace(helpText)
}

const helpText = `usage: {program} [flags]

Serves the in-process JavaScript runtime to Codex, as Codex's code-mode host does: gRPC
codex.code_mode.v1.CodeModeHost on the standard streams (how Codex 0.169 spawns its host,
--listen grpc+stdio://) or on a TCP listener (also gRPC-Web and Connect, for browsers), and
Protocol V1 on the standard streams (--listen stdio, the default; Codex with
code_mode_host_grpc disabled) or on a WebSocket listener (older Codex; 0.169 has no WebSocket).
Every bound address is printed on its own line as Codex prints it: ws://ADDR for a WebSocket,
http://ADDR for gRPC; on stdout, or on stderr when stdout carries a connection (stdio,
grpc+stdio://).
Logs go to stderr. Ctrl-C or SIGTERM drains: running cells are terminated, sessions closed and
every cell's closure delivered, then the host exits 0; a second signal exits at once.

Flags:
  --listen stdio|grpc+stdio://|ws://IP:PORT|grpc://IP:PORT
        where to serve; repeatable (default stdio). stdio (also stdio://) is V1 and
        grpc+stdio:// is gRPC over HTTP/2 with prior knowledge, both on stdin/stdout (one of
        them at most; the host exits 0 when stdin ends). An IP address, not a host name; port 0
        picks a free one. Addresses other than loopback need a token.
          {program} --listen grpc+stdio://
          {program} --listen ws://127.0.0.1:0 --listen grpc://127.0.0.1:0
  --tools FILE
        a tool manifest (see codemode run --help): its tools are offered to every cell of every
        session and run on this machine; a manifest with an error is refused (exit status 2).
          {program} --tools examples/tools.json
  --token TOKEN
        require "Authorization: Bearer TOKEN" on every network request (WebSocket: 401,
        gRPC/Connect: UNAUTHENTICATED); /readyz and /healthz stay open. Prefer ${token_env},
        which is read when --token is not given and is not visible in the process list.
        A token for a listener off loopback has at least 16 characters (openssl rand -hex 32);
        the scheme is matched without case. Failed attempts are logged (never the token).
        Without a token a listener must be loopback, and it answers only requests whose Host
        is localhost, 127.0.0.1 or [::1] (others get 403: a web page cannot reach it through
        a name it made resolve to 127.0.0.1).
          {program} --listen grpc://0.0.0.0:8766 --token "$(cat token.txt)"
  --allow-origin ORIGIN
        answer CORS requests from this browser origin (or *) on the gRPC/Connect listeners;
        repeatable. Requests from other origins than the host's own page are refused (403
        PERMISSION_DENIED); the V1 WebSocket refuses every Origin regardless.
          {program} --listen grpc://127.0.0.1:8080 --allow-origin http://localhost:5173
  --max-yield-ms MS
        cap every session's yield time (exec and wait) at MS milliseconds (default: no cap).
          {program} --max-yield-ms 30000
  --max-heap-bytes N
        cap every cell's JavaScript heap at N bytes (default: the runtime's cap, 512 MiB); a
        client asking for more gets N.
          {program} --max-heap-bytes 67108864
  --memory-budget BYTES
        keep the host's resident memory under BYTES (digits, or with Ki, Mi, Gi): cells' heaps,
        the native stacks of their deep recursion, their output not yet observed, responses a
        client has not read yet and decompressed requests share three quarters of it, the rest
        is headroom for the Go runtime and connections; live V1 cells are bounded by it, 1 MiB
        each. A cell whose heap or output the budget cannot hold fails (its heap) or has text()
        throw (its output), saying the host's budget is spent; recursion it cannot hold throws a
        catchable "RangeError: Maximum call stack size exceeded"; a compressed request is
        refused RESOURCE_EXHAUSTED. GOMEMLIMIT is set to seven eighths of it unless the
        environment sets GOMEMLIMIT. Default: three quarters of the cgroup's memory limit
        (/sys/fs/cgroup/memory.max), or 2Gi without one.
          {program} --memory-budget 384Mi
  --pool-size N
        JavaScript runtimes kept ready for new cells (default 2; 0 keeps none).
          {program} --pool-size 8
  --route-id ROUTE
        this process's route identity on gRPC listeners, returned as x-code-mode-route on
        OpenSession so that a proxy keeps each session on its host (default: random, unique to
        the process). Must not be reused by a later process: a request that carries another
        host's route for an unknown session is answered x-code-mode-route-lost: true.
          {program} --listen grpc://0.0.0.0:8766 --route-id "$HOSTNAME-$(date +%s)"
  --max-sessions N
        refuse OpenSession with RESOURCE_EXHAUSTED beyond N open gRPC sessions (default 0: no
        limit); clients retry, and a proxy sends the retry to another host.
          {program} --listen grpc://127.0.0.1:8766 --max-sessions 500
  --generation NAME
        the V1 wire generation: bounded-output (Codex ≥ 0.169, the default), host-duration
        (Codex 0.152 to 0.168) or baseline (Codex ≤ 0.151).
          {program} --generation host-duration
  --drain-timeout DURATION
        how long a shutdown may take before connections are cut (default 10s).
          {program} --drain-timeout 30s
  --max-cells-per-session N
        one gRPC session's share of the host's active cells (default 32): beyond it the
        session's executes are refused with "code-mode session has too many active cells", so
        that one session cannot hold every cell slot. V1 cells are bounded by --memory-budget
        instead (1 MiB a cell): a WebSocket connection takes N/128 of what it admits ("code-mode
        connection has too many active cells"), a stdio connection all of it.
          {program} --max-cells-per-session 8
  --unobserved-cell-timeout DURATION
        terminate and close a live cell that nobody has observed for this long: it yielded
        (or completed) and no wait, terminate or exec waiting on it came since (default 30m0s;
        0 keeps such cells until their session closes). Its slot and memory are given back;
        a later wait gets the missing cell's answer, "exec cell ID not found".
          {program} --unobserved-cell-timeout 5m
  --idle-timeout DURATION
        close a network connection that has no request or stream in progress for this long
        (default 2m0s); a session's open lease or a WebSocket is never idle.
          {program} --idle-timeout 30s
  --max-connections N
        connections each network listener holds at once (default 4096); further ones wait
        until one closes.
          {program} --max-connections 1024
  --admin-listen http://IP:PORT
        serve the operator's endpoints on their own listener (default: none): /metrics
        (Prometheus), /healthz (alive), /readyz (503 while draining, full or busy),
        /debug/sessions (live sessions and cells) and pprof under /debug/pprof/. Its URL is
        printed after the --listen addresses. Off loopback it needs the token, which then
        guards everything but /healthz and /readyz. docs/operations.md lists every metric and
        log line.
          {program} --listen grpc://127.0.0.1:8766 --admin-listen http://127.0.0.1:9464
  --max-active-cells N
        cells the gRPC listeners run at once; beyond it Execute is refused with
        RESOURCE_EXHAUSTED and /readyz answers 503 (default 128).
          {program} --max-active-cells 512
  --max-in-flight-requests N
        long gRPC requests (OpenSession, Execute, Wait, Terminate, subscriptions) served at
        once; beyond it they are refused with RESOURCE_EXHAUSTED (default 256).
          {program} --max-in-flight-requests 1024
  --otel-trace-exporter URL
        post the host's OpenTelemetry spans as OTLP/HTTP JSON to URL, a collector's traces
        endpoint (default: none), as Codex's host does: a span per gRPC and V1 request
        (code_mode_host.grpc.execute, …, a child of the caller's W3C traceparent), per cell
        (code_mode.cell), per tool call (execute_tool NAME, OpenTelemetry's GenAI conventions)
        and per notification; a ToolCall then carries its tool call's span as traceparent.
        Batches go out every 5s and at exit. Not with --otel-trace-listen.
          {program} --listen grpc://127.0.0.1:8766 --otel-trace-exporter http://127.0.0.1:4318/v1/traces
  --otel-trace-listen ws://IP:PORT
        stream the same spans to WebSocket clients instead: each batch is one binary message
        holding an OTLP JSON export request; a client that falls 1024 batches behind is
        dropped. Its URL is logged. Off loopback it needs the token.
          {program} --listen grpc://127.0.0.1:8766 --otel-trace-listen ws://127.0.0.1:4319
  --log-level debug|info|warn|error
        the log's level (default info).
          {program} --log-level debug
  --log-format text|json
        the log's format on stderr (default text).
          {program} --log-format json
  --version
        print one line: the program, its module version, VCS revision and time, Go version and
        platform (as the "code-mode host started" log line names them), then exit.
          {program} --version
  -h, --help
        print this help.

Exit status: 0 drained after a signal, or the stdio client closed the connection; 1 a listener
or the runtime failed, or the drain overran its bound; 2 wrong invocation, a refused manifest or
a non-loopback address without a token; 128+N a second signal N during the drain.

Examples:
  {program}
  {program} --listen ws://127.0.0.1:8765 --listen grpc://127.0.0.1:8766 --tools tools.json
  {token_env}=secret {program} --listen grpc://0.0.0.0:8766
`
