package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/exectool"
	"github.com/codemodehq/codemode/pkg/jsruntime"
)

func init() {
	register("run", command{summary: "run FILE.js (or - for stdin) as one cell and print what the model would see", run: runCommand})
}

// runOptions are the flags of `codemode run`.
type runOptions struct {
	yieldMs         int64
	maxOutputTokens int64
	wait            bool
	jsonOutput      bool
}

func runCommand(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("codemode run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o runOptions
	fs.Int64Var(&o.yieldMs, "yield", -1, "yield time in ms for exec and each wait (default: the pragma's, else 10000)")
	fs.Int64Var(&o.maxOutputTokens, "max-output-tokens", -1, "output token budget (default: the pragma's, else 10000)")
	fs.BoolVar(&o.wait, "wait", false, "keep waiting on a yielded cell until it finishes")
	fs.BoolVar(&o.jsonOutput, "json", false, "print each response's raw content items as one JSON line")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: codemode run [flags] FILE.js|-")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 || o.yieldMs < -1 || o.maxOutputTokens < -1 {
		fs.Usage()
		return 2
	}
	source, err := readSource(fs.Arg(0), stdin)
	if err != nil {
		fmt.Fprintf(stderr, "codemode run: %v\n", err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	code, err := runCell(ctx, source, o, stdout, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "codemode run: %v\n", err)
		return 1
	}
	return code
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
		return "", fmt.Errorf("reading source: %w", err)
	}
	return string(b), nil
}

// runCell executes source in a fresh in-process session and prints each observation. The exit
// code is 0 when the last response succeeded, 1 when the script failed.
func runCell(ctx context.Context, source string, o runOptions, stdout, stderr io.Writer) (int, error) {
	parsed, err := exectool.ParseExecSource(source)
	if err != nil {
		// The model would see this text as the exec tool's error.
		fmt.Fprintln(stdout, err.Error())
		return 1, nil
	}
	req, maxTokens := execRequest(parsed, o)
	provider, err := jsruntime.NewProvider(jsruntime.Options{PoolSize: 1})
	if err != nil {
		return 1, fmt.Errorf("starting the runtime: %w", err)
	}
	defer provider.Close()
	session, err := provider.CreateSession(ctx, demoDelegate{stderr: stderr}, codemode.SessionCellExecutionLimits{})
	if err != nil {
		return 1, fmt.Errorf("creating a session: %w", err)
	}
	defer session.Shutdown(context.Background())

	start := time.Now()
	cell, err := session.Execute(ctx, req)
	if err != nil {
		return 1, fmt.Errorf("execute: %w", err)
	}
	resp, err := cell.InitialResponse(ctx)
	for {
		if err != nil {
			return 1, err
		}
		if err := printResponse(stdout, resp, time.Since(start), maxTokens, o.jsonOutput); err != nil {
			return 1, err
		}
		if resp.IsTerminal() || !o.wait {
			break
		}
		start = time.Now()
		var outcome codemode.WaitOutcome
		outcome, err = session.Wait(ctx, codemode.WaitRequest{CellID: resp.CellID, YieldTimeMs: waitYield(o)})
		resp = outcome.Response
	}
	if !exectool.ResponseSucceeded(resp) {
		return 1, nil
	}
	return 0, nil
}

func execRequest(parsed exectool.ExecSource, o runOptions) (codemode.ExecuteRequest, int) {
	yield := parsed.YieldTimeMs
	if o.yieldMs >= 0 {
		v := uint64(o.yieldMs)
		yield = &v
	}
	if yield == nil {
		v := codemode.DefaultExecYieldTimeMs
		yield = &v
	}
	tokens := parsed.MaxOutputTokens
	if o.maxOutputTokens >= 0 {
		v := uint64(o.maxOutputTokens)
		tokens = &v
	}
	maxTokens := exectool.ResolveMaxOutputTokens(tokens)
	return codemode.ExecuteRequest{
		ToolCallID:      "codemode-run",
		EnabledTools:    demoTools(),
		Source:          parsed.Code,
		YieldTimeMs:     yield,
		MaxOutputTokens: &maxTokens,
	}, maxTokens
}

func waitYield(o runOptions) uint64 {
	if o.yieldMs >= 0 {
		return uint64(o.yieldMs)
	}
	return codemode.DefaultWaitYieldTimeMs
}

func printResponse(w io.Writer, resp codemode.RuntimeResponse, wall time.Duration, maxTokens int, raw bool) error {
	if raw {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		return enc.Encode(contentItemsJSON(resp.ContentItems))
	}
	return exectool.WriteTerminal(w, exectool.FormatRuntimeResponse(resp, wall, maxTokens))
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

// demoTools are the built-in tools of `codemode run`, so examples can show nested calls before
// a real tool owner is attached.
func demoTools() []codemode.ToolDefinition {
	return []codemode.ToolDefinition{
		{
			Name: "echo", ToolName: codemode.ToolName{Name: "echo"}, Kind: codemode.ToolKindFunction,
			Description: "Returns its input object unchanged.",
			InputSchema: json.RawMessage(`{"type":"object"}`),
		},
		{
			Name: "upper", ToolName: codemode.ToolName{Name: "upper"}, Kind: codemode.ToolKindFreeform,
			Description: "Returns its string input in upper case.",
		},
	}
}

// demoDelegate serves demoTools and prints notifications to stderr.
type demoDelegate struct {
	stderr io.Writer
}

func (d demoDelegate) InvokeTool(_ context.Context, call codemode.NestedToolCall) (json.RawMessage, error) {
	switch call.ToolName.Name {
	case "echo":
		if call.Input == nil {
			return json.RawMessage(`{}`), nil
		}
		return call.Input, nil
	case "upper":
		var s string
		if err := json.Unmarshal(call.Input, &s); err != nil {
			return nil, errors.New("tool `upper` expects a string input")
		}
		return json.Marshal(strings.ToUpper(s))
	default:
		return nil, fmt.Errorf("unknown tool %s", call.ToolName)
	}
}

func (d demoDelegate) Notify(_ context.Context, _ string, cellID codemode.CellID, text string) error {
	fmt.Fprintf(d.stderr, "notify (cell %s): %s\n", cellID, text)
	return nil
}

func (demoDelegate) CellClosed(codemode.CellID) {}
