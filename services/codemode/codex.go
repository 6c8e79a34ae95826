package main

import (
	"flag"
	"fmt"
	"io"
	"time"
)

func init() {
	register("codex", command{summary: "codex install|uninstall|doctor: put codemode's host under an installed Codex, switch back, and prove which host Codex runs", run: codexCommand})
}

var codexCmd = flagCommand{
	name:     "codemode codex",
	synopsis: "codemode codex install|uninstall|doctor [--codex PATH | --prefix DIR] [--host PATH] [--timeout DURATION]",
	help: `usage: codemode codex install|uninstall|doctor [flags]

Puts codemode's host under an installed Codex, takes it out again, and checks which host Codex
runs. Codex spawns its code-mode host from one place only: codex-code-mode-host beside the
binary it runs, which for an npm install is the platform package's folder
(node_modules/@openai/codex-<platform>/vendor/<target>/bin), not the node_modules/.bin/codex
shim's. A host put anywhere else is ignored without a word, and Codex runs its own V8 host.

  install    finds Codex, keeps its own host aside as codex-code-mode-host.codex-original
             (never overwritten once kept), and copies codemode's host in its place. Running it
             again with the same host changes nothing and says so.
  uninstall  puts Codex's own host back, byte for byte.
  doctor     says which host Codex will spawn and over which transport, checks Codex's version
             and the capabilities it will ask for, then runs one real Codex turn offline (codex
             exec against codemode's scripted model, in a temporary CODEX_HOME) and finds
             codemode's start line in Codex's log of its host: proof that the cell ran on
             codemode. A host in the wrong place, a missing host or Codex's own host is a
             FAIL line with the fix.

Each prints what it did or found, with paths.

Flags (they go after the subcommand):
  --codex PATH
        the codex command (the npm shim, or the binary itself) instead of codex on PATH.
          codemode codex install --codex ./node_modules/.bin/codex
  --prefix DIR
        the npm prefix Codex was installed into: DIR/node_modules (npm install @openai/codex in
        DIR) or DIR/lib/node_modules (npm install -g; npm prefix -g prints DIR).
          codemode codex doctor --prefix "$(npm prefix -g)"
  --host PATH
        install: the host to copy (default: codemode-host beside this codemode, else this
        codemode itself, which acts as the host when run as codex-code-mode-host).
          codemode codex install --host ./bin/codemode-host
  --timeout DURATION
        doctor: how long each program it runs may take, the Codex turn among them (default 2m).
          codemode codex doctor --timeout 5m
  -h, --help
        print this help.

Exit status: 0 done (install, uninstall: also when there was nothing to do), or every check
passed (doctor); 1 Codex was not found, a file could not be moved, or a check failed; 2 wrong
invocation.

Examples:
  codemode codex install
  codemode codex doctor
  codemode codex uninstall
  codemode codex install --prefix ~/my-project
`,
}

// codexOptions are the flags of `codemode codex`.
type codexOptions struct {
	locate  locateFlags
	host    string
	timeout time.Duration
}

// codexFlags defines the flags of `codemode codex` into o.
func codexFlags(o *codexOptions) *flag.FlagSet {
	fs := flag.NewFlagSet(codexCmd.name, flag.ContinueOnError)
	fs.StringVar(&o.locate.codex, "codex", "", "")
	fs.StringVar(&o.locate.prefix, "prefix", "", "")
	fs.StringVar(&o.host, "host", "", "")
	fs.DurationVar(&o.timeout, "timeout", 2*time.Minute, "")
	return fs
}

func codexCommand(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		return codexCmd.wrong(stderr, "say what to do: install, uninstall or doctor")
	}
	sub, rest := args[0], args[1:]
	if isHelpFlag(sub) {
		fmt.Fprint(stdout, codexCmd.help)
		return exitOK
	}
	var o codexOptions
	fs := codexFlags(&o)
	if done, status := codexCmd.parse(fs, rest, stdout, stderr); done {
		return status
	}
	if fs.NArg() > 0 {
		return codexCmd.wrong(stderr, fmt.Sprintf("unexpected argument %q (every setting is a flag)", fs.Arg(0)))
	}
	if problem := onlyFor(fs, sub, map[string]string{"host": "install", "timeout": "doctor"}); problem != "" {
		return codexCmd.wrong(stderr, problem)
	}
	switch sub {
	case "install":
		return codexInstallCommand(o, stdout, stderr)
	case "uninstall":
		return codexUninstallCommand(o, stdout, stderr)
	case "doctor":
		if o.timeout <= 0 {
			return codexCmd.wrong(stderr, "--timeout must be positive")
		}
		fmt.Fprintln(stdout, "codemode codex doctor: which code-mode host does Codex run?")
		fmt.Fprintln(stdout)
		d := &doctor{w: stdout, flags: o.locate, limit: o.timeout}
		return d.run()
	}
	return codexCmd.wrong(stderr, fmt.Sprintf("unknown subcommand %q: want install, uninstall or doctor", sub))
}

// codexInstallCommand is `codemode codex install`.
func codexInstallCommand(o codexOptions, stdout, stderr io.Writer) int {
	c, err := o.locate.locate()
	if err != nil {
		fmt.Fprintf(stderr, "codemode codex install: %v\n", err)
		return exitFailed
	}
	source := o.host
	if source == "" {
		if source, err = defaultHostSource(); err != nil {
			fmt.Fprintf(stderr, "codemode codex install: %v\n", err)
			return exitFailed
		}
	}
	fmt.Fprintf(stdout, "Codex: %s\n  (%s)\n", c.Agent, c.Found)
	if err := installCodemodeHost(stdout, c, source); err != nil {
		fmt.Fprintf(stderr, "codemode codex install: %v\n", err)
		return exitFailed
	}
	flags := locateFlagsText(o.locate)
	fmt.Fprintf(stdout, "Codex now spawns codemode's host. Check with: codemode codex doctor%s\nSwitch back with: codemode codex uninstall%s\n", flags, flags)
	return exitOK
}

// codexUninstallCommand is `codemode codex uninstall`.
func codexUninstallCommand(o codexOptions, stdout, stderr io.Writer) int {
	c, err := o.locate.locate()
	if err != nil {
		fmt.Fprintf(stderr, "codemode codex uninstall: %v\n", err)
		return exitFailed
	}
	fmt.Fprintf(stdout, "Codex: %s\n  (%s)\n", c.Agent, c.Found)
	if err := uninstallCodemodeHost(stdout, c); err != nil {
		fmt.Fprintf(stderr, "codemode codex uninstall: %v\n", err)
		return exitFailed
	}
	return exitOK
}

// locateFlagsText is the locating flags as the user gave them, to repeat in advice.
func locateFlagsText(f locateFlags) string {
	return (&doctor{flags: f}).fixFlags()
}

// onlyFor returns what is wrong when a flag of fs given on the command line belongs to another
// subcommand than sub (owners maps flag names to the one subcommand that takes them).
func onlyFor(fs *flag.FlagSet, sub string, owners map[string]string) string {
	problem := ""
	fs.Visit(func(f *flag.Flag) {
		if owner, ok := owners[f.Name]; ok && owner != sub && problem == "" {
			problem = fmt.Sprintf("--%s is a flag of %s only", f.Name, owner)
		}
	})
	return problem
}
