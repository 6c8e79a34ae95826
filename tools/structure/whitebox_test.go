package main

import (
	"go/parser"
	"go/token"
	"sort"
	"testing"
)

// parseAll parses name → source pairs as one directory's files.
func parseAll(t *testing.T, files map[string]string) []namedFile {
	t.Helper()
	fset := token.NewFileSet()
	var out []namedFile
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		f, err := parser.ParseFile(fset, name, files[name], 0)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, namedFile{name, f})
	}
	return out
}

func TestClassifyWhiteBoxTellsWhatKeepsAFileInThePackage(t *testing.T) {
	sources := parseAll(t, map[string]string{
		"p.go": `package p
func helper() {}
type T struct{ f int }
func Exported() {}`,
	})
	tests := parseAll(t, map[string]string{
		"a_test.go": `package p
func TestA() { Exported() }`,
		"b_test.go": `package p
func TestB() { helper() }`,
		"c_test.go": `package p
func TestC() { var x T; _ = x.f }`,
		"d_test.go": `package p
func testHelper() {}`,
		"e_test.go": `package p
func TestE() { testHelper(); helper() }`,
		"f_test.go": `package p
func TestF() { fHelper() }`,
		"g_test.go": `package p
func fHelper() { Exported() }`,
		"h_test.go": `package p
type local struct{ f int }
func TestH() { l := local{f: 1}; _ = l.f }`,
	})
	want := map[string]whiteBoxUse{
		"a_test.go": usesNothingUnexported,
		"b_test.go": usesPackageInternals,
		"c_test.go": usesPackageInternals,
		"d_test.go": usesTestHelpers, // e_test.go stays and uses it
		"e_test.go": usesPackageInternals,
		"f_test.go": usesNothingUnexported, // it and its helper's file can move together
		"g_test.go": usesNothingUnexported,
		"h_test.go": usesNothingUnexported, // the f it selects is its own type's
	}
	for _, got := range classifyWhiteBox(sources, tests) {
		if got.use != want[got.name] {
			t.Errorf("%s: %s, want %s", got.name, got.use, want[got.name])
		}
	}
}

func TestClassifyWhiteBoxFindsNoOutsideForCommandsAndTestOnlyPackages(t *testing.T) {
	main := parseAll(t, map[string]string{"m_test.go": `package main
func TestM() {}`})
	if got := classifyWhiteBox(parseAll(t, map[string]string{"m.go": "package main\nfunc main() {}"}), main); got[0].use != noPackageOutside {
		t.Errorf("package main: %s", got[0].use)
	}
	if got := classifyWhiteBox(nil, parseAll(t, map[string]string{"x_test.go": "package x\nfunc TestX() {}"})); got[0].use != noPackageOutside {
		t.Errorf("test-only package: %s", got[0].use)
	}
}
