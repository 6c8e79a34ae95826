package main

import (
	"bytes"
	"debug/buildinfo"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// codemodeModule is this module's path, which every codemode binary records in its build
// information: how install and doctor tell codemode's host from Codex's without running it.
const codemodeModule = "github.com/codemodehq/codemode"

// codemodeBuild reports whether the executable at path was built from codemode, and its module
// version as the build recorded it.
func codemodeBuild(path string) (version string, ok bool) {
	info, err := buildinfo.ReadFile(path)
	if err != nil || info.Main.Path != codemodeModule {
		return "", false
	}
	return info.Main.Version, true
}

// defaultHostSource is the host install copies when --host is not given: codemode-host beside
// the running codemode, else the running codemode itself, which serves as the host when it is
// run under Codex's name (codex_as_host.go). The fallback keeps `go install …/services/codemode`
// (one binary) enough to switch Codex, and copies a program of the same build as the CLI the
// user ran, never some other codemode-host found on PATH.
func defaultHostSource() (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("locating the running codemode: %w (give the host with --host PATH)", err)
	}
	if real, err := filepath.EvalSymlinks(self); err == nil {
		self = real
	}
	beside := filepath.Join(filepath.Dir(self), exeName("codemode-host"))
	if isFile(beside) {
		return beside, nil
	}
	return self, nil
}

// installCodemodeHost puts the host at source where Codex looks for its host, keeping Codex's
// own aside, and reports each step on w. It changes nothing when the same host is in place.
func installCodemodeHost(w io.Writer, c codexInstall, source string) error {
	if _, ok := codemodeBuild(source); !ok {
		return fmt.Errorf("%s is not a codemode binary (its build information names no %s): give codemode-host with --host PATH", source, codemodeModule)
	}
	host, saved := c.Host(), c.Saved()
	_, hasCurrent := fileState(host)
	_, hasSaved := fileState(saved)
	if hasCurrent {
		if same, err := sameBytes(source, host); err != nil {
			return err
		} else if same {
			fmt.Fprintf(w, "nothing to do: %s is already codemode's host, the same bytes as %s\n", host, source)
			return nil
		}
	}
	_, currentIsCodemode := codemodeBuild(host)
	switch {
	case hasCurrent && !currentIsCodemode && hasSaved:
		return fmt.Errorf("%s is not codemode's host, and Codex's own host was already kept as %s (a Codex update may have brought a new host): move one of them away, then run install again", host, saved)
	case hasCurrent && !currentIsCodemode:
		if err := os.Rename(host, saved); err != nil {
			return fmt.Errorf("keeping Codex's own host aside: %w%s", err, permissionHint(err))
		}
		fmt.Fprintf(w, "kept Codex's own host aside: %s -> %s\n", host, saved)
	case !hasCurrent && !hasSaved:
		fmt.Fprintf(w, "Codex has no code-mode host in %s: nothing to keep aside\n", c.Dir)
	}
	if err := copyExecutable(source, host); err != nil {
		return err
	}
	verb := "installed codemode's host"
	if hasCurrent && currentIsCodemode {
		verb = "updated codemode's host (it was another build)"
	}
	fmt.Fprintf(w, "%s: %s -> %s\n", verb, source, host)
	return nil
}

// uninstallCodemodeHost puts Codex's own host back where install found it, byte-identical, and
// reports each step on w. It changes nothing when Codex's host is in place.
func uninstallCodemodeHost(w io.Writer, c codexInstall) error {
	host, saved := c.Host(), c.Saved()
	_, hasCurrent := fileState(host)
	_, hasSaved := fileState(saved)
	_, currentIsCodemode := codemodeBuild(host)
	switch {
	case hasCurrent && !currentIsCodemode:
		if hasSaved {
			return fmt.Errorf("%s is not codemode's host, yet %s exists: nothing was changed; compare the two and keep the one you want as %s", host, saved, hostFileName)
		}
		fmt.Fprintf(w, "nothing to do: %s is Codex's own host, not codemode's\n", host)
		return nil
	case hasSaved:
		if err := os.Rename(saved, host); err != nil {
			return fmt.Errorf("restoring Codex's own host: %w%s", err, permissionHint(err))
		}
		fmt.Fprintf(w, "restored Codex's own host: %s -> %s\n", saved, host)
		return nil
	case hasCurrent:
		if err := os.Remove(host); err != nil {
			return fmt.Errorf("removing codemode's host: %w%s", err, permissionHint(err))
		}
		fmt.Fprintf(w, "removed codemode's host %s (Codex had no host of its own here to restore)\n", host)
		return nil
	}
	fmt.Fprintf(w, "nothing to do: there is no code-mode host in %s\n", c.Dir)
	return nil
}

// permissionHint says what to do when Codex's folder is not the user's to change, as with a
// global npm install under /usr.
func permissionHint(err error) string {
	if errors.Is(err, fs.ErrPermission) {
		return " (Codex's folder is not writable by you: run the command as the user that installed Codex, with sudo for a system-wide install)"
	}
	return ""
}

// fileState stats path: its info, and whether it exists.
func fileState(path string) (fs.FileInfo, bool) {
	info, err := os.Lstat(path)
	return info, err == nil
}

// sameBytes reports whether the files a and b hold the same bytes.
func sameBytes(a, b string) (bool, error) {
	ia, err := os.Stat(a)
	if err != nil {
		return false, err
	}
	ib, err := os.Stat(b)
	if err != nil {
		return false, nil // a dangling link in Codex's folder is not our host
	}
	if ia.Size() != ib.Size() {
		return false, nil
	}
	da, err := os.ReadFile(a)
	if err != nil {
		return false, err
	}
	db, err := os.ReadFile(b)
	if err != nil {
		return false, err
	}
	return bytes.Equal(da, db), nil
}

// copyExecutable copies src to dst as an executable: written beside dst under a temporary name,
// then renamed over it, so that dst is never half-written and a hard link that dst was stays
// untouched.
func copyExecutable(src, dst string) (err error) {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	tmp, err := os.CreateTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".codemode-*")
	if err != nil {
		return fmt.Errorf("writing into Codex's folder: %w%s", err, permissionHint(err))
	}
	defer func() {
		if err != nil {
			_ = os.Remove(tmp.Name())
		}
	}()
	if _, err := io.Copy(tmp, in); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("copying %s: %w", src, err)
	}
	if err := tmp.Sync(); err != nil {
		_ = tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o755); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), dst); err != nil {
		return fmt.Errorf("installing %s: %w", dst, err)
	}
	return nil
}
