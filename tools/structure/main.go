// Command structure prints the shape figures of the module's hand-written Go code as Markdown:
// packages per directory, exported identifiers per package (p50 and max), the types with the
// most methods, and the share of test files that are white-box (in the package under test
// rather than in its _test package), with how many of those use nothing unexported and so could
// be black-box. Generated code (gen/) is left out: its shape follows the schemas. It also counts
// the lines that cite text outside the repository (to be 0, docs/protocol/README.md#how-to-cite)
// and the citations of docs/protocol whose section does not exist. Run it from the module root:
// go run ./tools/structure; with -v it lists every white-box test file and what keeps it in its
// package (docs/adr/0070-the-gate-under-load.md).
package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// pkgFigures is what one directory of Go files contributes.
type pkgFigures struct {
	dir           string
	exported      int
	methods       map[string]int // receiver type → method count
	testFiles     int
	whiteBoxTests int
	// whiteBox classifies the white-box test files by what they use (see classifyWhiteBox).
	whiteBox       []whiteBoxFile
	nonTestGoFiles int
	hasGoFiles     bool
}

func main() {
	figures, err := scan(".")
	if err != nil {
		fmt.Fprintln(os.Stderr, "structure:", err)
		os.Exit(1)
	}
	report(os.Stdout, figures)
	if err := reportCitations(os.Stdout, "."); err != nil {
		fmt.Fprintln(os.Stderr, "structure:", err)
		os.Exit(1)
	}
}

// scan reads every hand-written Go directory below root.
func scan(root string) ([]pkgFigures, error) {
	var out []pkgFigures
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if skipped(path) {
			return filepath.SkipDir
		}
		f, err := scanDir(path)
		if err != nil {
			return err
		}
		if f.hasGoFiles {
			out = append(out, f)
		}
		return nil
	})
	return out, err
}

// skipped tells the directories that hold no hand-written Go: generated code, node packages,
// test data and hidden directories.
func skipped(path string) bool {
	base := filepath.Base(path)
	if path != "." && strings.HasPrefix(base, ".") {
		return true
	}
	return path == "gen" || base == "node_modules" || base == "testdata"
}

// scanDir parses the Go files of one directory (not its subdirectories).
func scanDir(dir string) (pkgFigures, error) {
	f := pkgFigures{dir: dir, methods: map[string]int{}}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return f, err
	}
	fset := token.NewFileSet()
	var sources, whiteTests []namedFile
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") {
			continue
		}
		// Object resolution is kept: a file's Unresolved identifiers are those it takes from the
		// package's other files (or the universe), which classifyWhiteBox needs.
		file, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, 0)
		if err != nil {
			return f, fmt.Errorf("parse %s: %w", e.Name(), err)
		}
		f.hasGoFiles = true
		if strings.HasSuffix(e.Name(), "_test.go") {
			if countTest(&f, file) {
				whiteTests = append(whiteTests, namedFile{e.Name(), file})
			}
			continue
		}
		f.nonTestGoFiles++
		countDecls(&f, file)
		sources = append(sources, namedFile{e.Name(), file})
	}
	f.whiteBox = classifyWhiteBox(sources, whiteTests)
	return f, nil
}

// countTest counts a test file, white-box when it is in the package under test, and tells
// whether it is.
func countTest(f *pkgFigures, file *ast.File) bool {
	f.testFiles++
	if strings.HasSuffix(file.Name.Name, "_test") {
		return false
	}
	f.whiteBoxTests++
	return true
}

// countDecls counts exported top-level identifiers and the methods of every receiver type.
func countDecls(f *pkgFigures, file *ast.File) {
	for _, decl := range file.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if d.Recv != nil {
				f.methods[receiverName(d.Recv.List[0].Type)]++
				continue
			}
			if d.Name.IsExported() {
				f.exported++
			}
		case *ast.GenDecl:
			f.exported += exportedSpecs(d)
		}
	}
}

// exportedSpecs counts the exported names a type, const or var declaration introduces.
func exportedSpecs(d *ast.GenDecl) int {
	n := 0
	for _, spec := range d.Specs {
		switch s := spec.(type) {
		case *ast.TypeSpec:
			if s.Name.IsExported() {
				n++
			}
		case *ast.ValueSpec:
			for _, name := range s.Names {
				if name.IsExported() {
					n++
				}
			}
		}
	}
	return n
}

// receiverName is the type name of a method's receiver, without pointer or type parameters.
func receiverName(expr ast.Expr) string {
	switch e := expr.(type) {
	case *ast.StarExpr:
		return receiverName(e.X)
	case *ast.IndexExpr:
		return receiverName(e.X)
	case *ast.IndexListExpr:
		return receiverName(e.X)
	case *ast.Ident:
		return e.Name
	}
	return "?"
}

// report prints the figures as Markdown.
func report(w *os.File, figures []pkgFigures) {
	reportDirectories(w, figures)
	reportExported(w, figures)
	reportMethods(w, figures, 8)
	reportTests(w, figures)
}

// reportDirectories prints how many packages sit directly below each directory that groups
// packages (pkg/ and its subdirectories, services/, tools/, generators/).
func reportDirectories(w *os.File, figures []pkgFigures) {
	children := map[string]int{}
	for _, f := range figures {
		if f.nonTestGoFiles == 0 && f.testFiles == 0 {
			continue
		}
		parent := filepath.Dir(f.dir)
		for _, top := range []string{"pkg", "services", "tools", "generators"} {
			if parent == top || strings.HasPrefix(parent, top+"/") {
				children[parent]++
			}
		}
	}
	fmt.Fprintln(w, "| directory | packages directly in it |")
	fmt.Fprintln(w, "|---|---|")
	for _, dir := range sortedKeys(children) {
		fmt.Fprintf(w, "| %s/ | %d |\n", dir, children[dir])
	}
	fmt.Fprintln(w)
}

// reportExported prints the median and maximum exported identifiers over pkg/ packages.
func reportExported(w *os.File, figures []pkgFigures) {
	var counts []int
	maxDir, maxN := "", -1
	for _, f := range figures {
		if !strings.HasPrefix(f.dir, "pkg/") || f.nonTestGoFiles == 0 {
			continue
		}
		counts = append(counts, f.exported)
		if f.exported > maxN {
			maxDir, maxN = f.dir, f.exported
		}
	}
	sort.Ints(counts)
	fmt.Fprintf(w, "exported identifiers per pkg/ package: %d packages, p50 %d, max %d (%s)\n\n",
		len(counts), counts[len(counts)/2], maxN, maxDir)
}

// reportMethods prints the n types with the most methods.
func reportMethods(w *os.File, figures []pkgFigures, n int) {
	type row struct {
		name  string
		count int
	}
	var rows []row
	for _, f := range figures {
		for typ, c := range f.methods {
			rows = append(rows, row{f.dir + "." + typ, c})
		}
	}
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].count != rows[j].count {
			return rows[i].count > rows[j].count
		}
		return rows[i].name < rows[j].name
	})
	fmt.Fprintln(w, "| type | methods |")
	fmt.Fprintln(w, "|---|---|")
	for _, r := range rows[:min(n, len(rows))] {
		fmt.Fprintf(w, "| %s | %d |\n", r.name, r.count)
	}
	fmt.Fprintln(w)
}

// reportTests prints the white-box share of test files, over the module and for pkg/jsruntime,
// and how the white-box files divide by what they use: only the files that use nothing
// unexported (and are not in a command's package main, which no other package can import)
// could be black-box as they stand.
func reportTests(w *os.File, figures []pkgFigures) {
	var all, white, rt, rtWhite int
	uses := map[whiteBoxUse]int{}
	rtUses := map[whiteBoxUse]int{}
	for _, f := range figures {
		all += f.testFiles
		white += f.whiteBoxTests
		if f.dir == "pkg/jsruntime" {
			rt, rtWhite = f.testFiles, f.whiteBoxTests
		}
		for _, wb := range f.whiteBox {
			uses[wb.use]++
			if f.dir == "pkg/jsruntime" {
				rtUses[wb.use]++
			}
		}
	}
	fmt.Fprintf(w, "white-box test files: %d of %d (%.0f %%); pkg/jsruntime: %d of %d\n",
		white, all, 100*float64(white)/float64(max(all, 1)), rtWhite, rt)
	fmt.Fprintf(w, "white-box test files that use nothing unexported: %d; pkg/jsruntime: %d\n",
		uses[usesNothingUnexported], rtUses[usesNothingUnexported])
	fmt.Fprintf(w, "  (of the others: %d use the package's unexported code, %d only white-box test helpers or are needed by them, %d have no package outside them (package main, test-only))\n",
		uses[usesPackageInternals], uses[usesTestHelpers], uses[noPackageOutside])
	if len(os.Args) > 1 && os.Args[1] == "-v" {
		for _, f := range figures {
			for _, wb := range f.whiteBox {
				fmt.Fprintf(w, "  %s/%s: %s\n", f.dir, wb.name, wb.use)

			}
		}
	}
}

// sortedKeys returns the keys of m in order.
func sortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
