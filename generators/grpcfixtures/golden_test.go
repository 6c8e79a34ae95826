package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// committedTree is the fixture tree in the repository, relative to this package.
const committedTree = "../../fixtures/grpc"

// TestCommittedTreeIsGenerated regenerates the tree into a temporary directory and requires it to
// equal the committed one file for file: run `make generate` after changing the schema or this
// generator.
func TestCommittedTreeIsGenerated(t *testing.T) {
	fixtures, err := buildAll()
	if err != nil {
		t.Fatal(err)
	}
	fresh := t.TempDir()
	if err := writeTree(fresh, fixtures); err != nil {
		t.Fatal(err)
	}
	want := readTree(t, fresh)
	got := readTree(t, committedTree)
	for path, data := range want {
		committed, ok := got[path]
		switch {
		case !ok:
			t.Errorf("%s is missing from %s; run make generate", path, committedTree)
		case !bytes.Equal(committed, data):
			t.Errorf("%s differs from the generator's output; run make generate\ncommitted:\n%s\ngenerated:\n%s", path, committed, data)
		}
	}
	for path := range got {
		if _, ok := want[path]; !ok {
			t.Errorf("%s is not generated any more; run make generate", path)
		}
	}
}

// TestGenerationIsDeterministic builds the tree twice and requires identical bytes, so drift
// checks never flap.
func TestGenerationIsDeterministic(t *testing.T) {
	first, second := t.TempDir(), t.TempDir()
	for _, dir := range []string{first, second} {
		fixtures, err := buildAll()
		if err != nil {
			t.Fatal(err)
		}
		if err := writeTree(dir, fixtures); err != nil {
			t.Fatal(err)
		}
	}
	a, b := readTree(t, first), readTree(t, second)
	if len(a) != len(b) {
		t.Fatalf("two runs wrote %d and %d files", len(a), len(b))
	}
	for path, data := range a {
		if !bytes.Equal(data, b[path]) {
			t.Errorf("%s differs between two runs", path)
		}
	}
}

// readTree returns the files under root by slash-separated relative path.
func readTree(t *testing.T, root string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		files[filepath.ToSlash(rel)] = data
		return nil
	})
	if err != nil {
		t.Fatalf("read %s: %v", root, err)
	}
	return files
}

// TestWriteTreeRefusesForeignFiles protects a mistyped -out: a directory holding anything but
// fixtures is left alone.
func TestWriteTreeRefusesForeignFiles(t *testing.T) {
	dir := t.TempDir()
	foreign := filepath.Join(dir, "go.mod")
	if err := os.WriteFile(foreign, []byte("module x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := writeTree(dir, nil)
	want := "refusing to clear " + dir + ": " + foreign + " is not a <message>/<case>.json fixture"
	if err == nil || err.Error() != want {
		t.Fatalf("writeTree error = %v, want %q", err, want)
	}
	if _, err := os.Stat(foreign); err != nil {
		t.Fatalf("foreign file was touched: %v", err)
	}
}
