// Command codemode is the codemode CLI: run a cell, describe what a model is shown, inspect wire
// traffic, and (later) serve the host.
//
// Each subcommand lives in its own file and registers itself in commands.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/codemodehq/codemode/pkg/hostprogram"
)

// command is one subcommand. run receives the arguments after the subcommand name.
type command struct {
	summary string
	run     func(args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

// commands is filled by the init functions of the subcommand files.
var commands = map[string]command{}

// helps holds the --help text of commands that do not answer --help themselves (commands with
// flags do, through flagCommand); dispatch prints it for `codemode help NAME` and for
// `codemode NAME … --help`.
var helps = map[string]string{}

func register(name string, c command) {
	if _, dup := commands[name]; dup {
		panic("codemode: duplicate subcommand " + name)
	}
	commands[name] = c
}

// The exit statuses every command shares; run adds its own (run.go).
const (
	exitOK = 0
	// exitFailed: the work failed (a script error, a runtime that could not start).
	exitFailed = 1
	// exitUsage: the invocation was wrong (flags, arguments, an unreadable or refused file).
	exitUsage = 2
)

func main() {
	os.Exit(dispatch(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func dispatch(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	name, rest := args[0], args[1:]
	if name == "--version" || name == "-version" {
		fmt.Fprintln(stdout, hostprogram.VersionLine("codemode"))
		return exitOK
	}
	if isHelpFlag(name) || name == "help" {
		return helpCommand(rest, stdout, stderr)
	}
	c, ok := commands[name]
	if !ok {
		fmt.Fprintf(stderr, "codemode: unknown command %q\n\n", name)
		usage(stderr)
		return exitUsage
	}
	if text, ok := helps[name]; ok && slices.ContainsFunc(rest, isHelpFlag) {
		fmt.Fprint(stdout, text)
		return exitOK
	}
	return c.run(rest, stdin, stdout, stderr)
}

// helpCommand is `codemode help [NAME]`: the command list, or one command's help, on stdout.
func helpCommand(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stdout)
		return exitOK
	}
	if text, ok := helps[args[0]]; ok {
		fmt.Fprint(stdout, text)
		return exitOK
	}
	if c, ok := commands[args[0]]; ok {
		return c.run([]string{"--help"}, strings.NewReader(""), stdout, stderr)
	}
	fmt.Fprintf(stderr, "codemode help: unknown command %q\n\n", args[0])
	usage(stderr)
	return exitUsage
}

func isHelpFlag(arg string) bool { return arg == "-h" || arg == "-help" || arg == "--help" }

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: codemode <command> [arguments]\n\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-8s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\n`codemode help <command>` or `codemode <command> --help` explains a command, its flags and exit statuses;\n`codemode --version` prints the version, VCS revision, Go version and platform.")
}

// flagCommand is what commands with flags share: their help text, and a short synopsis printed
// after a wrong invocation.
type flagCommand struct {
	name     string // "codemode run"
	synopsis string // "codemode run [flags] FILE.js|-"
	help     string // the whole --help text
}

// parse parses args into fs. It returns done=true with the exit status when the command must
// stop: --help (the help on stdout, 0) or a wrong flag (what was wrong, then the synopsis, on
// stderr, 2).
func (c flagCommand) parse(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (done bool, status int) {
	fs.SetOutput(io.Discard) // the flag package's own usage lists defaults; ours are in help
	err := fs.Parse(args)
	switch {
	case err == nil:
		return false, exitOK
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(stdout, c.help)
		return true, exitOK
	default:
		return true, c.wrong(stderr, hostprogram.FlagError(err).Error())
	}
}

// wrong reports a wrong invocation: what was wrong, then the synopsis. It returns exitUsage.
func (c flagCommand) wrong(stderr io.Writer, problem string) int {
	fmt.Fprintf(stderr, "%s: %s\nusage: %s\n(`%s --help` explains every flag)\n", c.name, problem, c.synopsis, c.name)
	return exitUsage
}
