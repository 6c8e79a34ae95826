package jssource

import (
	"errors"
	"strings"
	"testing"

	"github.com/tdewolff/parse/v2/js"
)

// fuzzSeeds are starting points for the fuzz targets: attacks and corpus samples are added.
var fuzzSeeds = []string{
	`import x from "y"`, "a = import('x')", "`${`${import('x')}`}`", "/[/]/.test(s); import('x')",
	"{}\n/`/; import('x'); //`", `"\`, "`${", "/*", "x = a++ / import('q') / 1", "export {a} from 'b'",
	"class A { [import('z')]() {} import() {} }", "await\u00a0/x/", "a\u2028/b/g", "'\x00'", "#!x\nimport('y')",
}

func addSeeds(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	for _, a := range attacks {
		f.Add(a.src)
	}
	for _, s := range moduleCorpus {
		f.Add(s)
	}
}

// FuzzModule checks Module on any input: it never panics, returns only its own error types,
// and code it returns parses to the source's AST (but for the printer's rewrites) with no
// import left, keeps the source's line count, and prints to itself again.
func FuzzModule(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, src string) {
		for _, g := range []goal{goalModule, goalScript} {
			prog, err := prepare(src, g, nil)
			if err != nil {
				if !isTypedError(err) {
					t.Fatalf("goal %d: %q: untyped error %v", g, src, err)
				}
				continue
			}
			if err := checkPrinted(g, src, prog.Code); err != nil {
				t.Fatalf("goal %d: %q -> %q: %v", g, src, prog.Code, err)
			}
			if !strings.ContainsAny(src, "\u2028\u2029") {
				if want, got := len(splitLines(src)), strings.Count(prog.Code, "\n")+1; want != got {
					t.Fatalf("goal %d: %q -> %q: %d lines, want %d", g, src, prog.Code, got, want)
				}
			}
		}
	})
}

// FuzzFunction checks Function on any parameters and body: it never panics, and code it
// returns is exactly one parenthesised function expression with no import left.
func FuzzFunction(f *testing.F) {
	f.Add("a, b", "return a + b")
	f.Add("a){import('x')}//", "")
	f.Add("", "}); import(\"x\"); ({")
	f.Add("/*", "*/")
	f.Add("a = `", "`")
	f.Add("a) { import('qjs:os') }) || (function (b", "")
	f.Fuzz(func(t *testing.T, params, body string) {
		prog, err := Function(AsyncGeneratorFunction, []string{params}, body)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("%q %q: %v is not a *SyntaxError", params, body, err)
			}
			return
		}
		tree, err := parseForTest(prog.Code)
		if err != nil {
			t.Fatalf("%q %q -> %q does not parse: %v", params, body, prog.Code, err)
		}
		if imports := findImports(tree); len(imports) > 0 {
			t.Fatalf("%q %q -> %q: %v", params, body, prog.Code, imports)
		}
		if !oneFunction(tree) {
			t.Fatalf("%q %q -> %q is not one function expression", params, body, prog.Code)
		}
	})
}

// oneFunction reports whether tree is exactly `(async function* anonymous(…) {…})`.
func oneFunction(tree *js.AST) bool {
	var list []js.IStmt
	for _, s := range tree.List {
		if _, ok := s.(*js.Comment); !ok {
			list = append(list, s)
		}
	}
	if len(list) != 1 {
		return false
	}
	e, ok := list[0].(*js.ExprStmt)
	if !ok {
		return false
	}
	g, ok := e.Value.(*js.GroupExpr)
	if !ok {
		return false
	}
	fn, ok := g.X.(*js.FuncDecl)
	return ok && fn.Async && fn.Generator && fn.Name != nil && string(fn.Name.Data) == "anonymous"
}
