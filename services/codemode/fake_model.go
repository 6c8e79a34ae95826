package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/codemodehq/codemode/pkg/testenv/fakemodel"
)

func init() {
	register("fake-model", command{summary: "fake-model --exec SOURCE | --script FILE: a scripted model for Codex, offline on 127.0.0.1", run: fakeModelCommand})
}

var fakeModelCmd = flagCommand{
	name:     "codemode fake-model",
	synopsis: "codemode fake-model [--exec SOURCE | --exec-file FILE.js | --wait CELL]... [--say TEXT] [--script FILE.json] [--port N] [--codex-home DIR] [--repeat]",
	help: `usage: codemode fake-model [flags]

Serves a scripted model on 127.0.0.1 so that the real Codex runs a turn offline: it answers
Codex's Responses API requests (POST /v1/responses) with a Server-Sent Events stream, one
scripted reply per request, in order. A turn is: the model calls exec with a cell's source,
Codex runs the cell on its code-mode host and sends the output back in the next request, and
the model ends the turn with a message. The command prints the base URL for Codex's provider
configuration (http://127.0.0.1:PORT/v1) on stdout, then, for every request after the first,
the tool outputs Codex sent back (what the cell printed), and serves until Ctrl-C.

The replies come from the flags, in their order on the command line, then a closing message
(--say); or from a JSON file (--script).

Flags:
  --exec SOURCE
        a reply calling Codex's exec tool with SOURCE, the JavaScript of one cell; repeatable.
          codemode fake-model --exec 'text(typeof Intl)'
  --exec-file FILE.js
        the same with the source read from FILE.js; repeatable.
          codemode fake-model --exec-file examples/hello.js
  --wait CELL
        a reply calling Codex's wait tool for cell CELL (a yielded cell), waiting up to 60 s.
          codemode fake-model --exec 'yield_control(); text("later")' --wait 1
  --say TEXT
        the assistant message that ends the turn (default "done").
          codemode fake-model --exec 'text(1)' --say finished
  --script FILE.json
        the replies from a file instead: a JSON array whose elements are {"exec": SOURCE},
        {"wait": CELL}, {"say": TEXT}, or {"items": [...]} (raw Responses API output items).
          codemode fake-model --script turn.json
  --port N
        the port on 127.0.0.1 (default 0: a free one, printed).
          codemode fake-model --port 8700 --exec 'text(1)'
  --codex-home DIR
        also write DIR/config.toml, a CODEX_HOME that points Codex at this model with code
        mode on and nothing reaching the network, and print how to run codex exec with it.
          codemode fake-model --codex-home /tmp/codex-offline --exec 'text(1)'
  --repeat
        after the last reply, start the script again (one codex exec per script), instead of
        answering further requests with an error.
          codemode fake-model --repeat --exec 'text(1)'
  -h, --help
        print this help.

Exit status: 0 stopped by Ctrl-C or SIGTERM; 1 the port could not be bound or DIR not written;
2 wrong invocation (no reply scripted, an unreadable or malformed file).

Examples:
  codemode fake-model --codex-home /tmp/codex-offline --exec 'text(typeof Intl)'
  codemode fake-model --exec-file cell.js --say done --port 8700
`,
}

// fakeModelOptions are the flags of `codemode fake-model`.
type fakeModelOptions struct {
	replies   []fakemodel.Reply
	calls     int
	say       string
	script    string
	port      uint
	codexHome string
	repeat    bool
}

// addExec appends a reply calling exec with source.
func (o *fakeModelOptions) addExec(source string) {
	o.calls++
	o.replies = append(o.replies, fakemodel.Exec(fmt.Sprintf("call_%d", o.calls), source))
}

// addWait appends a reply calling wait for cell.
func (o *fakeModelOptions) addWait(cell string) {
	o.calls++
	o.replies = append(o.replies, waitReply(fmt.Sprintf("call_%d", o.calls), cell))
}

// waitReply calls Codex's wait tool for cell, waiting up to a minute.
func waitReply(callID, cell string) fakemodel.Reply {
	return fakemodel.Function(callID, "wait", map[string]any{"cell_id": cell, "yield_time_ms": 60000})
}

// fakeModelFlags defines the flags of `codemode fake-model` into o.
func fakeModelFlags(o *fakeModelOptions) *flag.FlagSet {
	fs := flag.NewFlagSet(fakeModelCmd.name, flag.ContinueOnError)
	fs.Func("exec", "", func(s string) error {
		o.addExec(s)
		return nil
	})
	fs.Func("exec-file", "", func(path string) error {
		src, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("reading the cell: %w", err)
		}
		o.addExec(string(src))
		return nil
	})
	fs.Func("wait", "", func(cell string) error {
		o.addWait(cell)
		return nil
	})
	fs.StringVar(&o.say, "say", "done", "")
	fs.StringVar(&o.script, "script", "", "")
	fs.UintVar(&o.port, "port", 0, "")
	fs.StringVar(&o.codexHome, "codex-home", "", "")
	fs.BoolVar(&o.repeat, "repeat", false, "")
	return fs
}

func fakeModelCommand(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(signals)
	return fakeModelWith(args, stdout, stderr, signals)
}

// fakeModelWith is fakeModelCommand with its signals given: it serves until one arrives.
func fakeModelWith(args []string, stdout, stderr io.Writer, signals <-chan os.Signal) int {
	var o fakeModelOptions
	fs := fakeModelFlags(&o)
	if done, status := fakeModelCmd.parse(fs, args, stdout, stderr); done {
		return status
	}
	script, err := o.scriptReplies(fs)
	if err != nil {
		return fakeModelCmd.wrong(stderr, err.Error())
	}
	outputs := &outputPrinter{w: stdout}
	model, err := fakemodel.StartWith(fakemodel.Options{
		Addr:      fmt.Sprintf("127.0.0.1:%d", o.port),
		Repeat:    o.repeat,
		OnRequest: outputs.print,
	}, script...)
	if err != nil {
		fmt.Fprintf(stderr, "codemode fake-model: %v\n", err)
		return exitFailed
	}
	defer model.Close()
	fmt.Fprintln(outputs, model.URL)
	if o.codexHome != "" {
		if err := writeOfflineHome(outputs, o.codexHome, model.URL); err != nil {
			fmt.Fprintf(stderr, "codemode fake-model: %v\n", err)
			return exitFailed
		}
	}
	<-signals
	if err := model.Err(); err != nil {
		fmt.Fprintf(stderr, "codemode fake-model: %v\n", err)
	}
	return exitOK
}

// scriptReplies is the script the flags describe: the file's, or the flags' replies and the
// closing message.
func (o *fakeModelOptions) scriptReplies(fs *flag.FlagSet) ([]fakemodel.Reply, error) {
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q (a cell's source goes after --exec)", fs.Arg(0))
	}
	if o.port > 65535 {
		return nil, fmt.Errorf("--port must be a port number from 0 to 65535, not %d", o.port)
	}
	if o.script != "" {
		if len(o.replies) > 0 {
			return nil, errors.New("--script replaces --exec, --exec-file and --wait: give one or the other")
		}
		return readScript(o.script)
	}
	if len(o.replies) == 0 {
		return nil, errors.New("nothing scripted: give the cell with --exec SOURCE (or --exec-file FILE.js), or a --script file")
	}
	return append(o.replies, fakemodel.Say(o.say)), nil
}

// scriptStep is one element of a --script file.
type scriptStep struct {
	Exec  *string          `json:"exec"`
	Wait  *string          `json:"wait"`
	Say   *string          `json:"say"`
	Items []map[string]any `json:"items"`
}

// readScript reads a --script file: a JSON array of steps, each one reply.
func readScript(path string) ([]fakemodel.Reply, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--script: %w", err)
	}
	var steps []scriptStep
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&steps); err != nil {
		return nil, fmt.Errorf("--script %s: want a JSON array of {\"exec\": SOURCE}, {\"wait\": CELL}, {\"say\": TEXT} or {\"items\": [...]}: %w", path, err)
	}
	if len(steps) == 0 {
		return nil, fmt.Errorf("--script %s: the array is empty; script at least one reply", path)
	}
	replies := make([]fakemodel.Reply, 0, len(steps))
	for i, s := range steps {
		r, err := s.reply(i + 1)
		if err != nil {
			return nil, fmt.Errorf("--script %s: element %d: %w", path, i+1, err)
		}
		replies = append(replies, r)
	}
	return replies, nil
}

// reply is the step's reply; n numbers its tool call.
func (s scriptStep) reply(n int) (fakemodel.Reply, error) {
	set := 0
	for _, given := range []bool{s.Exec != nil, s.Wait != nil, s.Say != nil, s.Items != nil} {
		if given {
			set++
		}
	}
	if set != 1 {
		return nil, errors.New(`give exactly one of "exec", "wait", "say" and "items"`)
	}
	callID := fmt.Sprintf("call_%d", n)
	switch {
	case s.Exec != nil:
		return fakemodel.Exec(callID, *s.Exec), nil
	case s.Wait != nil:
		return waitReply(callID, *s.Wait), nil
	case s.Say != nil:
		return fakemodel.Say(*s.Say), nil
	}
	return fakemodel.Reply(s.Items), nil
}

// writeOfflineHome writes the offline CODEX_HOME dir for the model at url and prints how to
// run Codex with it.
func writeOfflineHome(w io.Writer, dir, url string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if err := fakemodel.WriteHome(abs, url); err != nil {
		return err
	}
	fmt.Fprintf(w, "wrote %s: Codex with code mode on, this model, nothing on the network. Run one turn with:\n", filepath.Join(abs, "config.toml"))
	fmt.Fprintf(w, "  CODEX_HOME=%s HTTPS_PROXY=http://127.0.0.1:9 NO_PROXY=127.0.0.1,localhost codex exec --skip-git-repo-check --dangerously-bypass-approvals-and-sandbox 'run the script'\n", abs)
	return nil
}

// outputPrinter prints the tool outputs Codex sends back to the model, each once, and every
// other line of the command, under one lock (requests arrive on the server's goroutines).
type outputPrinter struct {
	mu   sync.Mutex
	w    io.Writer
	seen int // how many tool outputs the previous request carried
}

// print prints the outputs in request n's body that the previous request did not carry: a
// request repeats the conversation so far, and one with fewer outputs starts a new turn.
func (p *outputPrinter) print(n int, body []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	outputs := fakemodel.ToolOutputs(body)
	from := p.seen
	if len(outputs) < from {
		from = 0
	}
	for _, o := range outputs[from:] {
		fmt.Fprintf(p.w, "request %d: output of %s: %s\n", n, o.CallID, o.Output)
	}
	p.seen = len(outputs)
}

// Write writes b under the lock.
func (p *outputPrinter) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.w.Write(b)
}
