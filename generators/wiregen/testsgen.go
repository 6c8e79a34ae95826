package wiregen

// testsFile writes the fixture conformance test and one fuzz target per decoder. fixtures is the
// fixture root relative to the package directory.
func (g *generator) testsFile(fixtures string) (string, []byte, error) {
	g.p("const fixtureRoot = %q", fixtures)
	g.p("")
	g.fixtureCounts()
	g.buf.WriteString(fixtureTestBody)
	if g.fuzzAll {
		g.p("// FuzzDecodeNamed checks decode → encode → decode → encode is stable for every type: the")
		g.p("// first byte of the input picks the type, the rest is the document.")
		g.p("func FuzzDecodeNamed(f *testing.F) {")
		g.p("names := TypeNames()")
		g.p("for i, name := range names {")
		g.p("for _, p := range fixturePaths(f, name) {")
		g.p("if data, err := os.ReadFile(p); err == nil { f.Add(append([]byte{byte(i)}, data...)) }")
		g.p("}")
		g.p("}")
		g.p("f.Fuzz(func(t *testing.T, data []byte) {")
		g.p("if len(data) == 0 { return }")
		g.p("roundTrip(t, names[int(data[0])%%len(names)], data[1:])")
		g.p("})")
		g.p("}")
		g.p("")
		return g.file("generated_test.go", "bytes", "encoding/json", "os", "path/filepath", "strings", "testing")
	}
	for _, s := range g.schemas {
		g.p("// FuzzDecode%s checks decode → encode → decode → encode is stable for %s.", s.Name, s.Name)
		g.p("func FuzzDecode%s(f *testing.F) {", s.Name)
		g.p("addSeeds(f, %q)", s.Name)
		g.p("f.Fuzz(func(t *testing.T, data []byte) { roundTrip(t, %q, data) })", s.Name)
		g.p("}")
		g.p("")
	}
	return g.file("generated_test.go", "bytes", "encoding/json", "os", "path/filepath", "strings", "testing")
}

// fixtureCounts writes how many fixtures renderFixtures lays out per type, so that the fixture
// tests fail on a missing, partial or stale tree instead of passing over whatever they find.
func (g *generator) fixtureCounts() {
	g.p("// fixtureCounts is, per type, how many valid, non-canonical and invalid fixtures the schemas")
	g.p("// define: the fixture tests require exactly these files.")
	g.p("var fixtureCounts = map[string]fixtureCount{")
	for _, s := range g.schemas {
		g.p("%q: {%d, %d, %d},", s.Name, len(s.Examples), len(s.NonCanonical), len(s.Invalid))
	}
	g.p("}")
	g.p("")
}

const fixtureTestBody = `// TestValidFixturesRoundTripByteForByte decodes every valid fixture and requires the canonical
// re-encoding to equal the file (compact, Codex key order, serde_json escaping).
func TestValidFixturesRoundTripByteForByte(t *testing.T) {
	for _, name := range TypeNames() {
		paths := fixturePaths(t, name)
		if want := fixtureCounts[name].valid; len(paths) != want {
			t.Errorf("%s: %d valid fixtures under %s, the schema has %d examples", name, len(paths), fixtureRoot, want)
		}
		for _, p := range paths {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			data = bytes.TrimSuffix(data, []byte("\n"))
			m, _, err := DecodeNamed(name, data)
			if err != nil {
				t.Errorf("%s: %v", p, err)
				continue
			}
			if got := Marshal(m); !bytes.Equal(got, data) {
				t.Errorf("%s: re-encoded\n got %s\nwant %s", p, got, data)
			}
		}
	}
}

type fixtureWrapper struct {
	Type      string          ` + "`json:\"type\"`" + `
	JSON      json.RawMessage ` + "`json:\"json\"`" + `
	Raw       *string         ` + "`json:\"raw\"`" + `
	Canonical json.RawMessage ` + "`json:\"canonical\"`" + `
	Error     string          ` + "`json:\"error\"`" + `
}

type fixtureCount struct{ valid, noncanonical, invalid int }

func fixturePaths(t testing.TB, dir string) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(fixtureRoot, dir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	return paths
}

// readWrappers reads the wrapper fixtures under dir and requires as many as the schemas define
// (count picks the per-type number).
func readWrappers(t *testing.T, dir string, count func(fixtureCount) int) map[string]fixtureWrapper {
	t.Helper()
	paths := fixturePaths(t, dir)
	want := 0
	for _, c := range fixtureCounts {
		want += count(c)
	}
	if len(paths) != want {
		t.Fatalf("%d fixtures under %s, the schemas define %d", len(paths), filepath.Join(fixtureRoot, dir), want)
	}
	out := map[string]fixtureWrapper{}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var w fixtureWrapper
		if err := json.Unmarshal(data, &w); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		out[p] = w
	}
	return out
}

// TestNonCanonicalFixturesReencodeCanonically covers accepted inputs whose encoding differs:
// unsorted sets, absent optional-as-null fields, null for skipped fields, extra keys on a unit variant.
func TestNonCanonicalFixturesReencodeCanonically(t *testing.T) {
	noncanonical := func(c fixtureCount) int { return c.noncanonical }
	for p, w := range readWrappers(t, "noncanonical", noncanonical) {
		m, ok, err := DecodeNamed(w.Type, w.JSON)
		if !ok || err != nil {
			t.Errorf("%s: decode: ok=%v err=%v", p, ok, err)
			continue
		}
		want, err := CanonicalJSON(w.Canonical)
		if err != nil {
			t.Fatal(err)
		}
		if got := Marshal(m); !bytes.Equal(got, want) {
			t.Errorf("%s:\n got %s\nwant %s", p, got, want)
		}
	}
}

// TestInvalidFixturesAreRejected requires every invalid fixture to fail with its expected text.
func TestInvalidFixturesAreRejected(t *testing.T) {
	invalid := func(c fixtureCount) int { return c.invalid }
	for p, w := range readWrappers(t, "invalid", invalid) {
		input := []byte(w.JSON)
		if w.Raw != nil {
			input = []byte(*w.Raw)
		}
		m, ok, err := DecodeNamed(w.Type, input)
		if !ok {
			t.Errorf("%s: unknown type %s", p, w.Type)
			continue
		}
		if err == nil {
			t.Errorf("%s: accepted, re-encoded as %s", p, Marshal(m))
			continue
		}
		if !strings.Contains(err.Error(), w.Error) {
			t.Errorf("%s: error %q does not contain %q", p, err, w.Error)
		}
	}
}

// addSeeds seeds a fuzz target with the valid fixtures of name, all of them.
func addSeeds(f *testing.F, name string) {
	paths := fixturePaths(f, name)
	if want := fixtureCounts[name].valid; len(paths) != want {
		f.Fatalf("%s: %d seed fixtures, the schema has %d examples", name, len(paths), want)
	}
	for _, p := range paths {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
}

// roundTrip asserts that whatever decodes re-encodes to a document that decodes to the same
// canonical encoding.
func roundTrip(t *testing.T, name string, data []byte) {
	m, _, err := DecodeNamed(name, data)
	if err != nil {
		return
	}
	first := Marshal(m)
	again, _, err := DecodeNamed(name, first)
	if err != nil {
		t.Fatalf("re-decoding %s: %v", first, err)
	}
	if second := Marshal(again); !bytes.Equal(first, second) {
		t.Fatalf("unstable encoding:\n%s\n%s", first, second)
	}
}
`
