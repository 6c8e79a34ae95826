package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"github.com/codemodehq/codemode/pkg/modeltool"
)

func init() {
	register("describe", command{summary: "print the exec and wait tools a model is shown, with the tools' TypeScript declarations", run: describeCommand})
}

var describeCmd = flagCommand{
	name:     "codemode describe",
	synopsis: "codemode describe [--tools FILE] [--json]",
	help: `usage: codemode describe [flags]

Prints what a model is shown of Code Mode: the exec tool's description (the JavaScript helpers,
then one section per tool with its TypeScript declaration, rendered from the tool's input and
output schemas, as Codex shows them when tools are reachable only through exec) and the wait
tool's description and parameters.

Flags:
  --tools FILE
        the tools to describe, from a tool manifest; a manifest with an error is refused. Its
        MCP servers are started to list their tools (then stopped), and their tools shown as
        Codex shows MCP tools: CallToolResult<…> results, with the shared MCP types.
        Without --tools, the demo tools of codemode run (echo and upper).
          codemode describe --tools examples/tools.json
  --json
        print the two tools as the Responses API's JSON (a custom tool "exec" with its Lark
        grammar, a function tool "wait" with its parameters) instead of text.
          codemode describe --tools examples/tools.json --json
  -h, --help
        print this help.

Exit status: 0 described; 1 an MCP server that does not start; 2 wrong invocation, an
unreadable or refused manifest.

Examples:
  codemode describe
  codemode describe --tools examples/tools.json | less
`,
}

// describeOptions are the flags of `codemode describe`.
type describeOptions struct {
	tools      string
	jsonOutput bool
}

// describeFlags defines the flags of `codemode describe` into o (their help is describeCmd.help).
func describeFlags(o *describeOptions) *flag.FlagSet {
	fs := flag.NewFlagSet(describeCmd.name, flag.ContinueOnError)
	fs.StringVar(&o.tools, "tools", "", "")
	fs.BoolVar(&o.jsonOutput, "json", false, "")
	return fs
}

func describeCommand(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	var o describeOptions
	fs := describeFlags(&o)
	if done, status := describeCmd.parse(fs, args, stdout, stderr); done {
		return status
	}
	if fs.NArg() > 0 {
		return describeCmd.wrong(stderr, fmt.Sprintf("unexpected argument %s (the manifest goes after --tools)", fs.Arg(0)))
	}
	delegate, closeTools, status, err := runDelegate(o.tools, io.Discard)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return status
	}
	defer closeTools()
	tools := delegate.Definitions()
	if !o.jsonOutput {
		fmt.Fprintf(stdout, "## exec (freeform tool: the input is JavaScript source)\n\n%s\n\n## wait (function tool)\n\n%s\n",
			modeltool.ExecToolDescription(tools), modeltool.WaitToolDescription())
		return exitOK
	}
	raw, err := modeltool.ModelToolsJSON(tools)
	if err == nil {
		err = writeIndentedJSON(stdout, raw)
	}
	if err != nil {
		fmt.Fprintf(stderr, "codemode describe: %v\n", err)
		return exitFailed
	}
	return exitOK
}

// writeIndentedJSON writes raw indented, its keys in their order (the Responses API's).
func writeIndentedJSON(w io.Writer, raw []byte) error {
	var out bytes.Buffer
	if err := json.Indent(&out, raw, "", "  "); err != nil {
		return err
	}
	out.WriteByte('\n')
	_, err := out.WriteTo(w)
	return err
}
