package jsruntime

import (
	"go/ast"
	"go/parser"
	"go/token"
	"testing"
)

// The cell layer reaches its runtime only through the vm interface (vm.go): these files may not
// name the engine type or its pool, nor select a field of the engine. The VM's files and the
// provider, which composes both layers, are outside the rule. It is the boundary along which the
// VM moves into a package of its own.
var cellLayerFiles = []string{"cell.go", "loop.go", "session.go", "toolcalls.go", "timers.go", "notifier.go", "store.go", "bridge.go"}

// engineInternals are the engine's fields and the VM's types the cell layer must not touch.
var engineInternals = map[string]bool{
	"engine": true, "pool": true, "newEngine": true, "linearMemory": true, "wasm": true, "image": true,
	"w": true, "mem": true, "entry": true, "img": true, "host": true, "dead": true, "jsctx": true, "main": true,
}

func TestTheCellLayerUsesTheVMOnlyThroughItsInterface(t *testing.T) {
	fset := token.NewFileSet()
	for _, name := range cellLayerFiles {
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				if engineInternals[n.Sel.Name] && isEngineValue(n.X) {
					t.Errorf("%s: %s reaches into the engine (.%s); use a vm method", fset.Position(n.Pos()), exprText(n.X), n.Sel.Name)
				}
			case *ast.Ident:
				if n.Obj == nil && (n.Name == "engine" || n.Name == "newEngine" || n.Name == "linearMemory" || n.Name == "image") {
					t.Errorf("%s: names the VM's %s", fset.Position(n.Pos()), n.Name)
				}
			}
			return true
		})
	}
}

// isEngineValue reports whether x is how the cell layer holds its runtime: r.e, or e.
func isEngineValue(x ast.Expr) bool {
	switch x := x.(type) {
	case *ast.SelectorExpr:
		return x.Sel.Name == "e"
	case *ast.Ident:
		return x.Name == "e"
	}
	return false
}

func exprText(x ast.Expr) string {
	if s, ok := x.(*ast.SelectorExpr); ok {
		return exprText(s.X) + "." + s.Sel.Name
	}
	if id, ok := x.(*ast.Ident); ok {
		return id.Name
	}
	return "?"
}
