package jssource

import "testing"

// TestPrintedASTs checks every accepted source of the corpus and the attack table with the
// oracle: same AST, no import, idempotent printing.
func TestPrintedASTs(t *testing.T) {
	check := func(g goal, src string) {
		prog, err := prepare(src, g, nil)
		if err != nil {
			return
		}
		if err := checkPrinted(g, src, prog.Code); err != nil {
			t.Errorf("%q -> %q: %v", src, prog.Code, err)
		}
	}
	for _, src := range moduleCorpus {
		check(goalModule, src)
	}
	for _, src := range scriptCorpus {
		check(goalScript, src)
	}
	for _, a := range append(separatorAttacks(), attacks...) {
		check(a.g, a.src)
	}
}

// TestOracle shows that the oracle sees what it must: imports anywhere, and any difference
// that is not one of the printer's rewrites.
func TestOracle(t *testing.T) {
	for src, want := range map[string]int{
		"import('x')": 1, "class A { [import('x')]() {} }": 1, "a = {[`${import('x')}`]: 1}": 1,
		"import x from 'y'": 1, "export * from 'y'": 1, "export {a}; let a": 0, "o.import(1); import.meta": 0,
	} {
		tree, err := parseForTest(src)
		if err != nil {
			t.Fatal(err)
		}
		if got := len(findImports(tree)); got != want {
			t.Errorf("%q: %d imports found, want %d", src, got, want)
		}
	}
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{"a / b", "a / c", false},
		{"x = /re/g", "x = (/re/g)", true},
		{"x = /re/g", "x = (/re/)", false},
		{"x = import('y')", "x = " + R + "('y')", true},
		{"x = import('y')", "x = " + R + "('z')", false},
		{"'a\\u2028b'", "\"a\u2028b\"", true},
		{"'ab'", "'a\\x62'", true},
		{"'ab'", "'ac'", false},
		{"`a\r\nb`", "`a\nb`", true},
		{"`a\nb`", "`a\\nb`", false},
		{"/*! keep */ a", "a", true},
		{"a\n++b", "a++\nb", false},
		{"f(function g() {})", "f(function h() {})", false},
	} {
		a, errA := parseForTest(c.a)
		b, errB := parseForTest(c.b)
		if errA != nil || errB != nil {
			t.Fatal(errA, errB)
		}
		if err := sameAST(a, b); (err == nil) != c.same {
			t.Errorf("sameAST(%q, %q) = %v, want same=%v", c.a, c.b, err, c.same)
		}
	}
}
