package main

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codemodehq/codemode/pkg/testenv"
	"github.com/codemodehq/codemode/pkg/testenv/fakemodel"
)

// The tests here install codemode under a real Codex, installed as npm installs it into a
// temporary prefix (from the project's pinned @openai/codex, without downloading), and run the
// built codemode and codemode-host binaries and the real Codex agent as separate processes.

// codexWaitLimit bounds each program the tests run; it asserts no speed.
const codexWaitLimit = 5 * time.Minute

// codexBinaries are codemode and codemode-host built into one directory, as a release ships
// them: install's default host is the codemode-host beside codemode.
type codexBinaries struct{ codemode, host string }

// buildCodexBinaries builds both programs into a directory of t's.
func buildCodexBinaries(t *testing.T) codexBinaries {
	t.Helper()
	dir := t.TempDir()
	for _, pkg := range []string{".", "../codemode-host"} {
		if out, err := exec.Command("go", "build", "-o", dir, pkg).CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", pkg, err, out)
		}
	}
	return codexBinaries{filepath.Join(dir, "codemode"), filepath.Join(dir, "codemode-host")}
}

// TestCodexCommand runs the cases of `codemode codex` on one build of the two programs.
func TestCodexCommand(t *testing.T) {
	testenv.FindCodex(t)
	bins := buildCodexBinaries(t)
	t.Run("install, doctor, codex exec, uninstall", func(t *testing.T) { testInstallDoctorUninstall(t, bins) })
	t.Run("a host beside the shim", func(t *testing.T) { testHostBesideShim(t, bins) })
	t.Run("install without codemode-host, V1", func(t *testing.T) { testInstallWithoutCodemodeHost(t, bins) })
}

// npmPrefix is Codex installed into a temporary npm prefix: node_modules/@openai/codex (the
// shim), the platform package with its binaries, and node_modules/.bin/codex, npm's link.
type npmPrefix struct {
	dir  string // the prefix
	shim string // node_modules/.bin/codex
	bin  string // the platform package's folder of binaries, where Codex looks for its host
}

// host is where Codex looks for its host, and saved where install keeps Codex's own.
func (p npmPrefix) host() string  { return filepath.Join(p.bin, "codex-code-mode-host") }
func (p npmPrefix) saved() string { return p.host() + ".codex-original" }

// installCodexPrefix installs Codex into a new npm prefix as its users do: `npm install
// @openai/codex@VERSION` with the version the project pins (package.json), which brings the
// platform package with the binaries. npm's cache, which the project's setup filled with the same
// tarballs, makes it quick (--prefer-offline; only the package's metadata is asked of the
// registry).
func installCodexPrefix(t *testing.T) npmPrefix {
	t.Helper()
	testenv.FindCodex(t)
	npm, err := exec.LookPath("npm")
	if err != nil {
		testenv.SkipUnlessCI(t, "npm is not on PATH: "+err.Error())
	}
	prefix := t.TempDir()
	cmd := exec.Command(npm, "install", "--prefer-offline", "--no-audit", "--no-fund", "--prefix", prefix, "@openai/codex@"+pinnedCodexVersion(t))
	if out, err := cmd.CombinedOutput(); err != nil {
		testenv.SkipUnlessCI(t, fmt.Sprintf("npm install @openai/codex into %s: %v\n%s", prefix, err, out))
	}
	modules := filepath.Join(prefix, "node_modules")
	bins, err := filepath.Glob(filepath.Join(modules, "@openai", "codex-*", "vendor", "*", "bin", "codex"))
	if err != nil || len(bins) != 1 {
		t.Fatalf("npm installed no single platform binary of Codex under %s: %v %v", modules, bins, err)
	}
	return npmPrefix{dir: prefix, shim: filepath.Join(modules, ".bin", "codex"), bin: filepath.Dir(bins[0])}
}

// pinnedCodexVersion is the version of @openai/codex the project pins in package.json.
func pinnedCodexVersion(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	var pkg struct {
		DevDependencies map[string]string `json:"devDependencies"`
		Dependencies    map[string]string `json:"dependencies"`
	}
	if err := json.Unmarshal(data, &pkg); err != nil {
		t.Fatal(err)
	}
	v := cmp.Or(pkg.DevDependencies["@openai/codex"], pkg.Dependencies["@openai/codex"])
	if v == "" {
		t.Fatal("package.json pins no @openai/codex")
	}
	return v
}

// copyFile copies src to dst with mode.
func copyFile(src, dst string, mode os.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		_ = out.Close()
		return err
	}
	return out.Close()
}

// sha256File is the hex SHA-256 of a file's bytes.
func sha256File(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// cliRun is one run of the built codemode.
type cliRun struct {
	stdout, stderr string
	status         int
}

// runCodemode runs the built codemode with args (and env added) and returns what it printed and
// its exit status.
func runCodemode(t *testing.T, codemode string, env []string, args ...string) cliRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), codexWaitLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, codemode, args...)
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("codemode %s: %v", strings.Join(args, " "), err)
	}
	return cliRun{stdout.String(), stderr.String(), cmd.ProcessState.ExitCode()}
}

// userCodexHome is a CODEX_HOME for the user doctor checks, with code mode on and the features
// given (one "name = value" line each), so that no test reads the machine's ~/.codex.
func userCodexHome(t *testing.T, features ...string) []string {
	t.Helper()
	home := t.TempDir()
	config := "[features]\ncode_mode = true\n" + strings.Join(features, "\n") + "\n"
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	return []string{"CODEX_HOME=" + home}
}

// wantLines fails t unless out holds every text of want.
func wantLines(t *testing.T, what, out string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, out)
		}
	}
}

// testInstallDoctorUninstall: from Codex installed with npm into a temporary prefix,
// `codemode codex install` puts codemode-host where Codex looks (a second install changes
// nothing), `doctor` passes with the host's own start line as proof, a `codex exec` through
// npm's shim with Codex's default spawn runs its cell on codemode, and `uninstall` restores
// Codex's host byte-identical, after which doctor fails and says how to fix it.
func testInstallDoctorUninstall(t *testing.T, bins codexBinaries) {
	codemode, codemodeHost := bins.codemode, bins.host
	p := installCodexPrefix(t)
	original := sha256File(t, p.host())
	env := userCodexHome(t)

	install := runCodemode(t, codemode, env, "codex", "install", "--prefix", p.dir)
	if install.status != exitOK {
		t.Fatalf("install: exit status %d\n%s%s", install.status, install.stdout, install.stderr)
	}
	wantLines(t, "install's report", install.stdout,
		fmt.Sprintf("kept Codex's own host aside: %s -> %s\n", p.host(), p.saved()),
		fmt.Sprintf("installed codemode's host: %s -> %s\n", codemodeHost, p.host()))
	if got := sha256File(t, p.saved()); got != original {
		t.Fatalf("Codex's host kept aside has sha256 %s, want %s", got, original)
	}
	if sha256File(t, p.host()) != sha256File(t, codemodeHost) {
		t.Fatal("the installed host differs from codemode-host")
	}

	again := runCodemode(t, codemode, env, "codex", "install", "--prefix", p.dir)
	wantLines(t, "a second install's report", again.stdout, "nothing to do: "+p.host()+" is already codemode's host")
	if again.status != exitOK || sha256File(t, p.saved()) != original {
		t.Fatalf("a second install: exit status %d, or it touched the saved host\n%s%s", again.status, again.stdout, again.stderr)
	}

	doctor := runCodemode(t, codemode, env, "codex", "doctor", "--prefix", p.dir)
	if doctor.status != exitOK {
		t.Fatalf("doctor after install: exit status %d\n%s%s", doctor.status, doctor.stdout, doctor.stderr)
	}
	wantLines(t, "doctor's report", doctor.stdout, "ok    host         Codex will spawn "+p.host()+": codemode's host",
		"gRPC on the host's stdin and stdout", "ok    turn", `msg="code-mode host `, "Codex runs its cells on codemode.")

	turn := codexExecThroughShim(t, p)
	if identity, ok := turn.codemodeIdentity(); !ok || !strings.Contains(identity, " listen=grpc+stdio://") {
		t.Fatalf("codex exec through the npm shim: no codemode host on grpc+stdio:// in Codex's log of its host:\n%s", turn.stderr)
	}

	uninstall := runCodemode(t, codemode, env, "codex", "uninstall", "--prefix", p.dir)
	if uninstall.status != exitOK {
		t.Fatalf("uninstall: exit status %d\n%s%s", uninstall.status, uninstall.stdout, uninstall.stderr)
	}
	wantLines(t, "uninstall's report", uninstall.stdout, fmt.Sprintf("restored Codex's own host: %s -> %s\n", p.saved(), p.host()))
	if got := sha256File(t, p.host()); got != original {
		t.Fatalf("after uninstall Codex's host has sha256 %s, want %s", got, original)
	}
	if _, err := os.Lstat(p.saved()); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("after uninstall %s is still there (%v)", p.saved(), err)
	}
	twice := runCodemode(t, codemode, env, "codex", "uninstall", "--prefix", p.dir)
	wantLines(t, "a second uninstall's report", twice.stdout, "nothing to do: "+p.host()+" is Codex's own host")

	after := runCodemode(t, codemode, env, "codex", "doctor", "--prefix", p.dir)
	if after.status != exitFailed {
		t.Fatalf("doctor on Codex's own host: exit status %d, want %d\n%s", after.status, exitFailed, after.stdout)
	}
	wantLines(t, "doctor's report on Codex's own host", after.stdout, "FAIL  host", "fix: codemode codex install --prefix "+p.dir,
		"FAIL  turn         codex exec ran the cell, but not on codemode")
}

// codexExecThroughShim runs one offline turn as a user would: `codex exec` through npm's shim
// (node runs bin/codex.js, which runs the platform binary), Codex's default features.
func codexExecThroughShim(t *testing.T, p npmPrefix) offlineTurn {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		testenv.SkipUnlessCI(t, "node not on PATH: npm's codex shim needs it")
	}
	model, err := fakemodel.Start(fakemodel.Exec("call_1", doctorCell), fakemodel.Say("done"))
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	home := t.TempDir()
	if err := fakemodel.WriteHome(home, model.URL); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), codexWaitLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, p.shim, "exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", "run the script")
	cmd.Dir, cmd.Env = t.TempDir(), append(fakemodel.Env(home), hostLogFilter)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("codex exec through %s: %v\n%s", p.shim, err, stderr.String())
	}
	turn := offlineTurn{stderr: stderr.String()}
	requests := model.Requests()
	if len(requests) < 2 {
		t.Fatalf("the model got %d requests, want 2; Codex's stderr:\n%s", len(requests), turn.stderr)
	}
	for _, o := range fakemodel.ToolOutputs(requests[1]) {
		turn.output += string(o.Output)
	}
	if !strings.Contains(turn.output, doctorCellSays) {
		t.Fatalf("the model was not sent %q: %s", doctorCellSays, turn.output)
	}
	return turn
}

// testHostBesideShim: a host put beside npm's shim, where Codex never looks
// (what a user following the shim's path does), is a FAIL naming the folder Codex does look in.
func testHostBesideShim(t *testing.T, bins codexBinaries) {
	codemode, codemodeHost := bins.codemode, bins.host
	p := installCodexPrefix(t)
	stray := filepath.Join(filepath.Dir(p.shim), "codex-code-mode-host")
	if err := copyFile(codemodeHost, stray, 0o755); err != nil {
		t.Fatal(err)
	}
	doctor := runCodemode(t, codemode, userCodexHome(t), "codex", "doctor", "--codex", p.shim)
	if doctor.status != exitFailed {
		t.Fatalf("doctor: exit status %d, want %d\n%s", doctor.status, exitFailed, doctor.stdout)
	}
	wantLines(t, "doctor's report", doctor.stdout,
		"FAIL  misplaced    "+stray+" is never used: it sits beside the npm shim, and Codex looks for its host beside the binary the shim runs, in "+p.bin+".",
		"fix: remove "+stray+", then codemode codex install --codex "+p.shim,
		"FAIL  host         Codex will spawn "+p.host()+", which is not codemode's")
}

// testInstallWithoutCodemodeHost: with no codemode-host beside codemode, install copies
// codemode itself, which serves as the host under Codex's name; doctor passes with Codex set to
// spawn its host on V1 (code_mode_host_grpc off), and a missing host is a FAIL.
func testInstallWithoutCodemodeHost(t *testing.T, bins codexBinaries) {
	built := bins.codemode
	alone := filepath.Join(t.TempDir(), "codemode")
	if err := copyFile(built, alone, 0o755); err != nil {
		t.Fatal(err)
	}
	p := installCodexPrefix(t)
	env := userCodexHome(t, "code_mode_host_grpc = false")
	install := runCodemode(t, alone, env, "codex", "install", "--prefix", p.dir)
	wantLines(t, "install's report", install.stdout, fmt.Sprintf("installed codemode's host: %s -> %s\n", alone, p.host()))
	doctor := runCodemode(t, alone, env, "codex", "doctor", "--prefix", p.dir)
	if doctor.status != exitOK {
		t.Fatalf("doctor: exit status %d\n%s%s", doctor.status, doctor.stdout, doctor.stderr)
	}
	wantLines(t, "doctor's report", doctor.stdout, "Protocol V1 on the host's stdin and stdout", "ok    capabilities",
		"ok    turn", "listen=stdio")

	if err := os.Remove(p.host()); err != nil {
		t.Fatal(err)
	}
	missing := runCodemode(t, alone, env, "codex", "doctor", "--prefix", p.dir)
	if missing.status != exitFailed {
		t.Fatalf("doctor without a host: exit status %d\n%s", missing.status, missing.stdout)
	}
	wantLines(t, "doctor's report without a host", missing.stdout, "FAIL  host         "+p.host()+" is missing (Codex's own host was kept aside as "+p.saved()+")")
}
