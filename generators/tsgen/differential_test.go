package tsgen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/codemodehq/codemode/gen/go/wirev1"
	"github.com/codemodehq/codemode/generators/wiregen"
	"github.com/codemodehq/codemode/pkg/testenv"
)

// The differential test runs the Go codec (gen/go/wirev1) and the generated TypeScript codec
// (gen/ts/wirev1, compiled with the repository's tsc and run with node) over the same corpus —
// every V1 fixture plus thousands of mutations of it — and requires the same verdict: both
// accept with the same canonical encoding, or both reject with the same error text.

const (
	repoRoot = "../.."
	fixtures = "../../fixtures/v1"
)

// tsToolchain returns the tsc and node binaries. When either is missing the test is skipped,
// or fails in CI (testenv.SkipUnlessCI).
func tsToolchain(t *testing.T) (tsc, node string) {
	t.Helper()
	testenv.External(t, "node and tsc")
	tsc, _ = filepath.Abs(filepath.Join(repoRoot, "node_modules/.bin/tsc"))
	if _, err := os.Stat(tsc); err != nil {
		testenv.SkipUnlessCI(t, "node_modules/.bin/tsc missing (run tools/setup.sh)")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		testenv.SkipUnlessCI(t, "node not on PATH")
	}
	return tsc, node
}

// compileTS compiles the module whose entry point is entry, with the compiler options of
// tsconfig.json that matter to generated code, into outDir as ES modules mirroring the tree
// under rootDir; with outDir "" it only type-checks.
func compileTS(t *testing.T, tsc, entry, rootDir, outDir string) {
	t.Helper()
	args := []string{"--ignoreConfig", "--target", "ES2022",
		"--lib", "ES2022,DOM", "--module", "NodeNext", "--moduleResolution", "NodeNext", "--types", "",
		"--strict", "--noUnusedLocals", "--noUnusedParameters", "--noFallthroughCasesInSwitch",
		"--verbatimModuleSyntax"}
	if outDir == "" {
		args = append(args, "--noEmit")
	} else {
		args = append(args, "--outDir", outDir, "--rootDir", rootDir)
	}
	cmd := exec.Command(tsc, append(args, entry)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		if len(out) > 4000 {
			out = append(out[:4000], "…"...)
		}
		t.Fatalf("tsc %s: %v\n%s", entry, err, out)
	}
	if outDir == "" {
		return
	}
	if err := os.WriteFile(filepath.Join(outDir, "package.json"), []byte(`{"type":"module"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestGoldenOutputCompiles type-checks the testdata output, which exercises shapes the V1
// schemas do not use (lane rules through an external union, nested arrays, odd keys), together
// with the runtime it imports.
func TestGoldenOutputCompiles(t *testing.T) {
	tsc, _ := tsToolchain(t)
	runtime, err := filepath.Abs(runtimeModule)
	if err != nil {
		t.Fatal(err)
	}
	src := t.TempDir()
	if err := Generate(Options{SchemaDir: testSchemas, OutDir: src, RuntimeModule: runtime}); err != nil {
		t.Fatal(err)
	}
	// Outside the repository no package.json says "ES module"; NodeNext needs one.
	if err := os.WriteFile(filepath.Join(src, "package.json"), []byte(`{"type":"module"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	compileTS(t, tsc, filepath.Join(src, "index.ts"), "", "")
}

// corpusCase is one input of the differential corpus.
type corpusCase struct {
	Type  string `json:"type"`
	Input string `json:"input"`
}

// verdict is what a codec made of an input.
type verdict struct {
	OK    bool   `json:"ok"`
	Out   string `json:"out,omitempty"`
	Error string `json:"error,omitempty"`
}

const driver = `import { readFileSync } from "node:fs";
import { wireCodecs } from "./gen/ts/wirev1/index.js";
const cases = JSON.parse(readFileSync(process.argv[2], "utf8"));
const out = [];
for (const c of cases) {
  const codec = wireCodecs[c.type];
  try {
    out.push({ ok: true, out: codec.marshal(codec.unmarshal(c.input)) });
  } catch (e) {
    out.push({ ok: false, error: e.name === "WireDecodeError" ? e.message : "NOT A WireDecodeError: " + e.stack });
  }
}
process.stdout.write(JSON.stringify(out));
`

func TestGoAndTypeScriptCodecsAgree(t *testing.T) {
	tsc, node := tsToolchain(t)
	cases := buildCorpus(t)

	out := t.TempDir()
	entry, err := filepath.Abs(filepath.Join(v1Output, "index.ts"))
	if err != nil {
		t.Fatal(err)
	}
	root, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	compileTS(t, tsc, entry, root, out)
	if err := os.WriteFile(filepath.Join(out, "driver.mjs"), []byte(driver), 0o644); err != nil {
		t.Fatal(err)
	}
	corpus, err := json.Marshal(cases)
	if err != nil {
		t.Fatal(err)
	}
	corpusPath := filepath.Join(out, "corpus.json")
	if err := os.WriteFile(corpusPath, corpus, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, filepath.Join(out, "driver.mjs"), corpusPath)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("node driver: %v\n%s", err, stderr.String())
	}
	var tsVerdicts []verdict
	if err := json.Unmarshal(stdout, &tsVerdicts); err != nil {
		t.Fatalf("driver output: %v", err)
	}
	if len(tsVerdicts) != len(cases) {
		t.Fatalf("driver returned %d verdicts for %d cases", len(tsVerdicts), len(cases))
	}

	accepted, mismatches := 0, 0
	for i, c := range cases {
		goV := goVerdict(c)
		if goV.OK {
			accepted++
		}
		if goV != tsVerdicts[i] {
			mismatches++
			if mismatches <= 20 {
				t.Errorf("%s %s:\n  go %+v\n  ts %+v", c.Type, c.Input, goV, tsVerdicts[i])
			}
		}
	}
	t.Logf("%d cases (%d accepted by Go), %d disagreements", len(cases), accepted, mismatches)
}

func goVerdict(c corpusCase) verdict {
	m, ok, err := wirev1.DecodeNamed(c.Type, []byte(c.Input))
	switch {
	case !ok:
		return verdict{Error: "unknown type " + c.Type}
	case err != nil:
		return verdict{Error: err.Error()}
	}
	return verdict{OK: true, Out: string(wirev1.Marshal(m))}
}

// buildCorpus returns every valid and non-canonical fixture, the raw text of every invalid
// one, value mutations of the valid ones and truncations of their text. It fails unless it read
// exactly the fixtures the schemas define, so an empty or misplaced tree cannot make the
// comparison vacuous.
func buildCorpus(t *testing.T) []corpusCase {
	t.Helper()
	var out []corpusCase
	dirs, err := os.ReadDir(fixtures)
	if err != nil {
		t.Fatal(err)
	}
	read := 0
	for _, d := range dirs {
		if d.Name() == "invalid" || d.Name() == "noncanonical" {
			wrapped := wrapperCases(t, filepath.Join(fixtures, d.Name()))
			read += len(wrapped)
			out = append(out, wrapped...)
			continue
		}
		paths, err := filepath.Glob(filepath.Join(fixtures, d.Name(), "*.json"))
		if err != nil {
			t.Fatal(err)
		}
		sort.Strings(paths)
		read += len(paths)
		for _, p := range paths {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			text := strings.TrimSuffix(string(data), "\n")
			out = append(out, corpusCase{d.Name(), text})
			root, err := parseTree(text)
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			for _, m := range mutations(root) {
				out = append(out, corpusCase{d.Name(), m})
			}
			for i := 1; i < len(text); i += 3 {
				out = append(out, corpusCase{d.Name(), text[:i]})
			}
			out = append(out, corpusCase{d.Name(), " \n" + text + "\t\r\n"}, corpusCase{d.Name(), text + text})
		}
	}
	if want := schemaFixtureCount(t); read != want {
		t.Fatalf("read %d fixtures under %s, the schemas define %d (run make generate)", read, fixtures, want)
	}
	return out
}

// schemaFixtureCount is how many fixture files the V1 schemas define: every example,
// non-canonical and invalid input.
func schemaFixtureCount(t *testing.T) int {
	t.Helper()
	schemas, err := wiregen.Load(v1Schemas)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, s := range schemas {
		n += len(s.Examples) + len(s.NonCanonical) + len(s.Invalid)
	}
	return n
}

func wrapperCases(t *testing.T, dir string) []corpusCase {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(paths)
	var out []corpusCase
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var w struct {
			Type string          `json:"type"`
			JSON json.RawMessage `json:"json"`
			Raw  *string         `json:"raw"`
		}
		if err := json.Unmarshal(data, &w); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		input := string(w.JSON)
		if w.Raw != nil {
			input = *w.Raw
		}
		out = append(out, corpusCase{w.Type, input})
	}
	return out
}

// tree is a JSON value that keeps member order and number lexemes.
type tree struct {
	kind    byte // 'n' null, 'b' bool, '#' number, 's' string, '[' array, '{' object, 'r' raw text
	text    string
	keys    []string
	members []*tree // object values (parallel to keys) or array items
}

func parseTree(text string) (*tree, error) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	return decodeTree(dec)
}

func decodeTree(dec *json.Decoder) (*tree, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch v := tok.(type) {
	case nil:
		return &tree{kind: 'n', text: "null"}, nil
	case bool:
		return &tree{kind: 'b', text: fmt.Sprint(v)}, nil
	case json.Number:
		return &tree{kind: '#', text: v.String()}, nil
	case string:
		return &tree{kind: 's', text: v}, nil
	}
	n := &tree{kind: byte(tok.(json.Delim))}
	for dec.More() {
		if n.kind == '{' {
			k, err := dec.Token()
			if err != nil {
				return nil, err
			}
			n.keys = append(n.keys, k.(string))
		}
		v, err := decodeTree(dec)
		if err != nil {
			return nil, err
		}
		n.members = append(n.members, v)
	}
	if _, err := dec.Token(); err != nil && err != io.EOF {
		return nil, err
	}
	return n, nil
}

// keysOrEmpty returns the first key (a duplicate when added again), or "".
func (n *tree) keysOrEmpty() string {
	if len(n.keys) == 0 {
		return ""
	}
	return n.keys[0]
}

func (n *tree) write(b *bytes.Buffer) {
	switch n.kind {
	case 'n', 'b', '#', 'r':
		b.WriteString(n.text)
	case 's':
		writeString(b, n.text)
	case '[':
		b.WriteByte('[')
		for i, m := range n.members {
			if i > 0 {
				b.WriteByte(',')
			}
			m.write(b)
		}
		b.WriteByte(']')
	case '{':
		b.WriteByte('{')
		for i, m := range n.members {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, n.keys[i])
			b.WriteByte(':')
			m.write(b)
		}
		b.WriteByte('}')
	}
}

func writeString(b *bytes.Buffer, s string) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a Go string always encodes
	b.Truncate(b.Len() - 1)
}

// replacements are the texts every node of a fixture is replaced with in turn, written verbatim:
// values of every JSON type at the edges of every integer range, blank and non-ASCII strings,
// sets with duplicates, objects with unknown and prototype-named keys, and malformed JSON that
// only the strict parsers must reject the same way (lone surrogates, bad escapes, bad numbers,
// duplicate keys, nesting beyond 128).
var replacements = []string{
	`null`, `true`, `false`, `0`, `-0`, `1`, `-1`, `1.0`, `1.5`, `1e2`, `-0.0`, `1E400`, `1e-7`,
	`2147483647`, `2147483648`, `-2147483648`, `-2147483649`, `4294967295`, `4294967296`,
	`9007199254740993`, `9223372036854775807`, `9223372036854775808`, `-9223372036854775809`,
	`18446744073709551615`, `18446744073709551616`, `123456789012345678901234567890`,
	`""`, `" "`, `"\u00a0"`, `"\u2028"`, `"\u0085"`, `"\ufeff"`, `"\u180e"`, `"\u3000\u205f"`,
	`"x"`, `"ok"`, `"é😀"`, `"\ud83d\ude00"`, `"\u0001<&>"`,
	`[]`, `[1,1]`, `[1,2]`, `["a","a"]`, `["b","a"]`, `[" "]`, `{}`, `{"unexpected":1}`,
	`{"__proto__":1}`, `{"constructor":{}}`, `{"b":1.50,"a":[-0,1e2]}`,
	`"\ud800"`, `"\udc00"`, `"\ud800\u0041"`, `"\ud800x"`, `"\q"`, `"\u12"`, `"\u12g4"`, "\"\x01\"",
	`01`, `1.`, `-`, `+1`, `.5`, `tru`, `nul`, `[1,]`, `{"a":1,}`, `{"a":1,"a":2}`, `{"a" 1}`, `{1:2}`,
	strings.Repeat("[", 129) + strings.Repeat("]", 129), strings.Repeat("[", 128) + strings.Repeat("]", 128),
}

// mutations returns documents that differ from root in one place: a replaced value, an added,
// removed or case-changed key, a duplicated or dropped array item, a case-changed string.
func mutations(root *tree) []string {
	var out []string
	holder := &tree{kind: '[', members: []*tree{root}}
	emit := func() {
		var b bytes.Buffer
		holder.members[0].write(&b)
		out = append(out, b.String())
	}
	var walk func(n *tree, replace func(*tree))
	walk = func(n *tree, replace func(*tree)) {
		for _, r := range replacements {
			replace(&tree{kind: 'r', text: r})
			emit()
		}
		replace(n)
		if n.kind == 's' && n.text != "" {
			saved := n.text
			n.text = strings.ToUpper(saved[:1]) + saved[1:]
			emit()
			n.text = strings.ToLower(saved[:1]) + saved[1:]
			emit()
			n.text = saved
		}
		if n.kind == '{' {
			for _, k := range []string{"unexpected", "__proto__", "constructor", n.keysOrEmpty()} {
				n.keys = append(n.keys, k)
				n.members = append(n.members, &tree{kind: '#', text: "1"})
				emit()
				n.keys, n.members = n.keys[:len(n.keys)-1], n.members[:len(n.members)-1]
			}
			for i := range n.keys {
				keys, members := n.keys, n.members
				n.keys = append(append([]string{}, keys[:i]...), keys[i+1:]...)
				n.members = append(append([]*tree{}, members[:i]...), members[i+1:]...)
				emit()
				n.keys, n.members = keys, members
				saved := keys[i]
				if saved != "" {
					keys[i] = strings.ToLower(saved[:1]) + saved[1:]
					if keys[i] == saved {
						keys[i] = strings.ToUpper(saved[:1]) + saved[1:]
					}
					emit()
					keys[i] = saved
				}
			}
		}
		if n.kind == '[' && len(n.members) > 0 {
			items := n.members
			n.members = append(append([]*tree{}, items...), items[0])
			emit()
			n.members = items[1:]
			emit()
			n.members = items
		}
		for i, m := range n.members {
			i := i
			walk(m, func(r *tree) { n.members[i] = r })
		}
	}
	walk(root, func(r *tree) { holder.members[0] = r })
	return out
}
