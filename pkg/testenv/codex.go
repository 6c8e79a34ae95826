package testenv

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// CodexDirEnv names a node_modules directory to take the Codex binaries from instead of the
// project's own: `make codex-next` installs the newest release elsewhere and runs the same
// suites against it.
const CodexDirEnv = "CODEMODE_CODEX_NODE_MODULES"

// Codex is an installed @openai/codex package: the agent CLI and Codex's own code-mode host.
type Codex struct {
	// Version is the package's version ("0.171.0").
	Version string
	// Agent is the path of the `codex` executable.
	Agent string
	// Host is the path of `codex-code-mode-host`, Codex's V8 host.
	Host string
}

// FindCodex returns the pinned Codex package installed by the project's setup (npm ci), or the
// one under $CODEMODE_CODEX_NODE_MODULES. A missing package skips the test on a developer's
// machine and fails it in CI (SkipUnlessCI).
func FindCodex(t testing.TB) Codex {
	t.Helper()
	External(t, "the real Codex binaries")
	c, err := LocateCodex()
	if err != nil {
		SkipUnlessCI(t, err.Error()+" (run `make setup`)")
	}
	return c
}

// LocateCodex finds the Codex package without a test: in $CODEMODE_CODEX_NODE_MODULES, or in
// the node_modules beside the nearest package.json above the working directory.
func LocateCodex() (Codex, error) {
	modules := os.Getenv(CodexDirEnv)
	if modules == "" {
		root, err := projectRoot()
		if err != nil {
			return Codex{}, err
		}
		modules = filepath.Join(root, "node_modules")
	}
	return codexIn(modules)
}

// projectRoot is the nearest directory above the working directory holding package.json.
func projectRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("locating the project root: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "package.json")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no package.json above the working directory")
		}
		dir = parent
	}
}

// codexIn reads the package under modules: its version, and the binaries of this platform's
// package (@openai/codex-linux-x64/vendor/<target triple>/bin).
func codexIn(modules string) (Codex, error) {
	version, err := packageVersion(filepath.Join(modules, "@openai", "codex", "package.json"))
	if err != nil {
		return Codex{}, fmt.Errorf("@openai/codex is not installed in %s: %w", modules, err)
	}
	platform, ok := npmPlatforms[runtime.GOOS+"/"+runtime.GOARCH]
	if !ok {
		return Codex{}, fmt.Errorf("@openai/codex has no package for %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	pattern := filepath.Join(modules, "@openai", "codex-"+platform, "vendor", "*", "bin", "codex")
	agents, _ := filepath.Glob(pattern)
	if len(agents) != 1 {
		return Codex{}, fmt.Errorf("@openai/codex %s: %d binaries match %s, want 1", version, len(agents), pattern)
	}
	c := Codex{Version: version, Agent: agents[0], Host: filepath.Join(filepath.Dir(agents[0]), "codex-code-mode-host")}
	if _, err := os.Stat(c.Host); err != nil {
		return Codex{}, fmt.Errorf("@openai/codex %s has no code-mode host: %w", version, err)
	}
	return c, nil
}

// npmPlatforms maps GOOS/GOARCH to the suffix of Codex's platform package.
var npmPlatforms = map[string]string{
	"linux/amd64":  "linux-x64",
	"linux/arm64":  "linux-arm64",
	"darwin/amd64": "darwin-x64",
	"darwin/arm64": "darwin-arm64",
}

// packageVersion reads the version of a package.json.
func packageVersion(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	var pkg struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(data, &pkg); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	if pkg.Version == "" {
		return "", fmt.Errorf("%s has no version", path)
	}
	return pkg.Version, nil
}
