package execserver_test

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/codemodehq/codemode/pkg/testenv"
)

// The differential: every case of execDiffCorpus runs on Codex's exec-server
// (`codex exec-server --listen stdio`, the pinned release) and on codemode's, each a fresh
// process in a fresh copy of the same directory tree, and the transcripts — every answer in
// order, then every process notification by process and seq — must be identical after removing
// only what cannot agree (the session id, timestamps, the directory's name). A case listed in
// testdata/codex-exec-server-differences.json must differ (it fails once it agrees); `make
// diff-codex-exec` prints the table.

var printExecDiff = flag.Bool("print-exec-diff", false, "print every case's transcripts and the differential table")

var (
	buildOnce   sync.Once
	codemodeBin string
	buildErr    error
)

// codemodeBinary builds the `codemode` program once for the test binary.
func codemodeBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "execserver-diff")
		if err != nil {
			buildErr = err
			return
		}
		codemodeBin = filepath.Join(dir, "codemode")
		out, err := exec.Command("go", "build", "-o", codemodeBin, "../../../services/codemode").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("building codemode: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return codemodeBin
}

// fixture makes the tree every case starts from.
func fixture(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello\n"), 0o644))
	must(os.Symlink("a.txt", filepath.Join(dir, "link")))
	must(os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	must(os.Mkdir(filepath.Join(dir, "tree"), 0o755))
	must(os.WriteFile(filepath.Join(dir, "tree", "inner.txt"), []byte("in\n"), 0o644))
	must(os.Symlink("tree", filepath.Join(dir, "dl")))
	must(os.Symlink("missing-target", filepath.Join(dir, "broken")))
	must(os.WriteFile(filepath.Join(dir, "noexec.sh"), []byte("#!/bin/sh\necho x\n"), 0o644))
	return dir
}

// server is one exec-server process speaking newline-delimited JSON.
type server struct {
	cmd   *exec.Cmd
	in    io.WriteCloser
	lines chan string // closed at EOF
}

func startServer(t *testing.T, argv []string, dir string, env []string) *server {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, env
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &server{cmd: cmd, in: in, lines: make(chan string, 64)}
	go func() {
		defer close(s.lines)
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
	}()
	t.Cleanup(func() {
		_ = in.Close()
		for range s.lines {
		}
		_ = cmd.Wait()
	})
	return s
}

// transcript records a case: the answers in order and the notifications apart.
type transcript struct {
	answers       []string
	notifications []string
}

// has reports whether a recorded notification satisfies ok.
func (tr *transcript) has(ok func(message, string) bool) bool {
	for _, l := range tr.notifications {
		var m message
		_ = json.Unmarshal([]byte(l), &m)
		if ok(m, l) {
			return true
		}
	}
	return false
}

func (s *server) send(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(s.in, line+"\n"); err != nil {
		t.Fatalf("send %s: %v", line, err)
	}
}

// next is the server's next line, "" at EOF. It waits for the line or the end of the
// server's output, never for a clock: a server that hangs is caught by go test's -timeout.
func (s *server) next(t *testing.T) string {
	t.Helper()
	l, ok := <-s.lines
	if !ok {
		return ""
	}
	return l
}

// message is what the runner reads of a line: a request's id and method, and a process
// notification's process and seq.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params processParams   `json:"params"`
}

type processParams struct {
	ProcessID string
	Seq       uint64
}

// UnmarshalJSON reads processId and seq from an object and ignores any other params.
func (p *processParams) UnmarshalJSON(data []byte) error {
	var v struct {
		ProcessID string `json:"processId"`
		Seq       uint64 `json:"seq"`
	}
	if json.Unmarshal(data, &v) == nil {
		p.ProcessID, p.Seq = v.ProcessID, v.Seq
	}
	return nil
}

// await reads until done accepts a line (true) or the server ends (false); notifications go
// to tr on the way.
func (s *server) await(t *testing.T, tr *transcript, done func(message, string) bool) bool {
	t.Helper()
	for {
		l := s.next(t)
		if l == "" {
			tr.answers = append(tr.answers, "<the server ended>")
			return false
		}
		var m message
		_ = json.Unmarshal([]byte(l), &m)
		if m.Method != "" && m.ID == nil {
			tr.notifications = append(tr.notifications, l)
		}
		if done(m, l) {
			return true
		}
	}
}

// awaitEarlierSeqs reads until process id's notifications include every seq below that of the
// notification that is accepts (false if the server ends first).
func (s *server) awaitEarlierSeqs(t *testing.T, tr *transcript, id string, is func(message, string) bool) bool {
	t.Helper()
	complete := func() bool {
		var last uint64
		seen := map[uint64]bool{}
		for _, l := range tr.notifications {
			var m message
			_ = json.Unmarshal([]byte(l), &m)
			if m.Params.ProcessID != id {
				continue
			}
			seen[m.Params.Seq] = true
			if is(m, l) {
				last = m.Params.Seq
			}
		}
		for seq := uint64(1); seq < last; seq++ {
			if !seen[seq] {
				return false
			}
		}
		return true
	}
	if complete() {
		return true
	}
	return s.await(t, tr, func(message, string) bool { return complete() })
}

// run plays steps: a JSON request waits for its answer; "@malformed LINE" sends LINE and waits
// for the id -1 answer; "@output ID", "@exited ID" and "@closed ID" wait for that notification of process ID; "@kill-pidfile F" kills the pid written in the fixture's file F; "@nowait LINE" sends LINE
// without waiting; "@eof" closes the input and records what is written until the server exits;
// any other line is a notification.
func (s *server) run(t *testing.T, steps []string, dir string) transcript {
	t.Helper()
	var tr transcript
	for _, step := range steps {
		step = strings.ReplaceAll(step, "$DIR", dir)
		switch {
		case strings.HasPrefix(step, "@closed "), strings.HasPrefix(step, "@exited "), strings.HasPrefix(step, "@output "):
			event, id, _ := strings.Cut(strings.TrimPrefix(step, "@"), " ")
			is := func(m message, _ string) bool { return m.Method == "process/"+event && m.Params.ProcessID == id }
			// The notification may have come already, while an answer was awaited.
			if !tr.has(is) && !s.await(t, &tr, is) {
				return tr
			}
			// Seqs are contiguous per process, but a server may write them out of order (Codex
			// has written closed, seq 3, before exited, seq 2): take every earlier one too.
			if !s.awaitEarlierSeqs(t, &tr, id, is) {
				return tr
			}
		case strings.HasPrefix(step, "@kill-pidfile "):
			// A background child the case started wrote its pid there: end it, as a user would.
			data, err := os.ReadFile(filepath.Join(dir, strings.TrimPrefix(step, "@kill-pidfile ")))
			if err != nil {
				t.Fatal(err)
			}
			pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
			if err != nil {
				t.Fatal(err)
			}
			_ = syscall.Kill(pid, syscall.SIGKILL)
		case strings.HasPrefix(step, "@nowait "):
			s.send(t, strings.TrimPrefix(step, "@nowait "))
		case step == "@eof":
			// End the input and take every line the server still writes before it exits: what a
			// server that stopped answering leaves unanswered shows as missing.
			_ = s.in.Close()
			for {
				l := s.next(t)
				if l == "" {
					return tr
				}
				tr.answers = append(tr.answers, l)
			}
		case strings.HasPrefix(step, "@malformed "):
			s.send(t, strings.TrimPrefix(step, "@malformed "))
			if !s.await(t, &tr, answerTo(t, &tr, "-1")) {
				return tr
			}
		default:
			s.send(t, step)
			var m message
			if err := json.Unmarshal([]byte(step), &m); err != nil {
				t.Fatalf("corpus step %s: %v", step, err)
			}
			if m.ID == nil {
				continue
			}
			if !s.await(t, &tr, answerTo(t, &tr, string(m.ID))) {
				return tr
			}
		}
	}
	return tr
}

func answerTo(t *testing.T, tr *transcript, id string) func(message, string) bool {
	return func(m message, l string) bool {
		if m.Method != "" || string(m.ID) != id {
			if m.Method == "" {
				t.Errorf("an answer to another id: %s", l)
			}
			return false
		}
		tr.answers = append(tr.answers, l)
		return true
	}
}

var (
	uuidRE = regexp.MustCompile(`"sessionId":"[0-9a-f-]{36}"`)
	msRE   = regexp.MustCompile(`"(createdAtMs|modifiedAtMs)":\d+`)
)

// normalize removes what cannot agree between two runs: the session id, file times and the
// fixture directory's name; and initialize's environmentInfo, which the environment/info case
// compares (and lists as a difference) once.
func normalize(line, dir string) string {
	line = strings.ReplaceAll(line, dir, "$DIR")
	if i := strings.Index(line, `,"environmentInfo":{`); i >= 0 && strings.HasSuffix(line, "}}}") {
		line = line[:i] + `,"environmentInfo":"<see environment/info>"}}`
	}
	line = uuidRE.ReplaceAllString(line, `"sessionId":"<uuid>"`)
	return msRE.ReplaceAllString(line, `"$1":<ms>`)
}

// text renders a transcript, notifications ordered by process and seq (their interleaving
// with the answers is a race on both servers).
func (tr transcript) text(dir string) string {
	notes := slices.Clone(tr.notifications)
	slices.SortStableFunc(notes, func(a, b string) int {
		var ma, mb message
		_ = json.Unmarshal([]byte(a), &ma)
		_ = json.Unmarshal([]byte(b), &mb)
		if c := strings.Compare(ma.Params.ProcessID, mb.Params.ProcessID); c != 0 {
			return c
		}
		return int(ma.Params.Seq) - int(mb.Params.Seq)
	})
	var b strings.Builder
	for _, l := range append(tr.answers, notes...) {
		b.WriteString(normalize(l, dir))
		b.WriteByte('\n')
	}
	return b.String()
}

// handshake is what every case starts with unless it tests the handshake itself.
var handshake = []string{`{"id":0,"method":"initialize","params":{"clientName":"diff"}}`, `{"method":"initialized"}`}

// expectedDifference is an entry of testdata/codex-exec-server-differences.json.
type expectedDifference struct {
	Case   string `json:"case"`
	Reason string `json:"reason"`
}

func loadDifferences(t *testing.T) map[string]string {
	t.Helper()
	data, err := os.ReadFile("testdata/codex-exec-server-differences.json")
	if err != nil {
		t.Fatal(err)
	}
	var list []expectedDifference
	if err := json.Unmarshal(data, &list); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, d := range list {
		if d.Reason == "" {
			t.Errorf("%s: an expected difference needs its reason", d.Case)
		}
		out[d.Case] = d.Reason
	}
	return out
}

func serverEnv(home string, extra ...string) []string {
	return append([]string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME=" + home, "SHELL=/bin/sh", "LANG=C"}, extra...)
}

// TestExecServerDifferential runs the corpus on both exec-servers (see the top of the file).
func TestExecServerDifferential(t *testing.T) {
	codex := testenv.FindCodex(t)
	bin := codemodeBinary(t)
	differences := loadDifferences(t)
	names := map[string]bool{}
	identical, differing := 0, 0
	var table strings.Builder
	for _, c := range execDiffCorpus {
		if names[c.name] {
			t.Fatalf("case %s twice", c.name)
		}
		names[c.name] = true
		t.Run(c.name, func(t *testing.T) {
			var before []string // played first, its answers not compared
			if !c.ownHandshake {
				before = handshake
			}
			home := t.TempDir()
			codexDir, codemodeDir := fixture(t), fixture(t)
			codexServer := startServer(t, []string{codex.Agent, "exec-server", "--listen", "stdio"}, codexDir, serverEnv(home, "CODEX_HOME="+t.TempDir()))
			codexServer.run(t, before, codexDir)
			codexOut := codexServer.run(t, c.steps, codexDir).text(codexDir)
			codemodeServer := startServer(t, []string{bin, "exec-server", "--listen", "stdio"}, codemodeDir, serverEnv(home))
			codemodeServer.run(t, before, codemodeDir)
			codemodeOut := codemodeServer.run(t, c.steps, codemodeDir).text(codemodeDir)
			if *printExecDiff {
				t.Logf("codex:\n%s\ncodemode:\n%s", codexOut, codemodeOut)
			}
			reason, listed := differences[c.name]
			switch {
			case codexOut == codemodeOut && listed:
				t.Errorf("listed as a difference (%s) but now identical:\n%s", reason, codexOut)
			case codexOut != codemodeOut && !listed:
				t.Errorf("transcripts differ\ncodex:\n%s\ncodemode:\n%s", codexOut, codemodeOut)
			}
			if codexOut == codemodeOut {
				identical++
			} else {
				differing++
				fmt.Fprintf(&table, "| `%s` | %s |\n", c.name, reason)
			}
		})
	}
	for name := range differences {
		if !names[name] {
			t.Errorf("expected difference %s names no case", name)
		}
	}
	t.Logf("%d cases on Codex %s and codemode: %d identical, %d expected differences", len(execDiffCorpus), codex.Version, identical, differing)
	if *printExecDiff {
		t.Logf("\n| case | why codemode differs |\n|---|---|\n%s", table.String())
	}
}
