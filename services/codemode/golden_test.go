package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/ from what the commands print")

var wallTime = regexp.MustCompile(`Wall time \d+\.\d seconds`)

// normalize replaces the measured wall time, the only part of the output that changes from run
// to run.
func normalize(s string) string { return wallTime.ReplaceAllString(s, "Wall time X.X seconds") }

// cli is the outcome of one command line.
type cli struct {
	stdout, stderr string
	status         int
}

// runArgs runs the command line args (without "codemode") with stdin.
func runArgs(t *testing.T, stdin string, args ...string) cli {
	t.Helper()
	var out, errOut bytes.Buffer
	status := dispatch(args, strings.NewReader(stdin), &out, &errOut)
	return cli{out.String(), errOut.String(), status}
}

// checkGolden compares got with testdata/name, or rewrites the file with -update.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s:\n--- got\n%s--- want\n%s", path, got, want)
	}
}

// The output of `codemode run` is what Codex shows the model (docs/protocol/javascript.md#tool-output), byte for byte: a
// status line, the wall time, "Output:", the content (with "Script error:" for a failed script,
// and truncated in the middle beyond the token budget). testdata/run/NAME.stdout holds it with
// the wall time normalized.
func TestRunOutputMatchesTheGoldenFiles(t *testing.T) {
	cases := []struct {
		name   string
		args   []string
		status int
		stderr string
	}{
		{name: "completed", status: exitOK},
		{name: "failed", status: exitFailed},
		{name: "yielded", status: exitStillRunning,
			stderr: "codemode run: cell 1 is still running; codemode stops it on exit (--wait waits for it to finish)\n"},
		{name: "waited", args: []string{"--wait", "--yield", "600000"}, status: exitOK},
		{name: "truncated", args: []string{"--max-output-tokens", "10"}, status: exitOK},
		{name: "tool_timeout", args: []string{"--tools", "testdata/run/hang_tools.json"}, status: exitFailed},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := append(append([]string{"run"}, c.args...), filepath.Join("testdata", "run", c.name+".js"))
			got := runArgs(t, "", args...)
			if got.status != c.status || got.stderr != c.stderr {
				t.Errorf("exit status %d, stderr %q; want %d, %q", got.status, got.stderr, c.status, c.stderr)
			}
			checkGolden(t, filepath.Join("run", c.name+".stdout"), normalize(got.stdout))
		})
	}
}

// readyWriter signals once "ready" has been written to it: the cell's notify("ready") arrived.
type readyWriter struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	ready chan struct{}
	once  sync.Once
}

func (w *readyWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if strings.Contains(w.buf.String(), "ready") {
		w.once.Do(func() { close(w.ready) })
	}
	return len(p), nil
}

// Ctrl-C terminates the cell: codemode prints what the model sees for a terminated cell (its
// output so far) and exits with status 130.
func TestInterruptTerminatesTheCell(t *testing.T) {
	interrupts := make(chan os.Signal, 1)
	stderr := &readyWriter{ready: make(chan struct{})}
	var stdout bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- runWith([]string{"testdata/run/terminated.js"}, strings.NewReader(""), &stdout, stderr, interrupts)
	}()
	<-stderr.ready // the cell has written its text and waits
	interrupts <- os.Interrupt
	if status := <-done; status != exitInterrupted {
		t.Errorf("exit status %d, want %d", status, exitInterrupted)
	}
	if got := stderr.buf.String(); got != "notify (cell 1): ready\n" {
		t.Errorf("stderr %q", got)
	}
	checkGolden(t, "run/terminated.stdout", normalize(stdout.String()))
}

// A manifest with an error is refused before anything starts: no cell runs (stdout stays
// empty), and every problem names its field.
func TestRunRefusesABadManifestBeforeAnythingStarts(t *testing.T) {
	got := runArgs(t, "", "run", "--tools", "testdata/run/bad_tools.json", "testdata/run/completed.js")
	want := `testdata/run/bad_tools.json: /tools/1/timeout: must be a duration like "30s", not "30"
testdata/run/bad_tools.json: /tools/2: unknown property "max_concurency"
testdata/run/bad_tools.json: /tools/2/name: must be a JavaScript identifier (ASCII letters, digits, _ and $, not starting with a digit), not "read-file"
`
	if got.status != exitUsage || got.stdout != "" || got.stderr != want {
		t.Errorf("exit status %d, stdout %q, stderr:\n%s\nwant status 2, no stdout, stderr:\n%s", got.status, got.stdout, got.stderr, want)
	}
}
