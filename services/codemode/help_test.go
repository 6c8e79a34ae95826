package main

import (
	"bufio"
	"flag"
	"io"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/codemodehq/codemode/pkg/hostprogram"
)

// Every command answers `codemode help NAME`, `codemode NAME --help` and `codemode NAME -h` with
// the same text on stdout and exit status 0.
func TestEveryCommandHasHelpOnStdout(t *testing.T) {
	for name := range commands {
		t.Run(name, func(t *testing.T) {
			first := runArgs(t, "", "help", name)
			if first.status != exitOK || first.stderr != "" || !strings.HasPrefix(first.stdout, "usage: codemode "+name) {
				t.Fatalf("codemode help %s: exit status %d, stderr %q, stdout:\n%s", name, first.status, first.stderr, first.stdout)
			}
			for _, flag := range []string{"--help", "-h"} {
				got := runArgs(t, "", name, flag)
				if got != first {
					t.Errorf("codemode %s %s differs from codemode help %s: %+v", name, flag, name, got)
				}
			}
			if !strings.Contains(first.stdout, "Exit status: ") || !strings.Contains(first.stdout, "\nExample") {
				t.Errorf("the help of %s lacks its exit statuses or examples:\n%s", name, first.stdout)
			}
		})
	}
}

// Each flag of a command is explained in its help, with an example of its own, and states its
// default at most once (the flag package used to print every default a second time).
func TestEveryFlagIsExplainedWithAnExample(t *testing.T) {
	sets := map[string]*flag.FlagSet{
		runCmd.help:      runFlags(&runOptions{}),
		describeCmd.help: describeFlags(&describeOptions{}),
		serveCmd.help:    serveFlags(&serveOptions{}),
		mcpCmd.help:      mcpFlags(&mcpOptions{}),
		helps["host"]:    new(hostprogram.Flags).FlagSet("codemode host"),
	}
	for help, fs := range sets {
		fs.VisitAll(func(f *flag.Flag) {
			block := flagBlock(help, "--"+f.Name)
			if block == "" {
				t.Errorf("%s: --%s is not explained", fs.Name(), f.Name)
				return
			}
			if !slices.ContainsFunc(strings.Split(block, "\n"), func(line string) bool {
				return strings.HasPrefix(strings.TrimSpace(line), fs.Name()+" ") && strings.Contains(line, "--"+f.Name)
			}) {
				t.Errorf("%s: --%s has no example:\n%s", fs.Name(), f.Name, block)
			}
			if n := strings.Count(block, "default"); n > 1 {
				t.Errorf("%s: --%s states its default %d times:\n%s", fs.Name(), f.Name, n, block)
			}
		})
	}
}

// flagBlock returns the lines of help that explain flag: its line ("  --flag …") and the indented
// lines after it.
func flagBlock(help, flag string) string {
	lines := strings.Split(help, "\n")
	for i, line := range lines {
		if line != "  "+flag && !strings.HasPrefix(line, "  "+flag+" ") {
			continue
		}
		end := i + 1
		for end < len(lines) && strings.HasPrefix(lines[end], "        ") {
			end++
		}
		return strings.Join(lines[i:end], "\n")
	}
	return ""
}

func TestTopLevelHelpAndUsage(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}} {
		got := runArgs(t, "", args...)
		if got.status != exitOK || got.stderr != "" || !strings.HasPrefix(got.stdout, "usage: codemode <command>") {
			t.Errorf("%v: %+v", args, got)
		}
	}
	got := runArgs(t, "")
	if got.status != exitUsage || got.stdout != "" || !strings.HasPrefix(got.stderr, "usage: codemode <command>") {
		t.Errorf("no arguments: %+v", got)
	}
	got = runArgs(t, "", "frobnicate")
	if got.status != exitUsage || !strings.HasPrefix(got.stderr, "codemode: unknown command \"frobnicate\"\n\nusage: codemode <command>") {
		t.Errorf("an unknown command: %+v", got)
	}
}

// A wrong invocation says what was wrong, then the synopsis, on stderr, with exit status 2.
func TestWrongInvocationsSayWhatWasWrong(t *testing.T) {
	runUsage := "usage: " + runCmd.synopsis + "\n(`codemode run --help` explains every flag)\n"
	describeUsage := "usage: " + describeCmd.synopsis + "\n(`codemode describe --help` explains every flag)\n"
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"run", "x.js", "--wait"}, "codemode run: flag --wait comes after the file x.js; flags go before it\n" + runUsage},
		{[]string{"run", "a.js", "b.js"}, "codemode run: one file expected, got 2: a.js b.js\n" + runUsage},
		{[]string{"run", "--yield", "-5", "x.js"}, "codemode run: invalid value \"-5\" for flag --yield: must be a whole number ≥ 0\n" + runUsage},
		{[]string{"run", "--max-output-tokens", "many", "x.js"}, "codemode run: invalid value \"many\" for flag --max-output-tokens: must be a whole number ≥ 0\n" + runUsage},
		{[]string{"run", "--repeat", "0", "x.js"}, "codemode run: --repeat must be at least 1\n" + runUsage},
		{[]string{"run", "--wiat", "x.js"}, "codemode run: flag provided but not defined: --wiat\n" + runUsage},
		{[]string{"run"}, "codemode run: no file given (- reads the source from stdin)\n" + runUsage},
		{[]string{"describe", "examples/tools.json"}, "codemode describe: unexpected argument examples/tools.json (the manifest goes after --tools)\n" + describeUsage},
	}
	for _, c := range cases {
		got := runArgs(t, "", c.args...)
		if got.status != exitUsage || got.stdout != "" || got.stderr != c.want {
			t.Errorf("codemode %s: exit status %d, stdout %q, stderr:\n%s\nwant:\n%s", strings.Join(c.args, " "), got.status, got.stdout, got.stderr, c.want)
		}
	}
}

// `codemode --version` and `codemode host --version` print the CLI's version line: the same
// build information as codemode-host's, under the name codemode.
func TestVersionNamesTheCLI(t *testing.T) {
	line := regexp.MustCompile(`^codemode \S+(?: \([0-9a-f]{12}(?:\+dirty)?(?:, \S+)?\))? ` + regexp.QuoteMeta(runtime.Version()+" "+runtime.GOOS+"/"+runtime.GOARCH) + `\n$`)
	bin := codemodeBinary(t)
	var first string
	for _, args := range [][]string{{"--version"}, {"host", "--version"}} {
		out, err := exec.Command(bin, args...).Output()
		if err != nil || !line.Match(out) {
			t.Fatalf("codemode %s: %v, printed %q", strings.Join(args, " "), err, out)
		}
		if first == "" {
			first = string(out)
		} else if string(out) != first {
			t.Errorf("codemode host --version printed %q, codemode --version %q", out, first)
		}
	}
}

// Under the CLI the host's started line names the program codemode, on stderr at the default
// level.
func TestHostStartedLineNamesTheCLI(t *testing.T) {
	cmd := exec.Command(codemodeBinary(t), "host", "--listen", "grpc://127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	lines := bufio.NewScanner(stderr)
	for lines.Scan() {
		if !strings.Contains(lines.Text(), `msg="code-mode host started"`) {
			continue
		}
		if !strings.Contains(lines.Text(), " program=codemode ") || !strings.Contains(lines.Text(), ` listen="grpc://127.0.0.1:0 (http://127.0.0.1:`) {
			t.Errorf("started line %q, want program=codemode and the gRPC listener", lines.Text())
		}
		return
	}
	t.Fatalf("codemode host's stderr ended without the started line: %v", lines.Err())
}

// `codemode serve --log-level info` logs the started line under the CLI's name too.
func TestServeStartedLineNamesTheCLI(t *testing.T) {
	logs, stderr := io.Pipe()
	signals := make(chan os.Signal, 1)
	exited := make(chan int, 1)
	go func() {
		code := serveWith([]string{"--log-level", "info"}, strings.NewReader(""), io.Discard, stderr, signals)
		stderr.Close()
		exited <- code
	}()
	lines := bufio.NewScanner(logs)
	found := ""
	for found == "" && lines.Scan() {
		if strings.Contains(lines.Text(), `msg="code-mode host started"`) {
			found = lines.Text()
		}
	}
	go func() { _, _ = io.Copy(io.Discard, logs) }()
	signals <- syscall.SIGTERM
	if code := <-exited; code != exitOK {
		t.Errorf("codemode serve exited %d after SIGTERM", code)
	}
	if !strings.Contains(found, " program=codemode ") || !strings.Contains(found, " generation=") {
		t.Fatalf("started line %q, want program=codemode and the V1 generation (serve has a WebSocket listener)", found)
	}
}
