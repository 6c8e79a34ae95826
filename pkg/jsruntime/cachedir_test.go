package jsruntime

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCompileCacheDir: a directory the caller chose is created or refused; the default one,
// when it cannot be created (here a file stands where the user cache directory should be, as a
// stray binary at /tmp/codemode did on this machine), gives way to a cache in memory instead of
// failing the runtime.
func TestCompileCacheDir(t *testing.T) {
	tmp := t.TempDir()
	file := filepath.Join(tmp, "a-file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}

	chosen := filepath.Join(tmp, "chosen", "cache")
	if dir, err := compileCacheDir(chosen); err != nil || dir != chosen {
		t.Errorf("compileCacheDir(%q) = %q, %v", chosen, dir, err)
	} else if fi, err := os.Stat(chosen); err != nil || !fi.IsDir() {
		t.Errorf("%s was not created: %v", chosen, err)
	}
	if _, err := compileCacheDir(filepath.Join(file, "cache")); err == nil || !strings.HasPrefix(err.Error(), "jsruntime: create cache dir: ") {
		t.Errorf("a chosen directory under a file: %v, want the create error", err)
	}

	t.Setenv("XDG_CACHE_HOME", file)
	t.Setenv("HOME", file)
	if dir, err := compileCacheDir(""); err != nil || dir != "" {
		t.Errorf("default directory under a file: %q, %v; want the in-memory cache (\"\", nil)", dir, err)
	}
	t.Setenv("XDG_CACHE_HOME", filepath.Join(tmp, "xdg"))
	if dir, err := compileCacheDir(""); err != nil || dir != filepath.Join(tmp, "xdg", "codemode", "wazero") {
		t.Errorf("default directory: %q, %v", dir, err)
	}
}
