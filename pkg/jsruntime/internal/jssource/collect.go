package jssource

import (
	"fmt"
	"slices"
	"unsafe"

	"github.com/tdewolff/parse/v2/js"
)

// facts are what the printer needs from the parse: the parser decides, token by token, what a
// lexer alone cannot (is this slash a regex, is this `import` a call), and the AST keeps those
// decisions as slices of the source buffer, whose offsets we recover.
type facts struct {
	// regexes are the offsets of the regular expression literals, ascending.
	regexes []int
	// imports are the offsets of the `import` keywords of dynamic import() calls that the AST
	// locates, ascending.
	imports []int
	// unplaced counts the dynamic import() calls whose keyword the AST does not locate: the
	// parser builds a fresh keyword for an import() call that starts a module-level statement
	// (tdewolff/parse v2.8.20, parseModule). The printer finds those by position: an `import`
	// followed by "(" outside every bracket.
	unplaced int
	// statements are the offsets, among imports, of the import() calls that start an
	// expression statement.
	statements []int
	// declarations is set when the top level holds an import or export declaration.
	declarations bool
}

// collector walks an AST and gathers facts. Its switch names every node type of the parser;
// an unknown one fails the walk, so a parser upgrade cannot silently hide a node from it.
type collector struct {
	base []byte // the parsed source; AST byte slices point into it
	f    facts
	err  error
}

// collect gathers the facts of a parsed program whose source buffer is base.
func collect(tree *js.AST, base []byte) (facts, error) {
	c := &collector{base: base}
	for _, s := range tree.List {
		switch s.(type) {
		case *js.ImportStmt, *js.ExportStmt:
			c.f.declarations = true
		}
		c.node(s)
	}
	slices.Sort(c.f.regexes)
	slices.Sort(c.f.imports)
	slices.Sort(c.f.statements)
	return c.f, c.err
}

// offset returns the position of data in the source buffer, if data is a slice of it. The
// parser hands out slices whose capacity ends with their length, so the position is found by
// address: the difference of the two addresses is only a candidate index, confirmed by an
// ordinary pointer comparison (Go's garbage collector does not move heap objects).
func (c *collector) offset(data []byte) (int, bool) {
	if len(data) == 0 || len(c.base) == 0 {
		return 0, false
	}
	i := int(uintptr(unsafe.Pointer(unsafe.SliceData(data))) - uintptr(unsafe.Pointer(unsafe.SliceData(c.base))))
	if i < 0 || i >= len(c.base) || &c.base[i] != &data[0] {
		return 0, false
	}
	return i, true
}

// literal records regular expressions and dynamic import keywords.
func (c *collector) literal(n *js.LiteralExpr) {
	switch n.TokenType {
	case js.RegExpToken:
		off, ok := c.offset(n.Data)
		if !ok {
			c.fail("regular expression literal without a source position")
			return
		}
		c.f.regexes = append(c.f.regexes, off)
	case js.ImportToken:
		if off, ok := c.offset(n.Data); ok {
			c.f.imports = append(c.f.imports, off)
		} else {
			c.f.unplaced++
		}
	}
}

// statementStart records an import() call that starts the expression statement e.
func (c *collector) statementStart(e js.IExpr) {
	if lit, ok := leftmost(e).(*js.LiteralExpr); ok && lit.TokenType == js.ImportToken {
		if off, ok := c.offset(lit.Data); ok {
			c.f.statements = append(c.f.statements, off)
		}
	}
}

// leftmost returns the expression whose first token is e's first token.
func leftmost(e js.IExpr) js.IExpr {
	for {
		switch n := e.(type) {
		case *js.CallExpr:
			e = n.X
		case *js.DotExpr:
			e = n.X
		case *js.IndexExpr:
			e = n.X
		case *js.BinaryExpr:
			e = n.X
		case *js.CondExpr:
			e = n.Cond
		case *js.CommaExpr:
			e = n.List[0]
		case *js.TemplateExpr:
			if n.Tag == nil {
				return e
			}
			e = n.Tag
		case *js.UnaryExpr:
			if n.Op != js.PostIncrToken && n.Op != js.PostDecrToken {
				return e
			}
			e = n.X
		default:
			return e
		}
	}
}

func (c *collector) fail(format string, args ...any) {
	if c.err == nil {
		c.err = fmt.Errorf(format, args...)
	}
}

// nodes walks a list of nodes of any node type.
func nodes[T js.INode](c *collector, list []T) {
	for _, n := range list {
		c.node(n)
	}
}

// node walks one node of any type; nil interfaces and nil pointers are skipped.
func (c *collector) node(n js.INode) {
	switch n := n.(type) {
	case nil:
	case *js.LiteralExpr:
		if n != nil {
			c.literal(n)
		}
	case js.LiteralExpr:
		c.literal(&n)
	case *js.BlockStmt:
		if n != nil {
			nodes(c, n.List)
		}
	case *js.ExprStmt:
		c.statementStart(n.Value)
		c.node(n.Value)
	case *js.IfStmt:
		c.node(n.Cond)
		c.node(n.Body)
		c.node(n.Else)
	case *js.DoWhileStmt:
		c.node(n.Body)
		c.node(n.Cond)
	case *js.WhileStmt:
		c.node(n.Cond)
		c.node(n.Body)
	case *js.ForStmt:
		c.node(n.Init)
		c.node(n.Cond)
		c.node(n.Post)
		c.block(n.Body)
	case *js.ForInStmt:
		c.node(n.Init)
		c.node(n.Value)
		c.block(n.Body)
	case *js.ForOfStmt:
		c.node(n.Init)
		c.node(n.Value)
		c.block(n.Body)
	case *js.SwitchStmt:
		c.node(n.Init)
		for i := range n.List {
			c.node(n.List[i].Cond)
			nodes(c, n.List[i].List)
		}
	case *js.ReturnStmt:
		c.node(n.Value)
	case *js.WithStmt:
		c.node(n.Cond)
		c.node(n.Body)
	case *js.LabelledStmt:
		c.node(n.Value)
	case *js.ThrowStmt:
		c.node(n.Value)
	case *js.TryStmt:
		c.block(n.Body)
		c.node(n.Binding)
		c.block(n.Catch)
		c.block(n.Finally)
	case *js.ExportStmt:
		c.node(n.Decl)
	case *js.EmptyStmt, *js.BranchStmt, *js.DebuggerStmt, *js.ImportStmt, *js.DirectivePrologueStmt,
		*js.Comment, *js.Var, *js.NewTargetExpr, *js.ImportMetaExpr:
		// No expressions inside.
	default:
		c.compound(n)
	}
}

// compound walks the node types that hold bindings, functions, classes and expressions.
func (c *collector) compound(n js.INode) {
	switch n := n.(type) {
	case *js.VarDecl:
		c.elements(n.List)
	case *js.BindingArray:
		c.elements(n.List)
		c.node(n.Rest)
	case *js.BindingObject:
		for i := range n.List {
			c.propertyName(n.List[i].Key)
			c.element(&n.List[i].Value)
		}
		// Rest is a *Var: nothing inside.
	case *js.FuncDecl:
		c.params(&n.Params)
		nodes(c, n.Body.List)
	case *js.ArrowFunc:
		c.params(&n.Params)
		nodes(c, n.Body.List)
	case *js.MethodDecl:
		c.method(n)
	case *js.ClassDecl:
		c.class(n)
	case *js.ArrayExpr:
		for i := range n.List {
			c.node(n.List[i].Value)
		}
	case *js.ObjectExpr:
		for i := range n.List {
			c.propertyName(n.List[i].Name)
			c.node(n.List[i].Value)
			c.node(n.List[i].Init)
		}
	case *js.TemplateExpr:
		c.node(n.Tag)
		for i := range n.List {
			c.node(n.List[i].Expr)
		}
	case *js.GroupExpr:
		c.node(n.X)
	case *js.IndexExpr:
		c.node(n.X)
		c.node(n.Y)
	case *js.DotExpr:
		c.node(n.X)
		c.node(n.Y)
	case *js.NewExpr:
		c.node(n.X)
		if n.Args != nil {
			c.args(n.Args)
		}
	case *js.CallExpr:
		c.node(n.X)
		c.args(&n.Args)
	case *js.UnaryExpr:
		c.node(n.X)
	case *js.BinaryExpr:
		c.node(n.X)
		c.node(n.Y)
	case *js.CondExpr:
		c.node(n.Cond)
		c.node(n.X)
		c.node(n.Y)
	case *js.YieldExpr:
		c.node(n.X)
	case *js.CommaExpr:
		nodes(c, n.List)
	default:
		c.fail("unknown syntax node %T", n)
	}
}

func (c *collector) block(b *js.BlockStmt) {
	if b != nil {
		nodes(c, b.List)
	}
}

func (c *collector) element(e *js.BindingElement) {
	c.node(e.Binding)
	c.node(e.Default)
}

func (c *collector) elements(list []js.BindingElement) {
	for i := range list {
		c.element(&list[i])
	}
}

func (c *collector) params(p *js.Params) {
	c.elements(p.List)
	c.node(p.Rest)
}

func (c *collector) args(a *js.Args) {
	for i := range a.List {
		c.node(a.List[i].Value)
	}
}

// propertyName walks a computed key; a plain key holds no expression.
func (c *collector) propertyName(p *js.PropertyName) {
	if p != nil {
		c.node(p.Computed)
	}
}

func (c *collector) method(m *js.MethodDecl) {
	c.propertyName(&m.Name.PropertyName)
	c.params(&m.Params)
	nodes(c, m.Body.List)
}

func (c *collector) class(n *js.ClassDecl) {
	c.node(n.Extends)
	for i := range n.List {
		e := &n.List[i]
		switch {
		case e.StaticBlock != nil:
			nodes(c, e.StaticBlock.List)
		case e.Method != nil:
			c.method(e.Method)
		default:
			c.propertyName(&e.Field.Name.PropertyName)
			c.node(e.Field.Init)
		}
	}
}
