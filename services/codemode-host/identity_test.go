package main_test

import (
	"cmp"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// versionLine is `codemode-host --version`: the module version, the VCS revision and time when
// the build recorded them, the Go version and the platform.
var versionLine = regexp.MustCompile(`^codemode-host (\S+)(?: \(([0-9a-f]{12}(?:\+dirty)?)(?:, (\S+))?\))? (go\S+) (\S+)/(\S+)\n$`)

// runOnce runs the built codemode-host with args to its end and returns its stdout, stderr and
// exit status.
func runOnce(t *testing.T, path string, args ...string) (stdout, stderr string, status int) {
	t.Helper()
	cmd := exec.Command(path, args...)
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return out.String(), errOut.String(), ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errOut.String(), 0
}

// parseVersion checks a --version output and returns its fields: version, revision, time.
func parseVersion(t *testing.T, out string) (version, revision, vcsTime string) {
	t.Helper()
	m := versionLine.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("--version printed %q, want `codemode-host VERSION [(REVISION, TIME)] GO OS/ARCH`", out)
	}
	if m[4] != runtime.Version() || m[5] != runtime.GOOS || m[6] != runtime.GOARCH {
		t.Errorf("--version names %s %s/%s, want the toolchain and platform that built it: %s %s/%s", m[4], m[5], m[6], runtime.Version(), runtime.GOOS, runtime.GOARCH)
	}
	return m[1], m[2], m[3]
}

// --version prints one line on stdout and exits 0, with or without VCS information (the test
// binary is built as `make` builds, which may turn VCS stamping off).
func TestVersionPrintsOneLine(t *testing.T) {
	stdout, stderr, status := runOnce(t, bin, "--version")
	if status != 0 || stderr != "" {
		t.Fatalf("--version: exit status %d, stderr %q", status, stderr)
	}
	parseVersion(t, stdout)
}

// Built with VCS stamping from a git checkout, --version names the commit HEAD is at, and its
// time, as git reports them: the oracle is git itself.
func TestVersionNamesTheCommitItWasBuiltFrom(t *testing.T) {
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("not a git checkout, or git is missing: %v", err)
	}
	committed, err := exec.Command("git", "log", "-1", "--format=%cI").Output()
	if err != nil {
		t.Fatal(err)
	}
	stamped := filepath.Join(t.TempDir(), "codemode-host")
	if out, err := exec.Command("go", "build", "-buildvcs=true", "-o", stamped, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build -buildvcs=true: %v\n%s", err, out)
	}
	stdout, _, status := runOnce(t, stamped, "--version")
	if status != 0 {
		t.Fatalf("--version: exit status %d", status)
	}
	version, revision, vcsTime := parseVersion(t, stdout)
	if want := strings.TrimSpace(string(head))[:12]; strings.TrimSuffix(revision, "+dirty") != want {
		t.Errorf("--version names revision %q, want HEAD's %s (%q)", revision, want, stdout)
	}
	got, err1 := time.Parse(time.RFC3339, vcsTime)
	want, err2 := time.Parse(time.RFC3339, strings.TrimSpace(string(committed)))
	if err1 != nil || err2 != nil || !got.Equal(want) {
		t.Errorf("--version names time %q, want HEAD's commit time %q (%v, %v)", vcsTime, committed, err1, err2)
	}
	if version == "(devel)" || version == "unknown" {
		t.Errorf("--version names module version %q; a VCS-stamped build carries the commit's pseudo-version", version)
	}
}

// logfmt parses one line of slog's text handler into its keys and values.
func logfmt(t *testing.T, line string) map[string]string {
	t.Helper()
	kv := map[string]string{}
	for rest := strings.TrimSpace(line); rest != ""; rest = strings.TrimLeft(rest, " ") {
		key, after, ok := strings.Cut(rest, "=")
		if !ok {
			t.Fatalf("not logfmt at %q in %q", rest, line)
		}
		if strings.HasPrefix(after, `"`) {
			quoted, err := strconv.QuotedPrefix(after)
			if err != nil {
				t.Fatalf("value of %s in %q: %v", key, line, err)
			}
			kv[key], _ = strconv.Unquote(quoted)
			rest = after[len(quoted):]
			continue
		}
		value, tail, _ := strings.Cut(after, " ")
		kv[key], rest = value, tail
	}
	return kv
}

// startedLine waits for the host's started line on stderr and returns it.
func startedLine(h *hostProcess) string {
	h.t.Helper()
	return h.awaitStderrLine("with the started message", func(line string) bool { return strings.Contains(line, "code-mode host started") })
}

// buildVersion returns the version and revision the built host reports (revision "unknown"
// without VCS information), as its started line must name them.
func buildVersion(t *testing.T) (version, revision string) {
	t.Helper()
	stdout, _, _ := runOnce(t, bin, "--version")
	version, revision, _ = parseVersion(t, stdout)
	return version, cmp.Or(revision, "unknown")
}

// The host logs one info line once its listeners are bound, at the default level, naming the
// program, its build and every listener as --listen spells it with the URL it bound (the URLs
// the host prints on stdout), and the V1 wire generation.
func TestStartedLineNamesProgramBuildListenersAndGeneration(t *testing.T) {
	version, revision := buildVersion(t)
	h := startHost(t, nil, "--listen", "ws://127.0.0.1:0", "--listen", "grpc://127.0.0.1:0", "--generation", "host-duration")
	urls := h.addresses(2)
	line := startedLine(h)
	kv := logfmt(t, line)
	want := map[string]string{
		"level":      "INFO",
		"msg":        "code-mode host started",
		"program":    "codemode-host",
		"version":    version,
		"revision":   revision,
		"go":         runtime.Version(),
		"listen":     "ws://127.0.0.1:0 (" + urls[0] + "), grpc://127.0.0.1:0 (" + urls[1] + ")",
		"generation": "host-duration",
	}
	for k, v := range want {
		if kv[k] != v {
			t.Errorf("%s=%q, want %q in %s", k, kv[k], v, line)
		}
	}
	h.signal(syscall.SIGTERM)
	if code := h.exitCode(); code != 0 {
		t.Fatalf("exit status %d after SIGTERM", code)
	}
}

// Spawned on grpc+stdio://, Codex's way (docs/protocol/grpc.md#spawned-hosts), the host logs the
// line on stderr (stdout carries HTTP/2), in JSON when asked, without a generation: no V1 listener
// exists; with the memory budget and the Go memory limit set from it (GOMEMLIMIT unset).
func TestStartedLineUnderCodexSpawnGoesToStderr(t *testing.T) {
	version, revision := buildVersion(t)
	h := startHost(t, []string{"GOMEMLIMIT="}, "--listen", "grpc+stdio://", "--log-format", "json", "--memory-budget", "1Gi")
	var got map[string]any
	line := startedLine(h)
	if err := json.Unmarshal([]byte(line), &got); err != nil {
		t.Fatalf("started line %q: %v", line, err)
	}
	want := map[string]any{
		"level": "INFO", "msg": "code-mode host started", "program": "codemode-host",
		"version": version, "revision": revision, "go": runtime.Version(), "listen": "grpc+stdio://",
		"memory_budget": float64(1 << 30), "go_memory_limit": float64(1<<30) / 8 * 7,
	}
	delete(got, "time")
	if !reflect.DeepEqual(got, want) {
		t.Errorf("started line %v, want %v", got, want)
	}
	_ = h.stdin.Close() // the client goes away: the host exits 0
	if code := h.exitCode(); code != 0 {
		t.Fatalf("exit status %d after stdin closed", code)
	}
}

// --help shows the flags' own words: "--generation NAME" and the $HOSTNAME example survive the
// program name being put in, and no placeholder is left.
func TestHelpKeepsItsOwnWordsAndNamesTheProgram(t *testing.T) {
	stdout, stderr, status := runOnce(t, bin, "--help")
	if status != 0 || stderr != "" {
		t.Fatalf("--help: exit status %d, stderr %q", status, stderr)
	}
	for _, want := range []string{"usage: codemode-host [flags]\n", "\n  --generation NAME\n", `--route-id "$HOSTNAME-$(date +%s)"`, "Prefer $CODEMODE_HOST_TOKEN,", "\n  CODEMODE_HOST_TOKEN=secret codemode-host --listen", "\n          codemode-host --version\n"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("--help lacks %q:\n%s", want, stdout)
		}
	}
	if strings.ContainsAny(stdout, "{}") {
		t.Errorf("--help has a placeholder left:\n%s", stdout)
	}
}

// A wrong flag is echoed as the help spells it, with two dashes, whatever the user typed.
func TestWrongFlagsAreEchoedWithTwoDashes(t *testing.T) {
	cases := []struct {
		args    []string
		problem string
	}{
		{[]string{"--wiat"}, "flag provided but not defined: --wiat"},
		{[]string{"-wiat"}, "flag provided but not defined: --wiat"},
		{[]string{"--tools"}, "flag needs an argument: --tools"},
		{[]string{"--pool-size", "many"}, `invalid value "many" for flag --pool-size: parse error`},
		{[]string{"--version=maybe"}, `invalid boolean value "maybe" for --version: parse error`},
	}
	for _, c := range cases {
		want := "codemode-host: " + c.problem + "\nusage: codemode-host [--listen "
		_, stderr, status := runOnce(t, bin, c.args...)
		if status != 2 || !strings.HasPrefix(stderr, want) {
			t.Errorf("%v: exit status %d, stderr %q, want 2 and a start of %q", c.args, status, stderr, want)
		}
	}
}
