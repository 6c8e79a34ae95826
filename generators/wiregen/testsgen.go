package wiregen

// testsFile writes the fixture conformance test and one fuzz target per decoder. fixtures is the
// fixture root relative to the package directory.
func (g *generator) testsFile(fixtures string) (string, []byte, error) {
	g.p("const fixtureRoot = %q", fixtures)
	g.p("")
	g.buf.WriteString(fixtureTestBody)
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

const fixtureTestBody = `// TestValidFixturesRoundTripByteForByte decodes every valid fixture and requires the canonical
// re-encoding to equal the file (compact, Codex key order, serde_json escaping).
func TestValidFixturesRoundTripByteForByte(t *testing.T) {
	for _, name := range TypeNames() {
		paths, _ := filepath.Glob(filepath.Join(fixtureRoot, name, "*.json"))
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

func readWrappers(t *testing.T, dir string) map[string]fixtureWrapper {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(fixtureRoot, dir, "*.json"))
	if len(paths) == 0 {
		t.Skipf("no fixtures under %s", dir)
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
	for p, w := range readWrappers(t, "noncanonical") {
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
	for p, w := range readWrappers(t, "invalid") {
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

func addSeeds(f *testing.F, name string) {
	paths, _ := filepath.Glob(filepath.Join(fixtureRoot, name, "*.json"))
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
