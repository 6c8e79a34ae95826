package main

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// fakeCodexTree lays out an npm install of Codex under modules (its shim and the platform
// package's binary folder, with stand-in files) and returns the folder of the binary.
func fakeCodexTree(t *testing.T, modules string) string {
	t.Helper()
	plat := codexPlatforms[runtime.GOOS+"/"+runtime.GOARCH]
	bin := filepath.Join(modules, "@openai", "codex-"+plat.npm, "vendor", plat.triple, "bin")
	shimDir := filepath.Join(modules, "@openai", "codex", "bin")
	for _, dir := range []string{bin, shimDir, filepath.Join(modules, ".bin")} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{
		filepath.Join(bin, exeName("codex")): "\x7fELF stand-in",
		filepath.Join(shimDir, "codex.js"):   "#!/usr/bin/env node\n",
		filepath.Join(bin, hostFileName):     "\x7fELF stand-in host",
	}
	for path, content := range files {
		if err := os.WriteFile(path, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join("..", "@openai", "codex", "bin", "codex.js"), filepath.Join(modules, ".bin", "codex")); err != nil {
		t.Fatal(err)
	}
	return bin
}

// Codex is found where it runs from however the user names it: npm's link in node_modules/.bin,
// the shim itself, the binary, a local prefix, or a global prefix (lib/node_modules).
func TestLocateCodexResolvesTheShimToThePlatformBinary(t *testing.T) {
	if _, ok := codexPlatforms[runtime.GOOS+"/"+runtime.GOARCH]; !ok || runtime.GOOS == "windows" {
		t.Skip("Codex publishes no npm build for " + runtime.GOOS + "/" + runtime.GOARCH + " with symlinked shims")
	}
	local := t.TempDir()
	localBin := fakeCodexTree(t, filepath.Join(local, "node_modules"))
	global := t.TempDir()
	globalBin := fakeCodexTree(t, filepath.Join(global, "lib", "node_modules"))
	cases := []struct {
		name    string
		flags   locateFlags
		wantDir string
		shimDir string
	}{
		{"npm's link", locateFlags{codex: filepath.Join(local, "node_modules", ".bin", "codex")}, localBin, filepath.Join(local, "node_modules", ".bin")},
		{"the shim", locateFlags{codex: filepath.Join(local, "node_modules", "@openai", "codex", "bin", "codex.js")}, localBin, filepath.Join(local, "node_modules", "@openai", "codex", "bin")},
		{"the binary", locateFlags{codex: filepath.Join(localBin, "codex")}, localBin, ""},
		{"a local prefix", locateFlags{prefix: local}, localBin, filepath.Join(local, "node_modules", ".bin")},
		{"a global prefix", locateFlags{prefix: global}, globalBin, filepath.Join(global, "bin")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := c.flags.locate()
			if err != nil {
				t.Fatal(err)
			}
			if got.Dir != c.wantDir || got.Agent != filepath.Join(c.wantDir, "codex") || got.Host() != filepath.Join(c.wantDir, hostFileName) {
				t.Errorf("located %+v, want the folder %s", got, c.wantDir)
			}
			if c.shimDir != "" && !slices.Contains(got.ShimDirs, c.shimDir) {
				t.Errorf("shim folders %v lack %s", got.ShimDirs, c.shimDir)
			}
		})
	}
}

// A shim without its platform package (npm install --omit=optional), a prefix without Codex and
// contradictory flags are errors that say what to do.
func TestLocateCodexErrorsSayWhatToDo(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinked shims")
	}
	noPlatform := t.TempDir()
	bin := fakeCodexTree(t, filepath.Join(noPlatform, "node_modules"))
	if err := os.RemoveAll(filepath.Dir(filepath.Dir(filepath.Dir(bin)))); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		flags locateFlags
		want  string
	}{
		{"no platform package", locateFlags{prefix: noPlatform}, "reinstall Codex with npm install @openai/codex"},
		{"no Codex in the prefix", locateFlags{prefix: t.TempDir()}, "holds no npm-installed Codex"},
		{"both flags", locateFlags{codex: "x", prefix: "y"}, "give --codex or --prefix, not both"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := c.flags.locate()
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("locate: %v, want an error saying %q", err, c.want)
			}
		})
	}
}

// An install over a host that is neither codemode's nor the one kept aside is refused, and
// nothing is moved: Codex's own host is never overwritten once kept.
func TestInstallNeverOverwritesTheKeptHost(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	c := codexInstall{Dir: dir, Agent: filepath.Join(dir, "codex")}
	for path, content := range map[string]string{c.Host(): "a new Codex host", c.Saved(): "the Codex host kept"} {
		if err := os.WriteFile(path, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	var out strings.Builder
	err = installCodemodeHost(&out, c, self)
	if err == nil || !strings.Contains(err.Error(), "move one of them away") {
		t.Fatalf("install: %v, want a refusal", err)
	}
	for path, want := range map[string]string{c.Host(): "a new Codex host", c.Saved(): "the Codex host kept"} {
		if got, _ := os.ReadFile(path); string(got) != want {
			t.Errorf("%s holds %q, want %q", path, got, want)
		}
	}
}

// The test binary is a codemode build (it records the module), a text file is not; so is the
// host name Codex spawns recognized with and without .exe.
func TestCodemodeBuildAndHostName(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := codemodeBuild(self); !ok {
		t.Errorf("%s (this test) is not recognized as a codemode build", self)
	}
	text := filepath.Join(t.TempDir(), "host")
	if err := os.WriteFile(text, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, ok := codemodeBuild(text); ok {
		t.Error("a shell script is recognized as a codemode build")
	}
	for name, want := range map[string]bool{"/x/codex-code-mode-host": true, `codex-code-mode-host.exe`: true, "codemode": false, "codemode-host": false} {
		if got := runsAsCodexHost(name); got != want {
			t.Errorf("runsAsCodexHost(%q) = %v, want %v", name, got, want)
		}
	}
}

// Wrong invocations of `codemode codex` exit 2 and say what was wrong, before anything is looked
// up or changed.
func TestCodexWrongInvocations(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"codex"}, "say what to do: install, uninstall or doctor"},
		{[]string{"codex", "reinstall"}, `unknown subcommand "reinstall"`},
		{[]string{"codex", "install", "--timeout", "1s"}, "--timeout is a flag of doctor only"},
		{[]string{"codex", "doctor", "--host", "x"}, "--host is a flag of install only"},
		{[]string{"codex", "doctor", "--timeout", "0s"}, "--timeout must be positive"},
		{[]string{"codex", "uninstall", "extra"}, `unexpected argument "extra"`},
		{[]string{"codex", "install", "--bogus"}, "flag provided but not defined: "},
	}
	for _, c := range cases {
		got := runArgs(t, "", c.args...)
		if got.status != exitUsage || !strings.Contains(got.stderr, c.want) || !strings.Contains(got.stderr, "usage: codemode codex") {
			t.Errorf("codemode %v: exit status %d, stderr %q; want 2, %q and the synopsis", c.args, got.status, got.stderr, c.want)
		}
	}
}

// `codex features list` (0.171's layout: name, stage, state) decides the transport doctor
// expects; a feature the list lacks is off.
func TestParseCodexFeatures(t *testing.T) {
	out := "code_mode                                under development  true\n" +
		"code_mode_buffered_exec                  removed            false\n" +
		"code_mode_host                           stable             true\n" +
		"code_mode_host_grpc                      stable             false\n" +
		"code_mode_interrupt                      stable             true\n"
	got := parseFeatures(out)
	want := codexFeatures{codeMode: true, host: true, grpc: false, truncation: false, interrupt: true}
	if got != want {
		t.Errorf("parseFeatures = %+v, want %+v", got, want)
	}
	for in, want := range map[string]string{"/tmp/p": "/tmp/p", "my dir": "'my dir'", "it's": `'it'\''s'`} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}

// In a folder where Codex has no host of its own, install says there is nothing to keep aside,
// and uninstall removes codemode's host, then has nothing to do.
func TestInstallIntoAFolderWithoutHost(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	c := codexInstall{Dir: dir, Agent: filepath.Join(dir, "codex")}
	steps := []struct {
		run  func(w *strings.Builder) error
		want string
	}{
		{func(w *strings.Builder) error { return installCodemodeHost(w, c, self) }, "Codex has no code-mode host in " + dir + ": nothing to keep aside\ninstalled codemode's host: " + self + " -> " + c.Host() + "\n"},
		{func(w *strings.Builder) error { return uninstallCodemodeHost(w, c) }, "removed codemode's host " + c.Host() + " (Codex had no host of its own here to restore)\n"},
		{func(w *strings.Builder) error { return uninstallCodemodeHost(w, c) }, "nothing to do: there is no code-mode host in " + dir + "\n"},
	}
	for i, s := range steps {
		var w strings.Builder
		if err := s.run(&w); err != nil || w.String() != s.want {
			t.Fatalf("step %d: %v, printed %q, want %q", i+1, err, w.String(), s.want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("the folder still holds %v", entries)
	}
}
