package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// Where an installed Codex keeps the binary it runs, and so where it looks for its code-mode
// host (docs/codex.md): the npm package @openai/codex installs a JavaScript shim (bin/codex.js,
// linked as node_modules/.bin/codex) that runs the real binary of a per-platform package,
// node_modules/@openai/codex-<platform>/vendor/<target triple>/bin/codex. Codex looks for
// codex-code-mode-host beside that resolved binary only; a host anywhere else is ignored and
// Codex quietly runs its own.

// codexPlatform is the npm platform package suffix and the target triple of this machine's
// Codex build.
type codexPlatform struct{ npm, triple string }

// codexPlatforms maps GOOS/GOARCH to Codex's platform packages (the optionalDependencies of
// @openai/codex).
var codexPlatforms = map[string]codexPlatform{
	"linux/amd64":   {"linux-x64", "x86_64-unknown-linux-musl"},
	"linux/arm64":   {"linux-arm64", "aarch64-unknown-linux-musl"},
	"darwin/amd64":  {"darwin-x64", "x86_64-apple-darwin"},
	"darwin/arm64":  {"darwin-arm64", "aarch64-apple-darwin"},
	"windows/amd64": {"win32-x64", "x86_64-pc-windows-msvc"},
	"windows/arm64": {"win32-arm64", "aarch64-pc-windows-msvc"},
}

// exeName is name with the executable suffix of this OS.
func exeName(name string) string {
	if runtime.GOOS == "windows" {
		return name + ".exe"
	}
	return name
}

// hostFileName is the name Codex spawns its host by.
var hostFileName = exeName("codex-code-mode-host")

// savedSuffix names Codex's own host once install has kept it aside.
const savedSuffix = ".codex-original"

// codexInstall is an installed Codex, located.
type codexInstall struct {
	// Dir is the folder of the binary Codex runs: where it looks for its host.
	Dir string
	// Agent is the codex executable in Dir.
	Agent string
	// Found says how it was found, for the report ("the npm shim /p/node_modules/.bin/codex").
	Found string
	// ShimDirs are the folders of the npm shims it was found through (node_modules/.bin, the
	// package's bin/): a host put there is never used, and doctor says so.
	ShimDirs []string
}

// Host is where Codex looks for its code-mode host.
func (c codexInstall) Host() string { return filepath.Join(c.Dir, hostFileName) }

// Saved is where install keeps Codex's own host.
func (c codexInstall) Saved() string { return c.Host() + savedSuffix }

// locateFlags are the flags every `codemode codex` subcommand locates Codex with.
type locateFlags struct {
	codex  string
	prefix string
}

// locate finds Codex as the flags say: a given executable or shim, an npm prefix, or codex on
// PATH.
func (f locateFlags) locate() (codexInstall, error) {
	switch {
	case f.codex != "" && f.prefix != "":
		return codexInstall{}, errors.New("give --codex or --prefix, not both")
	case f.codex != "":
		return resolveCodex(f.codex, "--codex "+f.codex)
	case f.prefix != "":
		return codexInPrefix(f.prefix)
	}
	path, err := exec.LookPath("codex") // on Windows also codex.cmd, npm's shim (PATHEXT)
	if err != nil {
		return codexInstall{}, errors.New("codex is not on PATH: say where it is with --codex PATH (the codex command or its binary) or --prefix DIR (the npm prefix it was installed into)")
	}
	return resolveCodex(path, "codex on PATH ("+path+")")
}

// codexInPrefix finds the @openai/codex package in an npm prefix: DIR/node_modules (npm install
// in DIR, npm -g on Windows) or DIR/lib/node_modules (npm -g on Unix).
func codexInPrefix(prefix string) (codexInstall, error) {
	var tried []string
	for _, modules := range []string{filepath.Join(prefix, "node_modules"), filepath.Join(prefix, "lib", "node_modules")} {
		shim := filepath.Join(modules, "@openai", "codex", "bin", "codex.js")
		if isFile(shim) {
			c, err := resolveShim(shim, "--prefix "+prefix)
			c.ShimDirs = append(c.ShimDirs, filepath.Join(modules, ".bin"), filepath.Join(prefix, "bin"))
			return c, err
		}
		tried = append(tried, shim)
	}
	return codexInstall{}, fmt.Errorf("--prefix %s holds no npm-installed Codex (no %s): give the directory npm install @openai/codex ran in, or npm's global prefix (npm prefix -g)", prefix, strings.Join(tried, " nor "))
}

// resolveCodex resolves path (the codex command the user runs, or its binary) to the binary
// Codex runs.
func resolveCodex(path, found string) (codexInstall, error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return codexInstall{}, fmt.Errorf("%s: %w", found, err)
	}
	if info, err := os.Stat(real); err == nil && info.IsDir() {
		if isFile(filepath.Join(real, exeName("codex"))) {
			return binaryInstall(filepath.Join(real, exeName("codex")), found)
		}
		return codexInPrefix(real)
	}
	if isNodeScript(real) {
		c, err := resolveShim(real, found)
		c.ShimDirs = append(c.ShimDirs, filepath.Dir(path))
		return c, err
	}
	if windowsShim(path) {
		// npm's .cmd and .ps1 shims on Windows sit in the prefix beside node_modules.
		return codexInPrefix(filepath.Dir(path))
	}
	return binaryInstall(real, found)
}

// binaryInstall is Codex found as its binary.
func binaryInstall(agent, found string) (codexInstall, error) {
	dir, err := filepath.Abs(filepath.Dir(agent))
	if err != nil {
		return codexInstall{}, err
	}
	return codexInstall{Dir: dir, Agent: filepath.Join(dir, filepath.Base(agent)), Found: found}, nil
}

// resolveShim follows the npm shim codex.js (…/@openai/codex/bin/codex.js) to the binary it runs,
// as the shim does: the platform package resolved the way Node resolves it from the package
// (node_modules folders up the tree), else the package's own vendor folder.
func resolveShim(shim, found string) (codexInstall, error) {
	plat, ok := codexPlatforms[runtime.GOOS+"/"+runtime.GOARCH]
	if !ok {
		return codexInstall{}, fmt.Errorf("the npm package @openai/codex has no build for %s/%s: give the codex binary with --codex PATH", runtime.GOOS, runtime.GOARCH)
	}
	pkg := filepath.Dir(filepath.Dir(shim))
	rel := filepath.Join("vendor", plat.triple, "bin", exeName("codex"))
	candidates := nodeResolve(pkg, filepath.Join("@openai", "codex-"+plat.npm, rel))
	candidates = append(candidates, filepath.Join(pkg, rel))
	for _, agent := range candidates {
		if isFile(agent) {
			c, err := binaryInstall(agent, found)
			c.Found = fmt.Sprintf("%s: the npm shim %s, which runs %s", found, shim, c.Agent)
			c.ShimDirs = []string{filepath.Dir(shim)}
			return c, err
		}
	}
	return codexInstall{}, fmt.Errorf("%s: the npm shim %s runs a binary from @openai/codex-%s, which is not installed (none of %s): reinstall Codex with npm install @openai/codex (npm installs the platform package as an optional dependency; --omit=optional leaves it out)",
		found, shim, plat.npm, strings.Join(candidates, ", "))
}

// nodeResolve lists where Node looks for module path from the package folder pkg: the
// node_modules folder of pkg and of each folder above it.
func nodeResolve(pkg, path string) []string {
	var out []string
	for dir := pkg; ; dir = filepath.Dir(dir) {
		if filepath.Base(dir) != "node_modules" {
			out = append(out, filepath.Join(dir, "node_modules", path))
		}
		if filepath.Dir(dir) == dir {
			return out
		}
	}
}

// isNodeScript reports whether path is a JavaScript file (npm's shim) rather than a binary.
func isNodeScript(path string) bool {
	if strings.HasSuffix(path, ".js") || strings.HasSuffix(path, ".mjs") {
		return true
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 64)
	n, _ := f.Read(head)
	line, _, _ := bytes.Cut(head[:n], []byte("\n"))
	return bytes.HasPrefix(line, []byte("#!")) && bytes.Contains(line, []byte("node"))
}

// windowsShim reports whether path is one of npm's Windows shims.
func windowsShim(path string) bool {
	ext := strings.ToLower(filepath.Ext(path))
	return ext == ".cmd" || ext == ".ps1"
}

// isFile reports whether path is a regular file (after symlinks).
func isFile(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.Mode().IsRegular()
}
