package tsgen

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/golden from the generator's output")

const (
	testSchemas = "testdata/schemas"
	goldenDir   = "testdata/golden"
	v1Schemas   = "../../schemas/jsonschema/v1"
	v1Output    = "../../gen/ts/wirev1"
	// runtimeModule is the runtime the generated modules import, relative to this package.
	runtimeModule = "../../pkg/serdejson/ts/serdejson.ts"
)

func sortedNames(files map[string][]byte) []string {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// TestGoldenOutput renders the small testdata schema set (every x-kind, every property shape,
// optional-as-null and omitted fields, a disjoint pair, a unit variant that ignores unknown keys,
// lane rules through internal and external unions) and compares it with testdata/golden. The
// output directory is placed as gen/ts/wirev1 is, so the runtime import reads as it does there.
func TestGoldenOutput(t *testing.T) {
	files, err := Files(Options{SchemaDir: testSchemas, OutDir: "gen/ts/testwire", RuntimeModule: "pkg/serdejson/ts/serdejson.ts"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"index.ts", "lanes.ts", "types.ts"}; strings.Join(sortedNames(files), " ") != strings.Join(want, " ") {
		t.Fatalf("files = %v, want %v", sortedNames(files), want)
	}
	for _, name := range sortedNames(files) {
		path := filepath.Join(goldenDir, name+".golden")
		if *update {
			if err := os.MkdirAll(goldenDir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, files[name], 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test ./generators/tsgen -update)", err)
		}
		if !bytes.Equal(files[name], want) {
			t.Errorf("%s differs from %s (run go test ./generators/tsgen -update and review the diff)", name, path)
		}
	}
}

// TestGenerateIsDeterministic writes the V1 output twice and requires identical trees.
func TestGenerateIsDeterministic(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	for _, dir := range []string{a, b} {
		if err := Generate(Options{SchemaDir: v1Schemas, OutDir: dir, RuntimeModule: runtimeModule}); err != nil {
			t.Fatal(err)
		}
	}
	ta, tb := readTree(t, a), readTree(t, b)
	if len(ta) == 0 {
		t.Fatal("nothing generated")
	}
	if strings.Join(sortedNames(ta), " ") != strings.Join(sortedNames(tb), " ") {
		t.Fatalf("file sets differ: %v vs %v", sortedNames(ta), sortedNames(tb))
	}
	for n := range ta {
		if !bytes.Equal(ta[n], tb[n]) {
			t.Errorf("%s differs between two runs", n)
		}
	}
}

// TestCheckedInOutputIsCurrent requires gen/ts/wirev1 to be what the schemas generate now.
func TestCheckedInOutputIsCurrent(t *testing.T) {
	files, err := Files(Options{SchemaDir: v1Schemas, OutDir: v1Output, RuntimeModule: runtimeModule})
	if err != nil {
		t.Fatal(err)
	}
	onDisk := readTree(t, v1Output)
	for _, n := range sortedNames(files) {
		if !bytes.Equal(onDisk[n], files[n]) {
			t.Errorf("gen/ts/wirev1/%s is stale: run go run ./generators/cmd/tsgen", n)
		}
	}
	for n, data := range onDisk {
		if files[n] == nil && bytes.HasPrefix(data, []byte(generatedHeader)) {
			t.Errorf("gen/ts/wirev1/%s is no longer generated: run go run ./generators/cmd/tsgen", n)
		}
	}
}

// TestGenerateRemovesOnlyStaleGeneratedFiles keeps hand-written files next to the output.
func TestGenerateRemovesOnlyStaleGeneratedFiles(t *testing.T) {
	dir := t.TempDir()
	stale := filepath.Join(dir, "old.ts")
	handWritten := filepath.Join(dir, "extra.ts")
	if err := os.WriteFile(stale, []byte(generatedHeader+"\nexport {};\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(handWritten, []byte("export {};\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Generate(Options{SchemaDir: testSchemas, OutDir: dir, RuntimeModule: runtimeModule}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("stale generated file survived: %v", err)
	}
	if _, err := os.Stat(handWritten); err != nil {
		t.Errorf("hand-written file removed: %v", err)
	}
}

// TestNameCollisionIsAnError: an external variant's body type must not shadow a schema type.
func TestNameCollisionIsAnError(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"Id", "Item", "Name", "Outcome"} {
		data, err := os.ReadFile(filepath.Join(testSchemas, name+".schema.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name+".schema.json"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	body := []byte(`{"title": "DoneBody", "description": "clash", "x-kind": "scalar", "type": "string"}`)
	if err := os.WriteFile(filepath.Join(dir, "DoneBody.schema.json"), body, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Files(Options{SchemaDir: dir, OutDir: t.TempDir(), RuntimeModule: runtimeModule})
	if err == nil || !strings.Contains(err.Error(), "TypeScript name DoneBody is both schema DoneBody.schema.json and the body of Done") {
		t.Fatalf("err = %v", err)
	}
}

func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.ts"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(p)] = data
	}
	return out
}
