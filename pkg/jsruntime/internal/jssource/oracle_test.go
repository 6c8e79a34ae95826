package jssource

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"

	"github.com/tdewolff/parse/v2/js"
)

// This file holds the test oracle: code independent of collect and of the printer that
// compares ASTs by reflection, so it reaches every field of every node whatever the
// collector's switch knows.

var (
	scopeType   = reflect.TypeFor[js.Scope]()
	commentType = reflect.TypeFor[*js.Comment]()
	emptyType   = reflect.TypeFor[*js.EmptyStmt]()
	literalType = reflect.TypeFor[*js.LiteralExpr]()
	groupType   = reflect.TypeFor[*js.GroupExpr]()
	partType    = reflect.TypeFor[js.TemplatePart]()
	templType   = reflect.TypeFor[js.TemplateExpr]()
	varType     = reflect.TypeFor[js.Var]()
	directive   = reflect.TypeFor[js.DirectivePrologueStmt]()
	aliasType   = reflect.TypeFor[js.Alias]()
	stmtsType   = reflect.TypeFor[[]js.IStmt]()
)

// parseForTest parses src with the parser this package uses.
func parseForTest(src string) (*js.AST, error) {
	return parseProgram(sourceBuffer(src))
}

// findImports returns a description of every import declaration, re-export and dynamic
// import() keyword in tree, found by walking all fields by reflection.
func findImports(tree *js.AST) []string {
	var found []string
	seen := map[uintptr]bool{}
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Pointer:
			if v.IsNil() || seen[v.Pointer()] {
				return
			}
			seen[v.Pointer()] = true
			switch n := v.Interface().(type) {
			case *js.ImportStmt:
				found = append(found, "import declaration "+string(n.Module))
			case *js.ExportStmt:
				if n.Module != nil {
					found = append(found, "re-export "+string(n.Module))
				}
			}
			walk(v.Elem())
		case reflect.Interface:
			if !v.IsNil() {
				walk(v.Elem())
			}
		case reflect.Struct:
			if v.Type() == scopeType || v.Type() == varType {
				return
			}
			if v.Type() == literalType.Elem() && v.Field(0).Interface() == js.ImportToken {
				found = append(found, "import() call")
			}
			for i := range v.NumField() {
				walk(v.Field(i))
			}
		case reflect.Slice:
			for i := range v.Len() {
				walk(v.Index(i))
			}
		}
	}
	walk(reflect.ValueOf(tree))
	return found
}

// sameAST compares the AST of a source (a) with the AST of its printed code (b) and returns
// the first difference, or nil. It allows exactly the changes the printer makes: a dynamic
// import keyword becomes RejectingImport (a parenthesised arrow function), a regular
// expression may gain parentheses, literals are respelled with the same value, comments are
// gone.
func sameAST(a, b *js.AST) error {
	return compare(reflect.ValueOf(a), reflect.ValueOf(b), "AST")
}

func compare(a, b reflect.Value, path string) error {
	if a.Kind() == reflect.Interface || b.Kind() == reflect.Interface {
		if a.IsNil() || b.IsNil() {
			if a.IsNil() != b.IsNil() {
				return fmt.Errorf("%s: nil differs", path)
			}
			return nil
		}
		return compare(a.Elem(), b.Elem(), path)
	}
	if a.Type() == literalType && b.Type() == groupType && !b.IsNil() && !a.IsNil() {
		if a.Elem().Field(0).Interface() == js.ImportToken {
			return nil // import → (async (s) => { … })
		}
		if x := b.Elem().Field(0); !x.IsNil() && x.Elem().Type() == literalType {
			return compare(a, x.Elem(), path+"(regex in parentheses)")
		}
	}
	if a.Type() != b.Type() {
		return fmt.Errorf("%s: %v vs %v", path, a.Type(), b.Type())
	}
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			if a.IsNil() != b.IsNil() {
				return fmt.Errorf("%s: nil differs", path)
			}
			return nil
		}
		return compare(a.Elem(), b.Elem(), path)
	case reflect.Struct:
		return compareStruct(a, b, path)
	case reflect.Slice:
		return compareSlice(a, b, path)
	default:
		if a.Interface() != b.Interface() {
			return fmt.Errorf("%s: %v vs %v", path, a.Interface(), b.Interface())
		}
	}
	return nil
}

func compareStruct(a, b reflect.Value, path string) error {
	switch a.Type() {
	case scopeType:
		return nil
	case varType:
		if !bytes.Equal(a.FieldByName("Data").Bytes(), b.FieldByName("Data").Bytes()) {
			return fmt.Errorf("%s: variable %s vs %s", path, a.FieldByName("Data").Bytes(), b.FieldByName("Data").Bytes())
		}
		return nil
	case literalType.Elem():
		return compareLiteral(a.Interface().(js.LiteralExpr), b.Interface().(js.LiteralExpr), path)
	case partType:
		if err := compareTemplateText(a.Field(0).Bytes(), b.Field(0).Bytes(), path); err != nil {
			return err
		}
		return compare(a.Field(1), b.Field(1), path+".Expr")
	case templType:
		if err := compareTemplateText(a.FieldByName("Tail").Bytes(), b.FieldByName("Tail").Bytes(), path); err != nil {
			return err
		}
	case directive:
		return compareString(a.Field(0).Bytes(), b.Field(0).Bytes(), path)
	case aliasType:
		for i := range 2 {
			if err := compareString(a.Field(i).Bytes(), b.Field(i).Bytes(), path); err != nil {
				return err
			}
		}
		return nil
	}
	for i := range a.NumField() {
		f := a.Type().Field(i)
		if f.Type == scopeType || f.Type == reflect.PointerTo(scopeType) || f.Name == "Tail" && a.Type() == templType {
			continue
		}
		if err := compare(a.Field(i), b.Field(i), path+"."+f.Name); err != nil {
			return err
		}
	}
	return nil
}

func compareSlice(a, b reflect.Value, path string) error {
	if a.Type() == stmtsType {
		a, b = withoutComments(a), withoutComments(b)
	}
	if a.Type().Elem().Kind() == reflect.Uint8 {
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			return fmt.Errorf("%s: %q vs %q", path, a.Bytes(), b.Bytes())
		}
		return nil
	}
	if a.Len() != b.Len() {
		return fmt.Errorf("%s: %d vs %d elements", path, a.Len(), b.Len())
	}
	for i := range a.Len() {
		if err := compare(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", path, i)); err != nil {
			return err
		}
	}
	return nil
}

// withoutComments drops the comment statements the parser keeps (/*! … */ and the hashbang),
// as the printer drops every comment, and empty statements: the printer adds one before an
// import() call at the start of a statement on a new line.
func withoutComments(list reflect.Value) reflect.Value {
	out := reflect.MakeSlice(list.Type(), 0, list.Len())
	for i := range list.Len() {
		if e := list.Index(i); e.IsNil() || e.Elem().Type() != commentType && e.Elem().Type() != emptyType {
			out = reflect.Append(out, e)
		}
	}
	return out
}

func compareLiteral(a, b js.LiteralExpr, path string) error {
	if a.TokenType != b.TokenType {
		return fmt.Errorf("%s: literal %s vs %s", path, a.TokenType, b.TokenType)
	}
	if a.TokenType == js.StringToken {
		return compareString(a.Data, b.Data, path)
	}
	if !bytes.Equal(a.Data, b.Data) {
		return fmt.Errorf("%s: literal %q vs %q", path, a.Data, b.Data)
	}
	return nil
}

// compareString compares string literals by value (or raw text, for names that are not
// string literals).
func compareString(a, b []byte, path string) error {
	if bytes.Equal(a, b) {
		return nil
	}
	if len(a) > 1 && (a[0] == '"' || a[0] == '\'') && stringValue(a) == stringValue(b) {
		return nil
	}
	return fmt.Errorf("%s: string %q vs %q", path, a, b)
}

// compareTemplateText compares template text after the printer's canonicalisation.
func compareTemplateText(a, b []byte, path string) error {
	if canon := appendTemplate(nil, a); !bytes.Equal(canon, b) {
		return fmt.Errorf("%s: template %q (canonical %q) vs %q", path, a, canon, b)
	}
	return nil
}

// checkPrinted checks the printed code of src: it parses, to the same AST as src but for
// the printer's rewrites, with no import left, and printing it again changes nothing.
func checkPrinted(g goal, src, code string) error {
	tree, err := parseForTest(src)
	if err != nil {
		return fmt.Errorf("source does not parse: %v", err)
	}
	printed, err := parseForTest(code)
	if err != nil {
		return fmt.Errorf("printed code does not parse: %v", err)
	}
	if imports := findImports(printed); len(imports) > 0 {
		return fmt.Errorf("printed code still has %s", strings.Join(imports, ", "))
	}
	if err := sameAST(tree, printed); err != nil {
		return fmt.Errorf("printed AST differs: %v", err)
	}
	again, err := prepare(code, g, nil)
	if err != nil {
		return fmt.Errorf("printed code refused: %v", err)
	}
	if again.Code != code {
		return fmt.Errorf("printing is not idempotent: %q", again.Code)
	}
	return nil
}
