// Package pkg_test enforces the project's one-way layering:
// schemas → generators → gen → pkg → services/tools.
package pkg_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/codemodehq/codemode"

// adapterPackages may import generated code: they convert between the domain and a wire.
var adapterPackages = []string{"pkg/hostv1", "pkg/grpchost", "pkg/grpcclient", "pkg/connectweb"}

// rule forbids packages under from importing anything under any of forbidden.
type rule struct {
	from      string
	forbidden []string
	why       string
	// exempt, when set, lifts the rule for some importing packages.
	exempt func(pkg string) bool
	// allowed, when set, lifts the rule for some imported packages.
	allowed func(dep string) bool
}

var rules = []rule{
	{from: "pkg/", forbidden: []string{"services/", "tools/"}, why: "pkg is a library; binaries depend on it, not the reverse"},
	{from: "pkg/", forbidden: []string{"gen/"}, why: "only adapter packages touch generated wire types", exempt: isAdapter},
	{from: "pkg/codemode", forbidden: []string{"gen/", "pkg/"}, why: "the domain contract imports no transport and no generated code",
		exempt: isCodemodeTest, allowed: func(dep string) bool { return dep == "pkg/codemode" }},
	{from: "generators/", forbidden: []string{"pkg/", "services/", "tools/"}, why: "generators run before pkg exists",
		allowed: func(dep string) bool { return dep == "pkg/serdejson" || dep == "pkg/testenv" }},
	{from: "gen/", forbidden: []string{"pkg/", "services/", "tools/", "generators/"}, why: "generated code depends only on libraries",
		allowed: func(dep string) bool { return dep == "pkg/serdejson" }},
	{from: "compat/", forbidden: []string{"services/", "tools/"}, why: "gates check schemas and generated code, not binaries"},
}

func isAdapter(pkg string) bool {
	for _, a := range adapterPackages {
		if pkg == a || strings.HasPrefix(pkg, a+"/") {
			return true
		}
	}
	return false
}

// codemodetest is the conformance suite: it may import the domain package it tests.
func isCodemodeTest(pkg string) bool { return strings.HasPrefix(pkg, "pkg/codemode/codemodetest") }

func TestLayering(t *testing.T) {
	imports := moduleImports(t, "..")
	if len(imports) == 0 {
		t.Fatal("found no Go packages to check")
	}
	for pkg, deps := range imports {
		for _, dep := range deps {
			for _, r := range rules {
				if violates(r, pkg, dep) {
					t.Errorf("%s imports %s: %s", pkg, dep, r.why)
				}
			}
		}
	}
}

func violates(r rule, pkg, dep string) bool {
	if !underDir(pkg, r.from) || (r.exempt != nil && r.exempt(pkg)) {
		return false
	}
	if r.allowed != nil && r.allowed(dep) {
		return false
	}
	for _, f := range r.forbidden {
		if underDir(dep, f) {
			return true
		}
	}
	return false
}

// underDir reports whether pkg is prefix itself (for a prefix without a trailing slash) or lies
// below it.
func underDir(pkg, prefix string) bool {
	if strings.HasSuffix(prefix, "/") {
		return strings.HasPrefix(pkg+"/", prefix)
	}
	return pkg == prefix || strings.HasPrefix(pkg, prefix+"/")
}

// moduleImports maps each package directory (relative to root) to the module-internal packages
// its Go files import, tests included.
func moduleImports(t *testing.T, root string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && path != root) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		rel = filepath.ToSlash(rel)
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if dep, ok := strings.CutPrefix(p, module+"/"); ok {
				out[rel] = append(out[rel], dep)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
