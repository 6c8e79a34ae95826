package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// exampleRunLine is the line of an example's header comment that says how to run it.
var exampleRunLine = regexp.MustCompile(`(?m)^//\s+codemode run (.+)$`)

// exampleOutcomes is what each example must do when run as its header says: its exit status and
// text its stdout (or stderr) must contain.
var exampleOutcomes = map[string]struct {
	status int
	stdout []string
	stderr []string
}{
	"hello.js": {exitOK, []string{"Hello from a codemode cell!\n", "visits stored in this session: 1\n", "a timer fired"}, nil},
	"tools.js": {exitOK, []string{"1² = 1\n2² = 4\n3² = 9\n", "TOOL RESULTS COME BACK AS JSON\n",
		"rejected: tool `echo` input does not match its input_schema"}, []string{"notify (cell 1): notifications go to the tool owner"}},
	"yield.js": {exitOK, []string{"Script running with cell ID 1\n", "step 5\n", "done\n"}, nil},
	"promise_all.js": {exitOK, []string{
		"data/changelog.md: 11 lines, 32 words; most frequent: and ×3, json ×2, limits ×2\n",
		"data/notes.txt: 3 lines, 41 words; most frequent: program ×3, the ×3, calls ×2\n",
		"best lamp months (of 6):\n  2026-03 south: 143 units\n  2026-02 north: 132 units\n  2026-01 north: 120 units\n",
	}, nil},
	"store_load.js": {exitOK, []string{
		"cell 1 computed and stored {\"north\":20370,\"south\":21870}\n",
		"a later cell loaded {\"north\":20370,\"south\":21870} without a tool call\n",
	}, nil},
	"notify.js": {exitOK, []string{"Code Mode lets a model write one small program instead of many tool calls.\n"},
		[]string{"notify (cell 1): found 3 files under data/; reading the notes next\n"}},
	"yield_control.js": {exitOK, []string{
		"Script running with cell ID 1\nWall time X.X seconds\nOutput:\nstarted: counting the words of every file under data/\n",
		"3 files, 98 words in all\n",
	}, nil},
	"mcp.js": {exitOK, []string{
		"changelog.md: 43 words, first line: # Changelog\n",
		"notes.txt: 41 words, first line: Code Mode lets a model write one small program instead of many tool calls.\n",
		"[image image/png, ",
		"caught: there is no note named \"missing.txt\"\n",
	}, nil},
	"error.js": {exitFailed, []string{
		"caught: tool `read_file` failed (exit status 1): read_file: openat ../go.mod: path escapes from parent\n",
		"caught: tool `read_file` input does not match its input_schema: ",
		"Script error:\ntool `csv_query` failed (exit status 1): csv_query: no column \"regoin\"",
	}, nil},
}

// Every example runs end to end, exactly as its header comment says, with real tools where it
// uses examples/tools.json. The README points newcomers here: they must keep working.
func TestExamplesRunAsTheirHeadersSay(t *testing.T) {
	t.Chdir("../..") // the headers' paths are relative to the repository root
	paths, err := filepath.Glob("examples/*.js")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no examples found: %v", err)
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			want, ok := exampleOutcomes[filepath.Base(path)]
			if !ok {
				t.Fatalf("%s has no entry in exampleOutcomes", path)
			}
			got := runArgs(t, "", exampleArgs(t, path)...)
			stdout := normalize(got.stdout)
			if got.status != want.status {
				t.Fatalf("exit status %d, want %d\nstdout:\n%s\nstderr:\n%s", got.status, want.status, stdout, got.stderr)
			}
			for _, s := range want.stdout {
				if !strings.Contains(stdout, s) {
					t.Errorf("stdout lacks %q:\n%s", s, stdout)
				}
			}
			for _, s := range want.stderr {
				if !strings.Contains(got.stderr, s) {
					t.Errorf("stderr lacks %q:\n%s", s, got.stderr)
				}
			}
		})
	}
}

// exampleArgs reads the command line of an example's header ("//   codemode run …").
func exampleArgs(t *testing.T, path string) []string {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := exampleRunLine.FindSubmatch(src)
	if m == nil {
		t.Fatalf("%s: no header line \"//   codemode run …\" says how to run it", path)
	}
	args := append([]string{"run"}, strings.Fields(string(m[1]))...)
	if args[len(args)-1] != path {
		t.Fatalf("%s: its header runs %s", path, args[len(args)-1])
	}
	return args
}
