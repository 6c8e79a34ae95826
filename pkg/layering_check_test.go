package pkg_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// module is this module's path; packages of the module are named relative to it.
const module = "github.com/codemodehq/codemode"

// A layer is one rule: the packages it governs and everything they may import.
type layer struct {
	// pkgs is a package ("pkg/codemode") or a subtree including its root ("gen/..."), relative
	// to the module root.
	pkgs string
	// allow lists what the governed packages may import: std, packages or subtrees of this
	// module, third-party module paths.
	allow []string
	// allowInTests lists what their _test.go files may import on top of allow.
	allowInTests []string
	// why is printed with every violation of the rule.
	why string
}

// depKind says where an imported package comes from.
type depKind int

const (
	ownPkg      depKind = iota // a package of this module
	stdPkg                     // the standard library
	externalPkg                // a third-party module
)

// An edge is one direct import of one package of the module.
type edge struct {
	from   string // the importing package, relative to the module root
	to     string // the imported package: relative for this module's own, the import path otherwise
	kind   depKind
	module string // externalPkg only: the module that provides to
	test   bool   // only _test.go files import it
}

// A graph is the module's packages and their direct imports.
type graph struct {
	pkgs  []string
	edges []edge
}

// A violation is an import its package's rule does not allow.
type violation struct {
	edge edge
	rule layer
}

// key names a violation compactly for the planted-violation tables: "from → to [rule]", with
// " (test)" after to when only _test.go files make the import.
func (v violation) key() string {
	to := v.edge.to
	if v.edge.test {
		to += " (test)"
	}
	return fmt.Sprintf("%s → %s [%s]", v.edge.from, to, v.rule.pkgs)
}

// String is the failure message: the package, the import, the rule, and why the rule exists.
func (v violation) String() string {
	from, to := v.edge.from, v.edge.to
	if v.edge.test {
		from += " (in _test.go files)"
	}
	if v.edge.kind == externalPkg {
		to += " (module " + v.edge.module + ")"
	}
	allowed := strings.Join(v.rule.allow, ", ")
	if len(v.rule.allowInTests) > 0 {
		allowed += "; in tests also " + strings.Join(v.rule.allowInTests, ", ")
	}
	return fmt.Sprintf("%s imports %s, which rule %q does not allow (allowed: %s): %s",
		from, to, v.rule.pkgs, allowed, v.rule.why)
}

// violations returns every edge of g that the rule governing its importing package does not
// allow. Packages no rule governs are tableProblems' business, not reported here.
func violations(layers []layer, g graph) []violation {
	var out []violation
	for _, e := range g.edges {
		r, ok := governing(layers, e.from)
		if ok && !r.admits(e) {
			out = append(out, violation{edge: e, rule: r})
		}
	}
	return out
}

// familyViolations returns every edge of g that a family containing its importing package does
// not allow: unlike layers, every matching family applies.
func familyViolations(families []layer, g graph) []violation {
	var out []violation
	for _, e := range g.edges {
		for _, f := range families {
			if matches(f.pkgs, e.from) && !f.admits(e) {
				out = append(out, violation{edge: e, rule: f})
			}
		}
	}
	return out
}

// familyProblems checks the family table: each family is a subtree that holds a package, and
// each of its allow entries names something that exists.
func familyProblems(families []layer, pkgs, requiredModules []string) []string {
	var out []string
	for _, f := range families {
		if !strings.HasSuffix(f.pkgs, "/...") {
			out = append(out, fmt.Sprintf("family %q is not a subtree (dir/...)", f.pkgs))
		}
		if !slices.ContainsFunc(pkgs, func(p string) bool { return matches(f.pkgs, p) }) {
			out = append(out, fmt.Sprintf("family %q holds no package: remove it or fix its pattern", f.pkgs))
		}
		out = append(out, entryProblems(f, pkgs, requiredModules)...)
	}
	return out
}

// admits reports whether the rule allows the import e.
func (l layer) admits(e edge) bool {
	if slices.ContainsFunc(l.allow, e.matchedBy) {
		return true
	}
	return e.test && slices.ContainsFunc(l.allowInTests, e.matchedBy)
}

// matchedBy reports whether the allow entry covers the import.
func (e edge) matchedBy(entry string) bool {
	switch e.kind {
	case stdPkg:
		return entry == std
	case externalPkg:
		return entry == e.module
	default:
		return isOwnPattern(entry) && matches(entry, e.to)
	}
}

// isOwnPattern reports whether an allow entry names packages of this module: third-party
// module paths start with a domain name, so their first element has a dot.
func isOwnPattern(entry string) bool {
	first, _, _ := strings.Cut(entry, "/")
	return entry != std && !strings.Contains(first, ".")
}

// matches reports whether pkg is the package pattern names, or lies in the subtree "dir/...".
func matches(pattern, pkg string) bool {
	if dir, ok := strings.CutSuffix(pattern, "/..."); ok {
		return pkg == dir || strings.HasPrefix(pkg, dir+"/")
	}
	return pkg == pattern
}

// specificity orders patterns for governing: a longer directory is more specific, and for the
// same directory the exact package beats the subtree.
func specificity(pattern string) int {
	dir, subtree := strings.CutSuffix(pattern, "/...")
	if subtree {
		return 2 * len(dir)
	}
	return 2*len(dir) + 1
}

// governing returns the most specific rule whose pattern matches pkg.
func governing(layers []layer, pkg string) (layer, bool) {
	var best layer
	found := false
	for _, l := range layers {
		if matches(l.pkgs, pkg) && (!found || specificity(l.pkgs) > specificity(best.pkgs)) {
			best, found = l, true
		}
	}
	return best, found
}

// governed lists the packages rule l governs (those for which it is the most specific match).
func governed(layers []layer, l layer, pkgs []string) []string {
	var out []string
	for _, p := range pkgs {
		if r, ok := governing(layers, p); ok && r.pkgs == l.pkgs {
			out = append(out, p)
		}
	}
	return out
}

// tableProblems checks the rule table against what exists, so that no rule can pass silently:
// each pattern is unique and governs at least one package, each package is governed, each own
// allow entry names an existing package or subtree, and each third-party entry a module that
// go.mod requires.
func tableProblems(layers []layer, pkgs, requiredModules []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, l := range layers {
		if seen[l.pkgs] {
			out = append(out, fmt.Sprintf("rule %q appears twice in the layering table", l.pkgs))
		}
		seen[l.pkgs] = true
		if len(governed(layers, l, pkgs)) == 0 {
			out = append(out, fmt.Sprintf("rule %q governs no package (nothing matches it, or more specific rules cover everything it matches): remove it or fix its pattern", l.pkgs))
		}
		out = append(out, entryProblems(l, pkgs, requiredModules)...)
	}
	for _, p := range pkgs {
		if _, ok := governing(layers, p); !ok {
			out = append(out, fmt.Sprintf("no layering rule governs package %s: add one to layers in pkg/layering_test.go", p))
		}
	}
	return out
}

// entryProblems reports allow entries of l that name nothing: a misspelt entry would otherwise
// allow nothing and go unnoticed until someone needs it.
func entryProblems(l layer, pkgs, requiredModules []string) []string {
	var out []string
	for _, entry := range slices.Concat(l.allow, l.allowInTests) {
		switch {
		case entry == std:
		case isOwnPattern(entry):
			if !slices.ContainsFunc(pkgs, func(p string) bool { return matches(entry, p) }) {
				out = append(out, fmt.Sprintf("rule %q allows %q, which names no package of the module", l.pkgs, entry))
			}
		case !slices.Contains(requiredModules, entry):
			out = append(out, fmt.Sprintf("rule %q allows module %q, which go.mod does not require", l.pkgs, entry))
		}
	}
	return out
}

// listedPkg holds the fields of `go list -json` output the graph needs.
type listedPkg struct {
	ImportPath                         string
	Imports, TestImports, XTestImports []string
	Standard                           bool
	Module                             *struct{ Path string }
}

// loadGraph returns the module's real import graph: `go list` of every package of the module
// with its direct imports (those of its _test.go files included), then `go list` of everything
// they import from outside the module, to tell the standard library from third-party modules.
func loadGraph(t *testing.T) graph {
	t.Helper()
	own := goList(t, "-json=ImportPath,Imports,TestImports,XTestImports", "./...")
	var g graph
	for _, p := range own {
		g.pkgs = append(g.pkgs, relative(p.ImportPath))
	}
	foreign := map[string]listedPkg{}
	for _, p := range goList(t, append([]string{"-json=ImportPath,Standard,Module"}, foreignImports(own)...)...) {
		foreign[p.ImportPath] = p
	}
	for _, p := range own {
		g.edges = append(g.edges, edgesOf(t, p, foreign)...)
	}
	return g
}

// edgesOf turns one listed package's imports into edges; an import that only _test.go files
// make is marked test, and the external test package's import of its own package is dropped.
func edgesOf(t *testing.T, p listedPkg, foreign map[string]listedPkg) []edge {
	t.Helper()
	from := relative(p.ImportPath)
	var out []edge
	all := slices.Compact(slices.Sorted(slices.Values(slices.Concat(p.Imports, p.TestImports, p.XTestImports))))
	for _, imp := range all {
		if imp == p.ImportPath {
			continue
		}
		e := edge{from: from, to: imp, test: !slices.Contains(p.Imports, imp)}
		switch f, ok := foreign[imp]; {
		case isOwnImport(imp):
			e.kind, e.to = ownPkg, relative(imp)
		case !ok:
			t.Fatalf("go list did not describe %s, imported by %s", imp, from)
		case f.Standard:
			e.kind = stdPkg
		case f.Module == nil:
			t.Fatalf("%s, imported by %s, is neither standard library nor in a module", imp, from)
		default:
			e.kind, e.module = externalPkg, f.Module.Path
		}
		out = append(out, e)
	}
	return out
}

// foreignImports lists, once each, the imports of pkgs from outside this module.
func foreignImports(pkgs []listedPkg) []string {
	var out []string
	for _, p := range pkgs {
		for _, imp := range slices.Concat(p.Imports, p.TestImports, p.XTestImports) {
			if !isOwnImport(imp) {
				out = append(out, imp)
			}
		}
	}
	return slices.Compact(slices.Sorted(slices.Values(out)))
}

func isOwnImport(path string) bool { return path == module || strings.HasPrefix(path, module+"/") }

// relative names a package of the module by its directory relative to the module root.
func relative(path string) string {
	if path == module {
		return "."
	}
	return strings.TrimPrefix(path, module+"/")
}

// goList runs `go list args...` in the module root and decodes its stream of JSON objects.
func goList(t *testing.T, args ...string) []listedPkg {
	t.Helper()
	out := goCommand(t, append([]string{"list"}, args...)...)
	var pkgs []listedPkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listedPkg
		err := dec.Decode(&p)
		if errors.Is(err, io.EOF) {
			return pkgs
		}
		if err != nil {
			t.Fatalf("decoding go list output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
}

// loadRequiredModules returns the module paths go.mod requires.
func loadRequiredModules(t *testing.T) []string {
	t.Helper()
	var mod struct{ Require []struct{ Path string } }
	if err := json.Unmarshal(goCommand(t, "mod", "edit", "-json"), &mod); err != nil {
		t.Fatalf("decoding go mod edit -json: %v", err)
	}
	var out []string
	for _, r := range mod.Require {
		out = append(out, r.Path)
	}
	return out
}

// goCommand runs the go command in the module root (the parent of this package's directory)
// and returns its standard output. go test puts its own GOROOT/bin first in PATH, so this is
// the go command that runs the test.
func goCommand(t *testing.T, args ...string) []byte {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = ".."
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return out
}
