package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/grpc/grpcclient"
	"github.com/codemodehq/codemode/pkg/jsruntime"
	"github.com/codemodehq/codemode/pkg/modeltool"
	"github.com/codemodehq/codemode/pkg/toolsources"
	"github.com/codemodehq/codemode/pkg/toolsources/toolprovider"
	"github.com/codemodehq/codemode/pkg/v1/v1client"
)

func init() {
	register("run", command{summary: "run FILE.js (or - for stdin) as one cell and print what the model would see", run: runCommand})
}

// The exit statuses of `codemode run` beyond exitOK, exitFailed and exitUsage.
const (
	// exitStillRunning: the cell yielded and was still running when codemode stopped watching
	// it (no --wait); codemode's exit ended it.
	exitStillRunning = 3
	// exitInterrupted: Ctrl-C terminated the cell (128 + SIGINT, as a shell reports it).
	exitInterrupted = 130
)

var runCmd = flagCommand{
	name:     "codemode run",
	synopsis: "codemode run [--host URL] [--tools FILE] [--yield MS] [--wait] [--repeat N] [--max-output-tokens N] [--json] FILE.js|-",
	help: `usage: codemode run [flags] FILE.js|-

Runs FILE.js (or the source read from stdin, for -) as one cell of a fresh session and prints
what a model would see for it: "Script completed", "Script failed", "Script running with cell ID
N" or "Script terminated", the wall time, then the output. A first line like
// @exec: {"yield_time_ms": 100} sets the cell's yield time and output budget, as in Codex.

Flags (they go before the file):
  --host URL
        run the cell on a running codemode-host (or any Code Mode host) instead of in this
        process: http://ADDR or https://ADDR (gRPC, the URL codemode-host prints for
        --listen grpc://ADDR), grpc://ADDR (the same), unix:PATH (gRPC on a Unix socket) or
        ws://ADDR (V1 over a WebSocket, for --listen ws://ADDR). The cell's tools (--tools,
        or the demo tools) still run here: the host calls back for each. A host started
        with a token cannot be reached this way yet.
          codemode-host --listen grpc://127.0.0.1:8766 &
          codemode run --host http://127.0.0.1:8766 examples/hello.js
  --tools FILE
        the tools the cell can call, from a tool manifest; a manifest with an error is refused
        before anything runs, and its MCP servers are started first (exit status 1 if one does
        not start). Without --tools, two demo tools: echo and upper.
          codemode run --tools examples/tools.json examples/promise_all.js
  --yield MS
        yield time in milliseconds, for the cell's start and for each wait (default: the
        file's pragma, else 10000). 0 yields at once.
          codemode run --yield 200 --wait examples/yield.js
  --wait
        when the cell yields, keep waiting until it finishes, printing its new output as it
        arrives (no header while it runs) and, when it ends, the final response with the wall
        time of the whole cell. Without it a cell still running after its first yield is
        stopped, and codemode exits with status 3.
          codemode run --wait examples/yield.js
  --repeat N
        run the file N times, as successive cells of one session: what a cell store()s, the
        next one load()s (default 1). codemode stops at the first cell that does not complete.
          codemode run --repeat 2 --tools examples/tools.json examples/store_load.js
  --max-output-tokens N
        the output budget of each response in tokens of 4 bytes (default: the pragma's, else
        10000); longer output is truncated in the middle, as the model would see it.
          codemode run --max-output-tokens 20 examples/hello.js
  --json
        print each response's content items as one JSON line (Codex's input_text,
        input_image and input_audio items) instead of the text a model reads.
          codemode run --json examples/hello.js
  -h, --help
        print this help.

Notifications (notify()) are printed on stderr as they arrive. Ctrl-C terminates the cell and
prints what the model would see for a terminated cell.

Exit status: 0 the cell completed; 1 the script failed (or the runtime or an MCP server could
not start);
2 wrong invocation, an unreadable file or a refused manifest; 3 the cell was still running and
codemode stopped it (use --wait); 130 interrupted by Ctrl-C.

Examples:
  codemode run examples/hello.js
  echo 'text(6 * 7)' | codemode run -
  codemode run --tools examples/tools.json examples/promise_all.js
`,
}

// runOptions are the flags of `codemode run`.
type runOptions struct {
	host            string
	tools           string
	yieldMs         optionalUint
	maxOutputTokens optionalUint
	repeat          optionalUint
	wait            bool
	jsonOutput      bool
}

// optionalUint is a flag holding a non-negative integer, or nothing when it was not given.
type optionalUint struct {
	value uint64
	set   bool
}

// String implements flag.Value.
func (o *optionalUint) String() string {
	if o == nil || !o.set {
		return ""
	}
	return strconv.FormatUint(o.value, 10)
}

// Set implements flag.Value: it accepts what a pragma accepts, a non-negative integer.
func (o *optionalUint) Set(s string) error {
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return errors.New("must be a whole number ≥ 0")
	}
	o.value, o.set = v, true
	return nil
}

// valueOr returns the value, or def when the flag was not given.
func (o optionalUint) valueOr(def uint64) uint64 {
	if !o.set {
		return def
	}
	return o.value
}

// pointer returns the value, or nil when the flag was not given.
func (o optionalUint) pointer() *uint64 {
	if !o.set {
		return nil
	}
	v := o.value
	return &v
}

func runCommand(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	interrupts := make(chan os.Signal, 1)
	signal.Notify(interrupts, os.Interrupt)
	defer signal.Stop(interrupts)
	return runWith(args, stdin, stdout, stderr, interrupts)
}

// runWith is runCommand with its interrupts given: tests send them, main gets them from Ctrl-C.
func runWith(args []string, stdin io.Reader, stdout, stderr io.Writer, interrupts <-chan os.Signal) int {
	o, path, done, status := parseRunArgs(args, stdout, stderr)
	if done {
		return status
	}
	stderr = &syncWriter{w: stderr} // notifications arrive on the runtime's goroutines
	source, err := readSource(path, stdin)
	if err != nil {
		fmt.Fprintf(stderr, "codemode run: %v\n", err)
		return exitUsage
	}
	delegate, closeTools, status, err := runDelegate(o.tools, stderr)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return status
	}
	defer closeTools()
	parsed, err := modeltool.ParseExecSource(source)
	if err != nil {
		fmt.Fprintln(stdout, err.Error()) // what the model would see as the exec tool's error
		return exitFailed
	}
	r := &cellRunner{opts: o, delegate: delegate, interrupts: interrupts, stdout: stdout, stderr: stderr}
	status, err = r.run(parsed)
	if err != nil {
		fmt.Fprintf(stderr, "codemode run: %v\n", err)
		return exitFailed
	}
	return status
}

// runFlags defines the flags of `codemode run` into o. Their help is runCmd.help: the flag
// package's own would print each default after a usage text that states it already.
func runFlags(o *runOptions) *flag.FlagSet {
	fs := flag.NewFlagSet(runCmd.name, flag.ContinueOnError)
	fs.StringVar(&o.host, "host", "", "")
	fs.StringVar(&o.tools, "tools", "", "")
	fs.Var(&o.yieldMs, "yield", "")
	fs.Var(&o.maxOutputTokens, "max-output-tokens", "")
	fs.Var(&o.repeat, "repeat", "")
	fs.BoolVar(&o.wait, "wait", false, "")
	fs.BoolVar(&o.jsonOutput, "json", false, "")
	return fs
}

// parseRunArgs reads the flags and the one file argument. done reports that the command must
// stop with status (help printed, or a wrong invocation explained).
func parseRunArgs(args []string, stdout, stderr io.Writer) (o runOptions, path string, done bool, status int) {
	fs := runFlags(&o)
	if done, status := runCmd.parse(fs, args, stdout, stderr); done {
		return o, "", true, status
	}
	rest := fs.Args()
	switch {
	case o.repeat.set && o.repeat.value == 0:
		return o, "", true, runCmd.wrong(stderr, "--repeat must be at least 1")
	case o.host != "" && checkHostURL(o.host) != nil:
		return o, "", true, runCmd.wrong(stderr, checkHostURL(o.host).Error())
	case len(rest) == 0:
		return o, "", true, runCmd.wrong(stderr, "no file given (- reads the source from stdin)")
	case len(rest) > 1 && strings.HasPrefix(rest[1], "-") && rest[1] != "-":
		return o, "", true, runCmd.wrong(stderr, fmt.Sprintf("flag %s comes after the file %s; flags go before it", rest[1], rest[0]))
	case len(rest) > 1:
		return o, "", true, runCmd.wrong(stderr, fmt.Sprintf("one file expected, got %d: %s", len(rest), strings.Join(rest, " ")))
	}
	return o, rest[0], false, exitOK
}

func readSource(path string, stdin io.Reader) (string, error) {
	var b []byte
	var err error
	if path == "-" {
		b, err = io.ReadAll(stdin)
	} else {
		b, err = os.ReadFile(path)
	}
	if err != nil {
		return "", fmt.Errorf("reading the source: %w", err)
	}
	return string(b), nil
}

// runDelegate serves the manifest's tools (toolsources.Open: its commands, its MCP servers and
// its exec-server, started now), or the demo tools without one, and prints notifications on
// stderr. closeTools stops the servers. A refused manifest or an unreadable file is a usage error
// (exit status 2), a source that does not start a failure (1): the status says which.
func runDelegate(manifest string, stderr io.Writer) (d *toolprovider.Delegate, closeTools func() error, status int, err error) {
	sets, closeTools := []toolprovider.ToolSet{demoTools{}}, func() error { return nil }
	if manifest != "" {
		sets, closeTools, err = toolsources.Open(context.Background(), manifest, toolsources.Options{})
		if err != nil {
			if errors.Is(err, toolsources.ErrNotStarted) {
				return nil, nil, exitFailed, err
			}
			return nil, nil, exitUsage, err
		}
	}
	notify := func(_ context.Context, _ string, cellID codemode.CellID, text string) error {
		fmt.Fprintf(stderr, "notify (cell %s): %s\n", cellID, text)
		return nil
	}
	d, err = toolprovider.NewDelegate(notify, sets...)
	if err != nil {
		_ = closeTools()
		return nil, nil, exitUsage, err
	}
	return d, closeTools, exitOK, nil
}

// cellRunner runs one cell and prints its observations.
type cellRunner struct {
	opts       runOptions
	delegate   *toolprovider.Delegate
	interrupts <-chan os.Signal
	stdout     io.Writer
	stderr     io.Writer
	maxTokens  int
}

// run executes the cell (--repeat times, as successive cells) in a fresh session, in-process or
// on --host, and prints each observation. It stops at the first cell that does not complete
// successfully and returns the exit status.
func (r *cellRunner) run(parsed modeltool.ExecSource) (int, error) {
	req := r.request(parsed)
	provider, err := openProvider(r.opts.host)
	if err != nil {
		return exitFailed, err
	}
	defer provider.Close()
	session, err := provider.CreateSession(context.Background(), codemode.FromBlocking(r.delegate), codemode.SessionCellExecutionLimits{})
	if err != nil && r.opts.host != "" {
		return exitFailed, fmt.Errorf("opening a session on %s: %w (is a Code Mode host listening there?)", r.opts.host, err)
	}
	if err != nil {
		return exitFailed, fmt.Errorf("creating a session: %w", err)
	}
	// Ends a cell still running (no --wait): its tool commands are killed with it.
	defer session.Shutdown(context.Background())
	for range r.opts.repeat.valueOr(1) {
		if status, err := r.runCell(session, req); status != exitOK || err != nil {
			return status, err
		}
	}
	return exitOK, nil
}

// closingProvider is a session provider the command closes when it is done: the in-process
// runtime, or a client of a running host.
type closingProvider interface {
	codemode.SessionProvider
	Close() error
}

// openProvider returns the in-process runtime without a host, else a client of the host at
// hostURL (checked by checkHostURL): gRPC for http(s)://, grpc:// and unix:, V1 for ws(s)://.
func openProvider(hostURL string) (closingProvider, error) {
	switch scheme, _, _ := strings.Cut(hostURL, ":"); scheme {
	case "":
		// No runtimes kept ready: one process runs a few cells, and a pool refilling in the
		// background competes with the first cell for the CPU (~10 ms of a ~170 ms run on 2
		// cores).
		provider, err := jsruntime.NewProvider(jsruntime.Options{PoolSize: -1})
		if err != nil {
			return nil, fmt.Errorf("starting the runtime: %w", err)
		}
		return provider, nil
	case "ws", "wss":
		return v1client.NewWebSocketProvider(hostURL, false, v1client.Options{}), nil
	default:
		provider, err := grpcclient.New(grpcEndpoint(hostURL), grpcclient.Options{})
		if err != nil {
			return nil, fmt.Errorf("--host %s: %w", hostURL, err)
		}
		return provider, nil
	}
}

// grpcEndpoint is the gRPC client's endpoint for a --host URL: grpc://ADDR, as --listen names
// the listener, is served at http://ADDR (the URL codemode-host prints).
func grpcEndpoint(hostURL string) string {
	if addr, ok := strings.CutPrefix(hostURL, "grpc://"); ok {
		return "http://" + addr
	}
	return hostURL
}

// checkHostURL refuses a --host URL no client here speaks, or one the gRPC client refuses (a
// path, credentials, no host), before anything runs.
func checkHostURL(hostURL string) error {
	scheme, _, _ := strings.Cut(hostURL, ":")
	switch scheme {
	case "ws", "wss":
		if u, err := url.Parse(hostURL); err != nil || u.Host == "" {
			return fmt.Errorf("--host %s: a WebSocket URL needs a host, like ws://127.0.0.1:8765", hostURL)
		}
		return nil
	case "http", "https", "grpc", "unix":
		provider, err := grpcclient.New(grpcEndpoint(hostURL), grpcclient.Options{})
		if err != nil {
			return fmt.Errorf("--host %s: %w", hostURL, err)
		}
		return provider.Close()
	}
	return fmt.Errorf("--host %s: use http://ADDR or grpc://ADDR (gRPC), unix:PATH (gRPC on a Unix socket) or ws://ADDR (V1 WebSocket), as codemode-host prints its listeners", hostURL)
}

// runCell executes one cell and prints its observations until it is finished, or yields without
// --wait, or is interrupted.
func (r *cellRunner) runCell(session codemode.Session, req codemode.ExecuteRequest) (int, error) {
	ctx := context.Background()
	start := time.Now()
	cell, err := session.Execute(ctx, req)
	if err != nil {
		return exitFailed, fmt.Errorf("execute: %w", err)
	}
	observe := cell.InitialResponse
	for followUp := false; ; followUp = true {
		responses, interrupted, err := r.observeUnlessInterrupted(session, cell.CellID, observe)
		if err != nil {
			return exitFailed, err
		}
		for i, resp := range responses {
			if err := r.printObservation(resp, time.Since(start), followUp || i > 0); err != nil {
				return exitFailed, err
			}
		}
		last := responses[len(responses)-1]
		switch {
		case interrupted:
			return exitInterrupted, nil
		case last.IsTerminal() && modeltool.ResponseSucceeded(last):
			return exitOK, nil
		case last.IsTerminal():
			return exitFailed, nil
		case !r.opts.wait:
			fmt.Fprintf(r.stderr, "codemode run: cell %s is still running; codemode stops it on exit (--wait waits for it to finish)\n", cell.CellID)
			return exitStillRunning, nil
		}
		observe = func(ctx context.Context) (codemode.RuntimeResponse, error) {
			outcome, err := session.Wait(ctx, codemode.WaitRequest{CellID: cell.CellID, YieldTimeMs: r.waitYield()})
			return outcome.Response, err
		}
	}
}

// observeUnlessInterrupted runs observe; an interrupt first terminates the cell instead. It
// returns the responses to print: the observation, or after an interrupt what the model would
// see for the terminated cell (preceded by an observation the interrupt crossed).
func (r *cellRunner) observeUnlessInterrupted(session codemode.Session, id codemode.CellID, observe func(context.Context) (codemode.RuntimeResponse, error)) ([]codemode.RuntimeResponse, bool, error) {
	type observed struct {
		resp codemode.RuntimeResponse
		err  error
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan observed, 1)
	go func() {
		resp, err := observe(ctx)
		done <- observed{resp, err}
	}()
	select {
	case o := <-done:
		if o.err != nil {
			return nil, false, o.err
		}
		return []codemode.RuntimeResponse{o.resp}, false, nil
	case <-r.interrupts:
	}
	outcome, err := session.Terminate(context.Background(), id)
	if err != nil {
		return nil, true, fmt.Errorf("terminating the cell: %w", err)
	}
	// An observer still waiting gives up (it consumes nothing); one answered just before the
	// terminate landed holds a response to show first.
	cancel()
	o := <-done
	var responses []codemode.RuntimeResponse
	if o.err == nil && o.resp.Kind != codemode.Terminated {
		responses = append(responses, o.resp)
	}
	if !outcome.Missing && (len(responses) == 0 || responses[0].Kind == codemode.Yielded) {
		responses = append(responses, outcome.Response)
	}
	if len(responses) == 0 {
		responses = append(responses, outcome.Response)
	}
	return responses, true, nil
}

// request builds the cell's ExecuteRequest: the flags override the pragma, which overrides
// Codex's defaults.
func (r *cellRunner) request(parsed modeltool.ExecSource) codemode.ExecuteRequest {
	yield := parsed.YieldTimeMs
	if p := r.opts.yieldMs.pointer(); p != nil {
		yield = p
	}
	if yield == nil {
		v := codemode.DefaultExecYieldTimeMs
		yield = &v
	}
	tokens := parsed.MaxOutputTokens
	if p := r.opts.maxOutputTokens.pointer(); p != nil {
		tokens = p
	}
	r.maxTokens = modeltool.ResolveMaxOutputTokens(tokens)
	maxTokens := r.maxTokens
	return codemode.ExecuteRequest{
		ToolCallID:      "codemode-run",
		EnabledTools:    r.delegate.Definitions(),
		Source:          parsed.Code,
		YieldTimeMs:     yield,
		MaxOutputTokens: &maxTokens,
	}
}

func (r *cellRunner) waitYield() uint64 {
	if p := r.opts.yieldMs.pointer(); p != nil {
		return *p
	}
	return codemode.DefaultWaitYieldTimeMs
}

// printObservation prints one observation of a cell; wall is the time since the cell started.
// The first one (followUp false) and the last one (the cell ended: the state changed) are
// printed whole, as the model would read them. In between, while --wait follows a running cell,
// only new output is printed: a wait that saw none prints nothing, one that saw some prints it
// without repeating the "Script running" header.
func (r *cellRunner) printObservation(resp codemode.RuntimeResponse, wall time.Duration, followUp bool) error {
	if !followUp || resp.IsTerminal() {
		return r.print(resp, wall)
	}
	if len(resp.ContentItems) == 0 {
		return nil
	}
	if r.opts.jsonOutput {
		return r.print(resp, wall)
	}
	// The first item is the header ("Script running with cell ID N", wall time, "Output:").
	return modeltool.WriteTerminal(r.stdout, modeltool.FormatRuntimeResponse(resp, wall, r.maxTokens)[1:])
}

// print writes one response as the model would read it, or as JSON content items with --json.
func (r *cellRunner) print(resp codemode.RuntimeResponse, wall time.Duration) error {
	if r.opts.jsonOutput {
		enc := json.NewEncoder(r.stdout)
		enc.SetEscapeHTML(false)
		return enc.Encode(contentItemsJSON(resp.ContentItems))
	}
	return modeltool.WriteTerminal(r.stdout, modeltool.FormatRuntimeResponse(resp, wall, r.maxTokens))
}

// syncWriter serializes writes to w.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

// Write implements io.Writer.
func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// Codex's FunctionCallOutputContentItem shapes, fields in its order (tag first).
type (
	textItemJSON struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	imageItemJSON struct {
		Type     string `json:"type"`
		ImageURL string `json:"image_url"`
		Detail   string `json:"detail,omitempty"`
	}
	audioItemJSON struct {
		Type     string `json:"type"`
		AudioURL string `json:"audio_url"`
	}
)

// contentItemsJSON renders items in Codex's FunctionCallOutputContentItem shape.
func contentItemsJSON(items []codemode.ContentItem) []any {
	out := make([]any, 0, len(items))
	for _, item := range items {
		switch item := item.(type) {
		case codemode.InputText:
			out = append(out, textItemJSON{"input_text", item.Text})
		case codemode.InputImage:
			out = append(out, imageItemJSON{"input_image", item.ImageURL, string(item.Detail)})
		case codemode.InputAudio:
			out = append(out, audioItemJSON{"input_audio", item.AudioURL})
		}
	}
	return out
}
