package main

import (
	"bufio"
	"context"
	"flag"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/codemodehq/codemode/pkg/testenv"
	"github.com/codemodehq/codemode/pkg/testenv/fakemodel"
)

// fakeModelProcess is a running `codemode fake-model`: its stdout, line by line.
type fakeModelProcess struct {
	cmd   *exec.Cmd
	lines *bufio.Scanner
}

// startFakeModel starts the built codemode as `codemode fake-model args…`; at cleanup it is
// interrupted and must exit 0.
func startFakeModel(t *testing.T, args ...string) *fakeModelProcess {
	t.Helper()
	cmd := exec.Command(codemodeBinary(t), append([]string{"fake-model"}, args...)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &fakeModelProcess{cmd: cmd, lines: bufio.NewScanner(stdout)}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGINT)
		go func() { _, _ = io.Copy(io.Discard, stdout) }()
		if err := cmd.Wait(); err != nil {
			t.Errorf("codemode fake-model after Ctrl-C: %v\n%s", err, stderr.String())
		}
	})
	return p
}

// line returns the next line the process printed.
func (p *fakeModelProcess) line(t *testing.T) string {
	t.Helper()
	if !p.lines.Scan() {
		t.Fatalf("codemode fake-model ended its output early: %v", p.lines.Err())
	}
	return p.lines.Text()
}

var modelURL = regexp.MustCompile(`^http://127\.0\.0\.1:\d+/v1$`)

// TestFakeModelCommandDrivesRealCodex: `codemode fake-model --codex-home DIR --exec SOURCE`
// prints its URL and how to run Codex; the real Codex, run that way, runs the cell, and the
// command prints the cell's output as Codex sent it back to the model.
func TestFakeModelCommandDrivesRealCodex(t *testing.T) {
	codex := testenv.FindCodex(t)
	home := filepath.Join(t.TempDir(), "codex-home")
	p := startFakeModel(t, "--codex-home", home, "--exec", `text("from the fake model: " + (2 + 3))`)
	if url := p.line(t); !modelURL.MatchString(url) {
		t.Fatalf("first line %q, want the model's URL", url)
	}
	if got := p.line(t); !strings.HasPrefix(got, "wrote "+filepath.Join(home, "config.toml")) {
		t.Fatalf("second line %q, want where the CODEX_HOME was written", got)
	}
	if got := p.line(t); !strings.Contains(got, "CODEX_HOME="+home+" ") || !strings.Contains(got, "codex exec") {
		t.Fatalf("third line %q, want how to run codex exec", got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), codexWaitLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, codex.Agent, "exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", "run the script")
	cmd.Dir, cmd.Env = t.TempDir(), fakemodel.Env(home)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("codex exec: %v\n%s", err, out)
	}
	got := p.line(t)
	if !strings.HasPrefix(got, "request 2: output of call_1: ") || !strings.Contains(got, "from the fake model: 5") {
		t.Fatalf("after the turn the command printed %q, want the cell's output", got)
	}
}

// A script file gives the replies; a malformed one, or none at all, is a wrong invocation that
// says what a script looks like.
func TestFakeModelScriptFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	good := write("good.json", `[{"exec": "text(1)"}, {"wait": "1"}, {"say": "bye"}, {"items": [{"type": "message"}]}]`)
	var o fakeModelOptions
	fs := fakeModelFlags(&o)
	if err := fs.Parse([]string{"--script", good}); err != nil {
		t.Fatal(err)
	}
	replies, err := o.scriptReplies(fs)
	if err != nil || len(replies) != 4 || replies[0][0]["input"] != "text(1)" || replies[1][0]["name"] != "wait" || replies[2][0]["type"] != "message" {
		t.Fatalf("replies %v, %v", replies, err)
	}
	cases := []struct {
		args []string
		want string
	}{
		{nil, "nothing scripted: give the cell with --exec SOURCE"},
		{[]string{"--script", write("two.json", `[{"exec": "a", "say": "b"}]`)}, `element 1: give exactly one of "exec", "wait", "say" and "items"`},
		{[]string{"--script", write("obj.json", `{"exec": "a"}`)}, `want a JSON array of {"exec": SOURCE}`},
		{[]string{"--script", write("empty.json", `[]`)}, "the array is empty"},
		{[]string{"--script", good, "--exec", "x"}, "--script replaces --exec"},
		{[]string{"--exec-file", filepath.Join(dir, "missing.js")}, "reading the cell"},
		{[]string{"--port", "70000", "--exec", "x"}, "--port must be a port number"},
	}
	for _, c := range cases {
		got := runArgs(t, "", append([]string{"fake-model"}, c.args...)...)
		if got.status != exitUsage || !strings.Contains(got.stderr, c.want) {
			t.Errorf("codemode fake-model %v: exit status %d, stderr %q; want 2 and %q", c.args, got.status, got.stderr, c.want)
		}
	}
}

// Every flag of fake-model and codex is explained in its help with an example of its own.
func TestCodexAndFakeModelFlagsAreExplained(t *testing.T) {
	sets := map[string]*flag.FlagSet{
		fakeModelCmd.help: fakeModelFlags(&fakeModelOptions{}),
		codexCmd.help:     codexFlags(&codexOptions{}),
	}
	for help, fs := range sets {
		fs.VisitAll(func(f *flag.Flag) {
			block := flagBlock(help, "--"+f.Name)
			if block == "" || !strings.Contains(block, fs.Name()) {
				t.Errorf("%s: --%s is not explained with an example:\n%s", fs.Name(), f.Name, block)
			}
		})
	}
}
