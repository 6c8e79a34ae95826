package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/codemodehq/codemode/pkg/hostprogram"
	"github.com/codemodehq/codemode/pkg/testenv/fakemodel"
)

// The Codex releases codemode was tested with (the pinned @openai/codex and the releases
// docs/codex.md names); outside them doctor warns, since Codex changes its host protocol
// between releases.
var testedCodex = struct{ min, max [2]int }{min: [2]int{0, 169}, max: [2]int{0, 171}}

// checkStatus is the verdict of one doctor check.
type checkStatus string

const (
	checkOK   checkStatus = "ok"
	checkWarn checkStatus = "warn"
	checkFail checkStatus = "FAIL"
)

// doctor runs the checks of `codemode codex doctor` and prints each as it ends.
type doctor struct {
	w      io.Writer
	flags  locateFlags
	limit  time.Duration
	failed int
}

// report prints one check.
func (d *doctor) report(status checkStatus, topic, text string) {
	if status == checkFail {
		d.failed++
	}
	fmt.Fprintf(d.w, "  %-4s  %-12s %s\n", status, topic, strings.ReplaceAll(text, "\n", "\n                     "))
}

// fixFlags is how the user's command line located Codex, for the fixes doctor prints.
func (d *doctor) fixFlags() string {
	switch {
	case d.flags.codex != "":
		return " --codex " + shellQuote(d.flags.codex)
	case d.flags.prefix != "":
		return " --prefix " + shellQuote(d.flags.prefix)
	}
	return ""
}

// shellQuote quotes s for a POSIX shell when it holds anything but plain path characters, so
// that a printed fix can be pasted as it is.
func shellQuote(s string) string {
	plain := s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+:@%~=,") == ""
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// run runs every check and returns the exit status.
func (d *doctor) run() int {
	c, err := d.flags.locate()
	if err != nil {
		d.report(checkFail, "Codex", err.Error())
		return exitFailed
	}
	version := d.checkVersion(c)
	hostIsCodemode := d.checkHost(c)
	d.checkShimDirs(c, hostIsCodemode)
	features := d.checkFeatures(c)
	d.checkCapabilities(c, features, version)
	d.checkTurn(c, features)
	fmt.Fprintln(d.w)
	if d.failed > 0 {
		fmt.Fprintf(d.w, "%d check(s) failed: Codex does not run its cells on codemode. Each FAIL line above says how to fix it.\n", d.failed)
		return exitFailed
	}
	fmt.Fprintln(d.w, "Codex runs its cells on codemode.")
	return exitOK
}

// checkVersion reports Codex's version and whether codemode was tested with it.
func (d *doctor) checkVersion(c codexInstall) string {
	out, err := d.output(c.Agent, "--version")
	if err != nil {
		d.report(checkFail, "Codex", fmt.Sprintf("%s --version failed: %v", c.Agent, err))
		return ""
	}
	line := strings.TrimSpace(firstLine(out))
	d.report(checkOK, "Codex", fmt.Sprintf("%s (%s)\nfound through %s", c.Agent, line, c.Found))
	version := line[strings.LastIndexByte(line, ' ')+1:]
	minor, ok := majorMinor(version)
	switch {
	case !ok:
		d.report(checkWarn, "version", fmt.Sprintf("cannot read a version from %q; codemode was tested with Codex %s", line, testedRange()))
	case less(minor, testedCodex.min) || less(testedCodex.max, minor):
		d.report(checkWarn, "version", fmt.Sprintf("Codex %s is outside the releases codemode was tested with (%s): the turn below shows whether they work together", version, testedRange()))
	default:
		d.report(checkOK, "version", fmt.Sprintf("Codex %s is within the releases codemode was tested with (%s)", version, testedRange()))
	}
	return version
}

// checkHost reports which host Codex will spawn, and whose it is.
func (d *doctor) checkHost(c codexInstall) bool {
	host, saved := c.Host(), c.Saved()
	_, hasHost := fileState(host)
	_, hasSaved := fileState(saved)
	install := "codemode codex install" + d.fixFlags()
	switch {
	case !hasHost && hasSaved:
		d.report(checkFail, "host", fmt.Sprintf("%s is missing (Codex's own host was kept aside as %s): Codex will run without code mode.\nfix: %s (or codemode codex uninstall%s to put Codex's back)", host, saved, install, d.fixFlags()))
		return false
	case !hasHost:
		d.report(checkFail, "host", fmt.Sprintf("%s is missing: Codex will fall back to direct tools, without code mode.\nfix: %s", host, install))
		return false
	}
	identity, isCodemode := d.hostIdentity(host)
	if !isCodemode {
		d.report(checkFail, "host", fmt.Sprintf("Codex will spawn %s, which is %s: cells run on Codex's V8 host.\nfix: %s", host, identity, install))
		return false
	}
	kept := "Codex had no host of its own here"
	if hasSaved {
		kept = "Codex's own is kept as " + saved
	}
	d.report(checkOK, "host", fmt.Sprintf("Codex will spawn %s: codemode's host (%s); %s", host, identity, kept))
	return true
}

// hostIdentity says whose host the executable at path is: codemode's answers --version with a
// line starting "codemode-host "; its build information names codemode's module in any case.
func (d *doctor) hostIdentity(path string) (string, bool) {
	out, _ := d.output(path, "--version")
	if line := firstLine(out); strings.HasPrefix(line, "codemode-host ") {
		return strings.TrimSpace(line), true
	}
	if version, ok := codemodeBuild(path); ok {
		return "build " + version + ", without --version", true
	}
	return "not codemode's (Codex's own V8 host, or another program)", false
}

// checkShimDirs reports hosts put beside the npm shim, where Codex never looks.
func (d *doctor) checkShimDirs(c codexInstall, hostIsCodemode bool) {
	for _, dir := range c.ShimDirs {
		stray := filepath.Join(dir, hostFileName)
		if _, ok := fileState(stray); !ok || filepath.Clean(dir) == filepath.Clean(c.Dir) {
			continue
		}
		if hostIsCodemode {
			d.report(checkWarn, "misplaced", fmt.Sprintf("%s is never used: it sits beside the npm shim; Codex looks for its host in %s only. Remove it.", stray, c.Dir))
			continue
		}
		d.report(checkFail, "misplaced", fmt.Sprintf("%s is never used: it sits beside the npm shim, and Codex looks for its host beside the binary the shim runs, in %s.\nfix: remove %s, then codemode codex install%s", stray, c.Dir, stray, d.fixFlags()))
	}
}

// codexFeatures are the features of the user's Codex configuration that decide how Codex uses
// a host, as `codex features list` reports them.
type codexFeatures struct {
	codeMode, host, grpc, truncation, interrupt bool
}

// checkFeatures reads the user's configuration through `codex features list` and reports the
// transport Codex will use.
func (d *doctor) checkFeatures(c codexInstall) codexFeatures {
	f := codexFeatures{host: true, grpc: true, truncation: true, interrupt: true}
	out, err := d.output(c.Agent, "features", "list")
	if err != nil {
		d.report(checkWarn, "transport", fmt.Sprintf("codex features list failed (%v): assuming Codex's defaults, gRPC on the host's stdin and stdout", err))
		return f
	}
	f = parseFeatures(out)
	if f.codeMode {
		d.report(checkOK, "code mode", "on in your Codex configuration")
	} else {
		d.report(checkWarn, "code mode", "off in your Codex configuration, so Codex spawns no host at all: turn it on with [features] code_mode = true in $CODEX_HOME/config.toml (default ~/.codex), or codex --enable code_mode (the turn below turns it on)")
	}
	if !f.host {
		d.report(checkFail, "transport", "the code_mode_host feature is off in your Codex configuration: Codex spawns no host and falls back to direct tools, without code mode.\nfix: remove code_mode_host = false from [features] in $CODEX_HOME/config.toml")
	} else if f.grpc {
		d.report(checkOK, "transport", "gRPC on the host's stdin and stdout: Codex spawns codex-code-mode-host --listen grpc+stdio:// (code_mode_host_grpc is on)")
	} else {
		d.report(checkOK, "transport", "Protocol V1 on the host's stdin and stdout: Codex spawns codex-code-mode-host with no arguments (code_mode_host_grpc is off)")
	}
	return f
}

// parseFeatures reads the lines of `codex features list`: name, stage, true|false.
func parseFeatures(out string) codexFeatures {
	var f codexFeatures
	set := map[string]*bool{"code_mode": &f.codeMode, "code_mode_host": &f.host, "code_mode_host_grpc": &f.grpc,
		"code_mode_host_output_truncation": &f.truncation, "code_mode_interrupt": &f.interrupt}
	for line := range strings.Lines(out) {
		fields := strings.Fields(line)
		if len(fields) < 2 {
			continue
		}
		if p, ok := set[fields[0]]; ok {
			*p = fields[len(fields)-1] == "true"
		}
	}
	return f
}

// checkCapabilities asks the host Codex will spawn for the capabilities Codex asks for, with
// Codex's own V1 hello, and reports what it grants and which features of the user's
// configuration use them.
func (d *doctor) checkCapabilities(c codexInstall, f codexFeatures, version string) {
	if minor, ok := majorMinor(version); ok && less(minor, testedCodex.min) {
		d.report(checkWarn, "capabilities", fmt.Sprintf("Codex %s predates 0.169 and speaks an older V1 generation: codemode-host serves it with --generation host-duration or baseline, which Codex does not pass; update Codex", version))
	}
	if _, ok := fileState(c.Host()); !ok {
		return
	}
	granted, err := hostGrants(c.Host(), d.limit)
	if err != nil {
		d.report(checkFail, "capabilities", fmt.Sprintf("the host did not answer Codex's V1 hello: %v", err))
		return
	}
	uses := "server-side truncation, since code_mode_host_output_truncation is on"
	if !f.truncation {
		uses = "no server-side truncation (code_mode_host_output_truncation is off)"
	}
	if missing := missingFrom(codexAsks, granted); len(missing) > 0 {
		d.report(checkWarn, "capabilities", fmt.Sprintf("Codex asks for %s; the host grants only [%s], so Codex works without %s (an older host: codemode codex install%s puts the current one in place)",
			strings.Join(codexAsks, ", "), strings.Join(granted, ", "), strings.Join(missing, ", "), d.fixFlags()))
		return
	}
	d.report(checkOK, "capabilities", fmt.Sprintf("the host grants all Codex asks for: %s (asked with Codex's V1 hello); Codex uses %s", strings.Join(granted, ", "), uses))
}

// doctorCell is the cell the doctor's turn runs, and doctorCellSays what it must print.
const (
	doctorCell     = `text("codemode doctor: the cell ran, 6 * 7 = " + 6 * 7)`
	doctorCellSays = "codemode doctor: the cell ran, 6 * 7 = 42"
)

// checkTurn runs one real Codex turn offline against the scripted model and reports which
// host ran its cell.
func (d *doctor) checkTurn(c codexInstall, f codexFeatures) {
	t, err := runOfflineTurn(context.Background(), d.limit, c.Agent, !f.grpc, doctorCell)
	if err != nil {
		d.report(checkFail, "turn", err.Error())
		return
	}
	identity, onCodemode := t.codemodeIdentity()
	wantListen := "grpc+stdio://"
	if !f.grpc {
		wantListen = "stdio"
	}
	switch {
	case !strings.Contains(t.output, doctorCellSays):
		d.report(checkFail, "turn", fmt.Sprintf("codex exec ran, but the model was not sent the cell's output %q; it got:\n%s\nCodex's stderr:\n%s", doctorCellSays, t.output, t.stderr))
	case !onCodemode:
		d.report(checkFail, "turn", fmt.Sprintf("codex exec ran the cell, but not on codemode: Codex's log of its host's stderr has no line %q from codemode-host (the cell ran on Codex's own host).%s", hostprogram.StartedMessage, t.spawnProblem()))
	case !strings.Contains(identity, " listen="+wantListen+" ") && !strings.HasSuffix(identity, " listen="+wantListen):
		d.report(checkWarn, "turn", fmt.Sprintf("codex exec ran the cell on codemode, but its host did not listen on %s as expected:\n%s", wantListen, identity))
	default:
		d.report(checkOK, "turn", fmt.Sprintf("codex exec ran one cell offline, on codemode: Codex logged its host saying\n%s\nand the model was sent %q", identity, doctorCellSays))
	}
}

// offlineTurn is what one offline `codex exec` turn left: the tool output the model was sent,
// and Codex's stderr (with its host's stderr logged at debug level).
type offlineTurn struct {
	output string
	stderr string
}

// hostStderrPrefix starts each line Codex logs of its host's stderr, at debug level: under the
// target codex_core::code_mode_host for a host on gRPC, codex_code_mode::… for one on V1.
const hostStderrPrefix = "code-mode host stderr: "

// hostLogFilter makes Codex log its host's stderr on its own stderr, on either transport.
const hostLogFilter = "RUST_LOG=codex_core::code_mode_host=debug,codex_code_mode=debug"

// codemodeIdentity returns the identity line codemode's host logs when it starts
// (hostprogram.StartedMessage, naming the program, its version and its listeners) from among
// the host's stderr lines Codex logged.
func (t offlineTurn) codemodeIdentity() (string, bool) {
	started := `msg="` + hostprogram.StartedMessage + `"`
	for line := range strings.Lines(t.stderr) {
		_, hostLine, ok := strings.Cut(strings.TrimSpace(line), hostStderrPrefix)
		if ok && strings.Contains(hostLine, started) && strings.Contains(hostLine, " program=codemode-host ") {
			return hostLine, true
		}
	}
	return "", false
}

// spawnProblem returns Codex's complaint about its host, if it made one.
func (t offlineTurn) spawnProblem() string {
	for line := range strings.Lines(t.stderr) {
		if strings.Contains(line, "Code Mode is unavailable") || strings.Contains(line, "code-mode host transport failed") {
			return "\nCodex said: " + strings.TrimSpace(line)
		}
	}
	return ""
}

// runOfflineTurn runs `codex exec` (agent) once in a temporary CODEX_HOME pointing at the
// scripted model, which calls exec with source and then ends the turn. v1 turns
// code_mode_host_grpc off, so that Codex spawns its host on V1. limit bounds the turn.
func runOfflineTurn(ctx context.Context, limit time.Duration, agent string, v1 bool, source string) (offlineTurn, error) {
	model, err := fakemodel.Start(fakemodel.Exec("call_1", source), fakemodel.Say("done"))
	if err != nil {
		return offlineTurn{}, err
	}
	defer model.Close()
	tmp, err := os.MkdirTemp("", "codemode-doctor-")
	if err != nil {
		return offlineTurn{}, err
	}
	defer os.RemoveAll(tmp)
	home, work := filepath.Join(tmp, "codex-home"), filepath.Join(tmp, "work")
	var features []string
	if v1 {
		features = append(features, "code_mode_host_grpc = false")
	}
	if err := fakemodel.WriteHome(home, model.URL, features...); err != nil {
		return offlineTurn{}, err
	}
	if err := os.Mkdir(work, 0o700); err != nil {
		return offlineTurn{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, agent, "exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", "run the script")
	cmd.Dir = work
	cmd.Env = append(fakemodel.Env(home), hostLogFilter)
	cmd.Stdin = strings.NewReader("")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	cmd.Stdout = io.Discard
	runErr := cmd.Run()
	t := offlineTurn{stderr: stderr.String()}
	if ctx.Err() != nil {
		return t, fmt.Errorf("codex exec did not finish within %s (--timeout); Codex's stderr:\n%s", limit, t.stderr)
	}
	if runErr != nil {
		return t, fmt.Errorf("codex exec failed: %v; Codex's stderr:\n%s", runErr, t.stderr)
	}
	if err := model.Err(); err != nil {
		return t, fmt.Errorf("the scripted model: %v; Codex's stderr:\n%s", err, t.stderr)
	}
	for _, req := range model.Requests() {
		for _, o := range fakemodel.ToolOutputs(req) {
			if o.CallID == "call_1" {
				t.output = string(o.Output)
			}
		}
	}
	if t.output == "" {
		return t, errors.New("the model was never sent the exec call's output: code mode may be unavailable; Codex's stderr:\n" + t.stderr)
	}
	return t, nil
}

// output runs path with args in this process's environment and returns its stdout, bounded by
// the doctor's limit; an error carries its stderr.
func (d *doctor) output(path string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), d.limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Stdin = strings.NewReader("")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return string(out), fmt.Errorf("%w: %s", err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}

// firstLine is s up to its first newline.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// majorMinor reads "0.171.0" as {0, 171}.
func majorMinor(version string) ([2]int, bool) {
	parts := strings.SplitN(version, ".", 3)
	if len(parts) < 2 {
		return [2]int{}, false
	}
	major, err1 := strconv.Atoi(parts[0])
	minor, err2 := strconv.Atoi(parts[1])
	return [2]int{major, minor}, err1 == nil && err2 == nil
}

// less orders versions.
func less(a, b [2]int) bool { return a[0] < b[0] || a[0] == b[0] && a[1] < b[1] }

// testedRange names the releases codemode was tested with.
func testedRange() string {
	return fmt.Sprintf("%d.%d to %d.%d", testedCodex.min[0], testedCodex.min[1], testedCodex.max[0], testedCodex.max[1])
}
