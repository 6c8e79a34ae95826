package wiregen

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"

	"github.com/codemodehq/codemode/generators/internal/emit"
)

var update = flag.Bool("update", false, "rewrite testdata/golden from the current generator")

// TestGoldenOutput generates the small test schema set under testdata/schemas (every x-kind,
// field shape, lane rule, x-disjoint, x-semantic and x-response) and compares every output
// file with testdata/golden. Run `go test ./generators/wiregen -update` after an intended change.
func TestGoldenOutput(t *testing.T) {
	goFiles, fixtures, err := Files(Options{
		SchemaDir:   "testdata/schemas",
		OutDir:      "gen/go/testwire",
		Package:     "testwire",
		FixturesDir: "fixtures/test",
	})
	if err != nil {
		t.Fatal(err)
	}
	all := map[string][]byte{}
	for n, src := range goFiles {
		all["go/"+n+".golden"] = src
	}
	for n, data := range fixtures {
		all["fixtures/"+n] = data
	}
	names := make([]string, 0, len(all))
	for n := range all {
		names = append(names, n)
	}
	sort.Strings(names)
	root := filepath.Join("testdata", "golden")
	if *update {
		if err := os.RemoveAll(root); err != nil {
			t.Fatal(err)
		}
		if err := emit.WriteFiles(root, all); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range names {
		want, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(n)))
		if err != nil {
			t.Errorf("%s: %v (run with -update)", n, err)
			continue
		}
		if !bytes.Equal(all[n], want) {
			t.Errorf("%s differs from the golden file (run with -update and review the diff)", n)
		}
	}
	var onDisk []string
	_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(root, p)
			onDisk = append(onDisk, filepath.ToSlash(rel))
		}
		return nil
	})
	if len(onDisk) != len(names) {
		t.Errorf("golden tree has %d files, generator wrote %d", len(onDisk), len(names))
	}
}

// TestGenerateIsDeterministic renders the real schema set twice.
func TestGenerateIsDeterministic(t *testing.T) {
	opts := Options{SchemaDir: v1Schemas, OutDir: "out", Package: "wirev1", FixturesDir: "fixtures"}
	a1, b1, err := Files(opts)
	if err != nil {
		t.Fatal(err)
	}
	a2, b2, _ := Files(opts)
	for n := range a1 {
		if !bytes.Equal(a1[n], a2[n]) {
			t.Errorf("%s differs between runs", n)
		}
	}
	for n := range b1 {
		if !bytes.Equal(b1[n], b2[n]) {
			t.Errorf("fixture %s differs between runs", n)
		}
	}
}

func TestLoadRejectsMalformedSchemas(t *testing.T) {
	cases := map[string]string{
		"Bad.schema.json":   `{"title":"Bad","x-kind":"nope"}`,
		"Wrong.schema.json": `{"title":"Other","x-kind":"scalar","type":"string"}`,
		"Opt.schema.json":   `{"title":"Opt","x-kind":"object","type":"object","properties":{"a":{"type":"string"}},"required":[]}`,
		"Ref.schema.json":   `{"title":"Ref","x-kind":"object","type":"object","properties":{"a":{"$ref":"Missing.schema.json"}},"required":["a"]}`,
	}
	want := map[string]string{
		"Bad.schema.json":   `unknown x-kind "nope"`,
		"Wrong.schema.json": `title "Other" must match the file name`,
		"Opt.schema.json":   "optional property a needs x-absent null|omit",
		"Ref.schema.json":   "Ref.a refers to unknown type Missing",
	}
	for file, body := range cases {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, file), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Load(dir)
		if err == nil || !bytes.Contains([]byte(err.Error()), []byte(want[file])) {
			t.Errorf("%s: err = %v, want %q", file, err, want[file])
		}
	}
}

// TestGoldenOutputCompilesAndPasses builds the golden package as a module of its own, in a
// workspace with this repository (generated code imports the runtime package and nothing else
// of it), vets it and runs its generated fixture tests.
func TestGoldenOutputCompilesAndPasses(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go tool")
	}
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	pkg := filepath.Join(dir, "gen")
	if err := Generate(Options{SchemaDir: "testdata/schemas", OutDir: pkg, Package: "testwire", FixturesDir: filepath.Join(dir, "fixtures")}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.test/testwire\n\ngo 1.26\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "GOWORK="+filepath.Join(dir, "go.work"), "GOFLAGS=")
	for _, args := range [][]string{{"work", "init", ".", repo}, {"vet", "./..."}, {"test", "-count=1", "./..."}} {
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %v: %v\n%s", args, err, out)
		}
	}
}
