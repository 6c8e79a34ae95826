package main

import "go/ast"

// namedFile is a parsed file with its base name.
type namedFile struct {
	name string
	file *ast.File
}

// whiteBoxUse says why a white-box test file (in the package under test) is one, or that it need
// not be.
type whiteBoxUse int

const (
	// usesNothingUnexported: the file uses only exported names, and no file that stays
	// white-box uses its declarations: it could be black-box (package x_test) as it stands,
	// once it qualifies the package's names.
	usesNothingUnexported whiteBoxUse = iota
	// usesTestHelpers: the file uses no unexported code of the package, but unexported helpers
	// of the package's other white-box test files, or such files use its declarations.
	usesTestHelpers
	// usesPackageInternals: the file uses unexported declarations, fields or methods of the
	// package's own code.
	usesPackageInternals
	// noPackageOutside: the package is a command's (package main, which no other package can
	// import) or has no code besides its tests: there is no outside to test it from.
	noPackageOutside
)

// String names the use as the -v listing prints it.
func (u whiteBoxUse) String() string {
	switch u {
	case usesNothingUnexported:
		return "uses nothing unexported"
	case usesTestHelpers:
		return "uses white-box test helpers, or they use it"
	case usesPackageInternals:
		return "uses the package's unexported code"
	}
	return "no package outside it"
}

// whiteBoxFile is one white-box test file and what it uses.
type whiteBoxFile struct {
	name string
	use  whiteBoxUse
}

// classifyWhiteBox tells, for each white-box test file of a directory, what keeps it in the
// package. It reads syntax only, no types: an identifier a file leaves unresolved (so declared
// in another file of the package) counts as a use of that declaration, and a lowercase selector
// or composite-literal key that names a field or method declared in the package's code as a
// use of the package's internals. A selector naming a field or method that the test file's own
// types declare is taken as theirs, so a file that also selects the package's member of that
// name is missed; moving it to package x_test then fails to compile, which tells.
func classifyWhiteBox(sources, tests []namedFile) []whiteBoxFile {
	out := make([]whiteBoxFile, len(tests))
	for i, t := range tests {
		out[i].name = t.name
		if len(sources) == 0 || t.file.Name.Name == "main" {
			out[i].use = noPackageOutside
		}
	}
	srcNames, srcMembers := declaredNames(sources, false)
	movable := map[int]bool{}
	for i, t := range tests {
		switch {
		case out[i].use == noPackageOutside:
		case usesAny(t.file, srcNames, srcMembers):
			out[i].use = usesPackageInternals
		default:
			movable[i] = true
		}
	}
	// The files that may move are those whose unexported uses stay among themselves, and whose
	// declarations no staying file uses: drop the others until nothing changes.
	for changed := true; changed; {
		changed = false
		for i := range movable {
			if blocksMove(i, tests, movable) {
				delete(movable, i)
				out[i].use = usesTestHelpers
				changed = true
			}
		}
	}
	return out
}

// blocksMove tells whether tests[i] must stay white-box while the files of movable move: it
// uses an unexported name a staying file declares, or a staying file uses a name it declares.
func blocksMove(i int, tests []namedFile, movable map[int]bool) bool {
	own, _ := declaredNames(tests[i:i+1], true)
	for j, other := range tests {
		if j == i || movable[j] {
			continue
		}
		theirs, _ := declaredNames(tests[j:j+1], false)
		if usesAny(tests[i].file, theirs, nil) || usesAny(other.file, own, nil) {
			return true
		}
	}
	return false
}

// declaredNames returns the package-level names the files declare (only the unexported ones
// unless exported is set), and the unexported field and method names of their types.
func declaredNames(files []namedFile, exported bool) (names, members map[string]bool) {
	names, members = map[string]bool{}, map[string]bool{}
	add := func(set map[string]bool, id *ast.Ident, evenExported bool) {
		if id.Name != "_" && (evenExported || !id.IsExported()) {
			set[id.Name] = true
		}
	}
	for _, nf := range files {
		for _, decl := range nf.file.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if d.Recv != nil {
					add(members, d.Name, false)
				} else {
					add(names, d.Name, exported)
				}
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch s := spec.(type) {
					case *ast.TypeSpec:
						add(names, s.Name, exported)
						addFields(s.Type, members)
					case *ast.ValueSpec:
						for _, id := range s.Names {
							add(names, id, exported)
						}
					}
				}
			}
		}
	}
	return names, members
}

// addFields adds the unexported field and interface method names below a type expression.
func addFields(typ ast.Expr, members map[string]bool) {
	ast.Inspect(typ, func(n ast.Node) bool {
		if fl, ok := n.(*ast.FieldList); ok {
			for _, field := range fl.List {
				for _, id := range field.Names {
					if !id.IsExported() {
						members[id.Name] = true
					}
				}
			}
		}
		return true
	})
}

// usesAny tells whether file uses one of names (a package-level name it leaves unresolved) or
// of members (an unresolved composite-literal key, or a lowercase selector that is not a field
// or method of the file's own types).
func usesAny(file *ast.File, names, members map[string]bool) bool {
	for _, id := range file.Unresolved {
		if names[id.Name] || members[id.Name] {
			return true
		}
	}
	if len(members) == 0 {
		return false
	}
	_, own := declaredNames([]namedFile{{file: file}}, false)
	found := false
	ast.Inspect(file, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok && members[sel.Sel.Name] && !own[sel.Sel.Name] {
			found = true
		}
		return !found
	})
	return found
}
