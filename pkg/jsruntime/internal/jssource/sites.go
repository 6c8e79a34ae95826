package jssource

import (
	"sort"
	"strings"

	"github.com/tdewolff/parse/v2"
	"github.com/tdewolff/parse/v2/js"
)

// Sites reads the printed code of a cell at the positions QuickJS reports in its stack frames,
// to say what V8 would report there (docs/adr/0060-v8-error-texts-and-stack-frames.md): V8's
// column, the callee expression of a call that failed, and V8's name of the function a frame
// runs in. It works on the tokens of the printed code, which has no comments and keeps every
// token where the source had it (see Line numbers in the package doc), so a token's offset is
// its position in the source too. It is built only when a cell creates an error.
type Sites struct {
	code  string
	toks  []token
	lines []int // the offset at which each line starts
}

// token is a significant token of the printed code.
type token struct {
	tt   js.TokenType
	text string
	off  int
}

// NewSites lexes printed code. A regular expression is lexed as the tokens of a division: the
// offsets stay exact, and no rule below looks inside one.
func NewSites(code string) *Sites {
	s := &Sites{code: code, lines: []int{0}}
	for i := 0; i < len(code); i++ {
		if code[i] == '\n' {
			s.lines = append(s.lines, i+1)
		}
	}
	lx := js.NewLexer(parse.NewInputString(code))
	pos := 0
	for {
		tt, data := lx.Next()
		if tt == js.ErrorToken {
			break
		}
		switch tt {
		case js.WhitespaceToken, js.LineTerminatorToken, js.CommentToken, js.CommentLineTerminatorToken:
		default:
			s.toks = append(s.toks, token{tt: tt, text: string(data), off: pos})
		}
		pos += len(data)
	}
	return s
}

// Site is what V8 reports for a frame at a position QuickJS reported.
type Site struct {
	// Line and Column are V8's position (from 1).
	Line, Column int
	// Callee is the source text of the callee of the call or new expression at the position,
	// "" when the position is not at one.
	Callee string
	// New reports a new expression.
	New bool
	// Assignment reports that the position is the target of an assignment (V8's column is
	// then the "=").
	Assignment bool
}

// offset converts QuickJS's line and column to an offset. QuickJS counts the columns of the
// first line from 0 (and shows 0 as 1), those of the other lines from 1.
func (s *Sites) offset(line, col int) (int, bool) {
	if line < 1 || line > len(s.lines) || col < 1 {
		return 0, false
	}
	start := s.lines[line-1]
	off := start + col - 1
	if line == 1 {
		off = col
		if col == 1 && len(s.code) > 0 && s.code[0] != ' ' {
			off = 0
		}
	}
	if off >= len(s.code) {
		if off > len(s.code) || off == 0 {
			return 0, false
		}
		off-- // QuickJS reports an operator failing at the code's end just past it
	}
	return off, true
}

// tokenAt returns the index of the token at or before off.
func (s *Sites) tokenAt(off int) int {
	i := sort.Search(len(s.toks), func(i int) bool { return s.toks[i].off > off })
	return max(i-1, 0)
}

// position returns V8's line and column of an offset (columns in bytes: the printed code of a
// line before a non-ASCII character is rarely where an error is).
func (s *Sites) position(off int) (int, int) {
	line := sort.Search(len(s.lines), func(i int) bool { return s.lines[i] > off })
	return line, off - s.lines[line-1] + 1
}

// isName reports whether a token can name a property: an identifier or a keyword.
func isName(t token) bool {
	if t.tt == js.IdentifierToken || t.tt == js.PrivateIdentifierToken {
		return true
	}
	return t.text != "" && (t.text[0] >= 'a' && t.text[0] <= 'z') && js.IsIdentifierStart([]byte(t.text))
}

// chainEnd returns the index of the last token of the member chain that starts at i
// (name(.name|?.name|[...])*), and the index of its last name.
func (s *Sites) chainEnd(i int) (end, last int) {
	end, last = i, i
	for j := i + 1; j+1 < len(s.toks); {
		switch s.toks[j].tt {
		case js.DotToken, js.OptChainToken:
			if !isName(s.toks[j+1]) {
				return end, last
			}
			end, last = j+1, j+1
			j += 2
		case js.OpenBracketToken:
			k := s.matching(j)
			if k < 0 {
				return end, last
			}
			end = k
			j = k + 1
		default:
			return end, last
		}
	}
	return end, last
}

// matching returns the index of the bracket that closes the one at i, or -1.
func (s *Sites) matching(i int) int {
	return s.walkBrackets(i, 1)
}

// matchingOpen returns the index of the bracket that opens the one that closes at k, or -1.
func (s *Sites) matchingOpen(k int) int {
	return s.walkBrackets(k, -1)
}

// walkBrackets walks the tokens from i in direction step (1 forward, -1 back) and returns the
// index where the bracket at i is balanced again, or -1.
func (s *Sites) walkBrackets(i, step int) int {
	depth := 0
	for j := i; j >= 0 && j < len(s.toks); j += step {
		switch s.toks[j].tt {
		case js.OpenParenToken, js.OpenBracketToken, js.OpenBraceToken, js.TemplateStartToken:
			depth += step
		case js.CloseParenToken, js.CloseBracketToken, js.CloseBraceToken, js.TemplateEndToken:
			depth -= step
		default:
			continue
		}
		if depth == 0 {
			return j
		}
	}
	return -1
}

// unmatchedOpen returns the index of the innermost bracket of kind open that is still open
// before token i, or -1. Other brackets still open are passed over, except a "{" when open is
// another kind and throughBraces is false: a call's arguments do not span a block (with
// throughBraces, an object literal among the arguments is passed over too).
func (s *Sites) unmatchedOpen(i int, open js.TokenType, throughBraces bool) int {
	depth := 0
	for j := i - 1; j >= 0; j-- {
		switch s.toks[j].tt {
		case js.CloseParenToken, js.CloseBracketToken, js.CloseBraceToken, js.TemplateEndToken:
			depth++
		case js.OpenParenToken, js.OpenBracketToken, js.OpenBraceToken, js.TemplateStartToken:
			if depth == 0 {
				if s.toks[j].tt == open {
					return j
				}
				if !throughBraces && s.toks[j].tt == js.OpenBraceToken {
					return -1
				}
				continue
			}
			depth--
		}
	}
	return -1
}

// chainStart returns the first token of the member chain whose last part starts at i: names
// joined by dots, calls and computed members (a.b(…).c, a[0].d, (x).e).
func (s *Sites) chainStart(i int) int {
	j := i
	for j >= 2 && (s.toks[j-1].tt == js.DotToken || s.toks[j-1].tt == js.OptChainToken) {
		start, ok := s.objectStart(j - 2)
		if !ok {
			break
		}
		j = start
	}
	if j >= 1 && s.toks[j].tt == js.OpenBracketToken {
		if start, ok := s.objectStart(j - 1); ok {
			j = start
		}
	}
	return j
}

// objectStart returns the first token of the object expression that ends at token k, when it is
// a name, a call, a computed member or a parenthesized expression.
func (s *Sites) objectStart(k int) (int, bool) {
	for {
		t := s.toks[k]
		switch {
		case t.tt == js.CloseParenToken || t.tt == js.CloseBracketToken:
			open := s.matchingOpen(k)
			if open < 0 {
				return 0, false
			}
			if open > 0 && s.isObjectEnd(open-1) {
				k = open - 1 // a call or a computed member: its callee or object
				continue
			}
			return open, true // a parenthesized expression or an array literal
		case isName(t) && k > 1 && (s.toks[k-1].tt == js.DotToken || s.toks[k-1].tt == js.OptChainToken):
			if start, ok := s.objectStart(k - 2); ok {
				return start, true
			}
			return k, true
		case t.tt == js.IdentifierToken || t.tt == js.ThisToken || t.tt == js.SuperToken || t.tt == js.StringToken || t.tt == js.TemplateToken:
			return k, true
		}
		return 0, false
	}
}

// isObjectEnd reports whether token k can end the callee of a call or the object of a member:
// a name that is not a keyword (or is a property name), or a closing bracket.
func (s *Sites) isObjectEnd(k int) bool {
	t := s.toks[k]
	switch {
	case t.tt == js.IdentifierToken, t.tt == js.ThisToken, t.tt == js.CloseParenToken, t.tt == js.CloseBracketToken:
		return true
	case isName(t):
		return k > 0 && (s.toks[k-1].tt == js.DotToken || s.toks[k-1].tt == js.OptChainToken)
	}
	return false
}

// render prints the expression from token i to token j as V8 names a callee: a call's arguments
// as "(...)", a parenthesized expression as "(intermediate value)", a member named by a string
// literal with a dot.
func (s *Sites) render(i, j int) string {
	var b strings.Builder
	k0 := i
	if i > 0 && s.toks[i-1].tt == js.NewToken {
		// new A().m: the object is the new expression's value.
		for k := i; k <= j; k++ {
			if s.toks[k].tt == js.OpenParenToken {
				if close := s.matching(k); close > 0 && close < j {
					b.WriteString("(intermediate value)")
					k0 = close + 1
				}
				break
			}
		}
	}
	for k := k0; k <= j; k++ {
		t := s.toks[k]
		switch t.tt {
		case js.OpenParenToken:
			close := s.matching(k)
			if close < 0 || close > j {
				return s.text(i, j)
			}
			if k > i && s.isObjectEnd(k-1) {
				b.WriteString("(...)")
			} else {
				b.WriteString("(intermediate value)")
			}
			k = close
		case js.OpenBracketToken:
			close := s.matching(k)
			if close < 0 || close > j {
				return s.text(i, j)
			}
			if close == k+2 && s.toks[k+1].tt == js.StringToken {
				if name := s.toks[k+1].text; len(name) > 2 && js.IsIdentifierStart([]byte(name[1:])) && !strings.ContainsAny(name[1:len(name)-1], "\\ .-") {
					b.WriteString("." + name[1:len(name)-1])
					k = close
					continue
				}
			}
			b.WriteString(s.text(k, close))
			k = close
		default:
			b.WriteString(t.text)
		}
	}
	return b.String()
}

// text returns the source from token i to token j, both included.
func (s *Sites) text(i, j int) string {
	return s.code[s.toks[i].off : s.toks[j].off+len(s.toks[j].text)]
}

// site builds a Site at the token index at.
func (s *Sites) site(at int) Site {
	line, col := s.position(s.toks[at].off)
	return Site{Line: line, Column: col}
}

// At returns V8's site for the position QuickJS reported (line, col) of a frame. top is set for
// the frame where the error was created; prop is the property whose read failed, if the error
// says so. ok is false when the position is not in the code.
func (s *Sites) At(line, col int, top bool, prop string) (Site, bool) {
	off, ok := s.offset(line, col)
	if !ok || len(s.toks) == 0 {
		return Site{}, false
	}
	i := s.tokenAt(off)
	if s.toks[i].tt == js.OpenBracketToken && i > 0 && (s.toks[i-1].tt == js.IdentifierToken || s.toks[i-1].tt == js.ThisToken) {
		i-- // QuickJS reports a computed member at its "[": the chain starts at the object
	}
	if prop != "" && top && !isName(s.toks[i]) && s.toks[i].tt != js.ThisToken {
		if j := s.nextRead(i, prop); j >= 0 {
			return s.site(j), true
		}
	}
	if !isName(s.toks[i]) && s.toks[i].tt != js.ThisToken {
		if top || s.toks[i].tt != js.IntegerToken && s.toks[i].tt != js.DecimalToken && s.toks[i].tt != js.StringToken {
			if i > 0 && s.toks[i-1].tt == js.NewToken {
				st := s.site(i - 1)
				st.Callee, st.New = s.toks[i].text, true
				return st, true
			}
			return s.site(i), true
		}
	}
	end, last := s.chainEnd(i)
	// QuickJS reports a method call at the method's name: the chain starts before it.
	start := s.chainStart(i)
	if prop != "" {
		for j := i + 1; j <= end; j++ {
			if isName(s.toks[j]) && s.toks[j].text == prop && (s.toks[j-1].tt == js.DotToken || s.toks[j-1].tt == js.OptChainToken) {
				return s.site(j), true
			}
		}
		if j := s.nextRead(i, prop); top && j >= 0 {
			return s.site(j), true
		}
	}
	if s.newOf(start, end) {
		st := s.site(start - 1)
		st.Callee, st.New = s.render(start, end), true
		return st, true
	}
	if end+1 < len(s.toks) {
		switch next := s.toks[end+1]; next.tt {
		case js.OpenParenToken, js.TemplateToken, js.TemplateStartToken:
			// V8's column is the method's name, or the "(" after a computed member.
			st := s.site(last)
			if s.toks[end].tt == js.CloseBracketToken {
				st = s.site(end + 1)
			}
			st.Callee = s.render(start, end)
			return st, true
		case js.EqToken, js.IncrToken, js.DecrToken, js.AddEqToken, js.SubEqToken, js.MulEqToken, js.DivEqToken,
			js.ModEqToken, js.ExpEqToken, js.BitAndEqToken, js.BitOrEqToken, js.BitXorEqToken, js.LtLtEqToken,
			js.GtGtEqToken, js.GtGtGtEqToken, js.AndEqToken, js.OrEqToken, js.NullishEqToken:
			if top {
				st := s.site(end + 1)
				st.Assignment = true
				return st, true
			}
		}
	}
	if !top {
		// A call frame whose position is inside the call's arguments: the call is the
		// innermost one open around it.
		if open := s.unmatchedOpen(i, js.OpenParenToken, false); open > 0 && s.isObjectEnd(open-1) {
			calleeLast := open - 1
			start, ok := s.objectStart(calleeLast)
			if !ok {
				start = calleeLast
			}
			if s.newOf(start, calleeLast) {
				st := s.site(start - 1)
				st.Callee, st.New = s.render(start, calleeLast), true
				return st, true
			}
			st := s.site(calleeLast)
			if s.toks[calleeLast].tt == js.CloseBracketToken {
				st = s.site(open)
			}
			st.Callee = s.render(start, calleeLast)
			return st, true
		}
		return s.site(last), true
	}
	return s.site(i), true
}

// EnclosingConstruction returns V8's site of the error made by "new <ctor>(…)" or "<ctor>(…)"
// with this message, at or around the position QuickJS reported (line, col): QuickJS reports
// such an error at the last call or operand of its arguments, V8 at the "new" (Site.New) or at
// the callee's name. A construction whose first argument is a string literal other than the
// message made another error (new Error("outer", {cause: new Error("inner")})). Its success
// tells the error is the script's own, whose message is never rewritten
// (docs/adr/0060-v8-error-texts-and-stack-frames.md).
func (s *Sites) EnclosingConstruction(line, col int, ctor, message string) (Site, bool) {
	off, ok := s.offset(line, col)
	if !ok || len(s.toks) == 0 || ctor == "" {
		return Site{}, false
	}
	i := s.tokenAt(off)
	if i+1 < len(s.toks) && s.toks[i+1].tt == js.OpenParenToken {
		i++ // the callee itself: its "(" is the first candidate
	} else {
		i = s.unmatchedOpen(i+1, js.OpenParenToken, true)
	}
	for n := 0; n < 32 && i > 0; n++ {
		open := i
		if s.toks[open-1].text == ctor && isName(s.toks[open-1]) && s.firstArgMay(open, message) {
			if start, ok := s.objectStart(open - 1); ok && s.newOf(start, open-1) {
				st := s.site(start - 1)
				st.Callee, st.New = s.render(start, open-1), true
				return st, true
			} else if ok {
				st := s.site(open - 1)
				st.Callee = s.render(start, open-1)
				return st, true
			}
		}
		i = s.unmatchedOpen(open, js.OpenParenToken, true)
	}
	return Site{}, false
}

// OperatorBefore returns the site of the binary operator before the operand QuickJS reported
// (line, col): V8 reports a conversion an operator failed at the operator.
func (s *Sites) OperatorBefore(line, col int) (Site, bool) {
	off, ok := s.offset(line, col)
	if !ok || len(s.toks) == 0 {
		return Site{}, false
	}
	i := s.tokenAt(off)
	if i == 0 {
		return Site{}, false
	}
	switch s.toks[i-1].tt {
	case js.InstanceofToken, js.InToken, js.AddToken, js.SubToken, js.MulToken, js.DivToken, js.ModToken, js.ExpToken,
		js.LtToken, js.GtToken, js.LtEqToken, js.GtEqToken, js.BitAndToken, js.BitOrToken, js.BitXorToken,
		js.LtLtToken, js.GtGtToken, js.GtGtGtToken, js.AddEqToken, js.SubEqToken, js.MulEqToken:
		return s.site(i - 1), true
	}
	return Site{}, false
}

// firstArgMay reports whether the call whose "(" is at open may have made an error with this
// message: its first argument is not a string literal with another value.
func (s *Sites) firstArgMay(open int, message string) bool {
	if open+2 >= len(s.toks) || s.toks[open+1].tt != js.StringToken {
		return true
	}
	switch s.toks[open+2].tt {
	case js.CommaToken, js.CloseParenToken:
	default:
		return true // the literal is part of a longer expression
	}
	lit := s.toks[open+1].text
	if strings.Contains(lit, "\\") {
		return true // escapes: not decoded here
	}
	return lit[1:len(lit)-1] == message
}

// newOf reports whether the callee from token start to token end is a new expression's: a "new"
// before it, and no call inside it (new A().m() calls m).
func (s *Sites) newOf(start, end int) bool {
	if start == 0 || s.toks[start-1].tt != js.NewToken {
		return false
	}
	for k := start + 1; k <= end; k++ {
		if s.toks[k].tt == js.OpenParenToken {
			return false
		}
	}
	return true
}

// nextRead returns the first ".prop" after token i, within a few hundred tokens, or -1: QuickJS
// reports some reads (in an arrow function's body, in a statement it reports at its line's
// start) before the read itself.
func (s *Sites) nextRead(i int, prop string) int {
	for j := i + 1; j < len(s.toks) && j < i+300; j++ {
		if isName(s.toks[j]) && s.toks[j].text == prop && (s.toks[j-1].tt == js.DotToken || s.toks[j-1].tt == js.OptChainToken) {
			return j
		}
	}
	return -1
}

// FunctionName returns V8's name for a frame of the function named name (QuickJS's name) whose
// position QuickJS reported: "Type.name" for a method (Type the class, or Object for an object
// literal), "new Class" for a class constructor, name otherwise.
func (s *Sites) FunctionName(line, col int, name string) string {
	if name == "" || strings.HasPrefix(name, "get ") || strings.HasPrefix(name, "set ") {
		return name
	}
	off, ok := s.offset(line, col)
	if !ok || len(s.toks) == 0 {
		return name
	}
	for i := s.tokenAt(off) + 1; ; {
		open := s.unmatchedOpen(i, js.OpenBraceToken, false)
		if open < 1 {
			return name
		}
		i = open
		if s.toks[open-1].tt != js.CloseParenToken {
			continue // a block or an object literal: look further out
		}
		paren := s.unmatchedOpen(open-1, js.OpenParenToken, false)
		if paren < 1 || !isName(s.toks[paren-1]) {
			return name // an arrow function's body or a control statement's: keep QuickJS's name
		}
		method := paren - 1
		if method > 0 {
			switch s.toks[method-1].tt {
			case js.FunctionToken, js.MulToken:
				if s.toks[method-1].tt == js.FunctionToken || method > 1 && s.toks[method-2].tt == js.FunctionToken {
					return name
				}
			case js.IfToken, js.WhileToken, js.ForToken, js.SwitchToken, js.CatchToken, js.WithToken:
				continue
			}
		}
		if s.toks[method].tt != js.IdentifierToken && !isName(s.toks[method]) {
			return name
		}
		switch s.toks[method].text {
		case "if", "while", "for", "switch", "catch", "with", "function":
			continue
		}
		container := s.unmatchedOpen(method, js.OpenBraceToken, false)
		if container < 0 {
			return name
		}
		if cls := s.className(container); cls != "" {
			if s.toks[method].text == "constructor" {
				return "new " + cls
			}
			return cls + "." + name
		}
		return "Object." + name
	}
}

// className returns the name of the class whose body opens at the brace i, or "" if it is not
// a class body (or the class has no name).
func (s *Sites) className(i int) string {
	for j := i - 1; j >= 0 && j >= i-12; j-- {
		if s.toks[j].tt == js.ClassToken {
			if j+1 < i && s.toks[j+1].tt == js.IdentifierToken {
				return s.toks[j+1].text
			}
			return ""
		}
		switch s.toks[j].tt {
		case js.SemicolonToken, js.CloseBraceToken, js.OpenBraceToken, js.EqToken:
			if j != i {
				return ""
			}
		}
	}
	return ""
}

// Iterable returns the source text and V8's site of the value a for-of statement or an array
// destructuring found not iterable, where QuickJS reported the statement (line, col).
func (s *Sites) Iterable(line, col int) (string, Site, bool) {
	off, ok := s.offset(line, col)
	if !ok || len(s.toks) == 0 {
		return "", Site{}, false
	}
	i := s.tokenAt(off)
	if t := s.toks[i].tt; t != js.ForToken && t != js.EqToken {
		// QuickJS may report the statement at its line's start: the first for-of or array
		// pattern declared after it.
		for j := i; j+1 < len(s.toks) && j < i+300; j++ {
			if s.toks[j].tt == js.ForToken {
				i = j
				break
			}
			if t := s.toks[j].tt; (t == js.ConstToken || t == js.LetToken || t == js.VarToken) && s.toks[j+1].tt == js.OpenBracketToken {
				if close := s.matching(j + 1); close > 0 && close+1 < len(s.toks) && s.toks[close+1].tt == js.EqToken {
					i = close + 1
					break
				}
			}
		}
	}
	switch s.toks[i].tt {
	case js.ForToken:
		p := i + 1
		if p < len(s.toks) && s.toks[p].tt == js.AwaitToken {
			p++
		}
		if p >= len(s.toks) || s.toks[p].tt != js.OpenParenToken {
			return "", Site{}, false
		}
		close := s.matching(p)
		depth := 0
		for k := p + 1; k < close; k++ {
			switch s.toks[k].tt {
			case js.OpenParenToken, js.OpenBracketToken, js.OpenBraceToken:
				depth++
			case js.CloseParenToken, js.CloseBracketToken, js.CloseBraceToken:
				depth--
			}
			if depth == 0 && s.toks[k].text == "of" && k+1 < close {
				return s.text(k+1, close-1), s.valueSite(k+1, close-1), true
			}
		}
	case js.EqToken:
		if end := s.expressionEnd(i + 1); end > i {
			return s.text(i+1, end), s.valueSite(i+1, end), true
		}
	}
	return "", Site{}, false
}

// valueSite is V8's site of the value from token i to token j: the last name of a member chain
// (r.items at items), else where the value starts.
func (s *Sites) valueSite(i, j int) Site {
	if end, last := s.chainEnd(i); end == j && isName(s.toks[last]) {
		return s.site(last)
	}
	return s.site(i)
}

// expressionEnd returns the last token of the expression that starts at token i: the token
// before the ";" or "," or closing bracket that ends it at its depth, or before a new line.
func (s *Sites) expressionEnd(i int) int {
	depth := 0
	line, _ := s.position(s.toks[i].off)
	for k := i; k < len(s.toks); k++ {
		t := s.toks[k]
		if depth == 0 && k > i {
			if l, _ := s.position(t.off); l != line {
				return k - 1
			}
		}
		switch t.tt {
		case js.OpenParenToken, js.OpenBracketToken, js.OpenBraceToken, js.TemplateStartToken:
			depth++
		case js.CloseParenToken, js.CloseBracketToken, js.CloseBraceToken, js.TemplateEndToken:
			if depth == 0 {
				return k - 1
			}
			depth--
		case js.SemicolonToken, js.CommaToken:
			if depth == 0 {
				return k - 1
			}
		}
	}
	return len(s.toks) - 1
}

// Destructure returns V8's message and site for an object pattern whose value is undefined or
// null (QuickJS: "Cannot convert undefined or null to object"), where QuickJS reported the
// declaration or the function (line, col).
func (s *Sites) Destructure(line, col int) (string, Site, bool) {
	off, ok := s.offset(line, col)
	if !ok || len(s.toks) == 0 {
		return "", Site{}, false
	}
	i := s.tokenAt(off)
	if t := s.toks[i].tt; t != js.FunctionToken && t != js.AsyncToken && !(i+1 < len(s.toks) && s.toks[i+1].tt == js.OpenBraceToken) {
		// QuickJS may report the declaration at its line's start: the first object pattern
		// declared after it.
		for j := i; j+1 < len(s.toks) && j < i+300; j++ {
			if t := s.toks[j].tt; (t == js.ConstToken || t == js.LetToken || t == js.VarToken) && s.toks[j+1].tt == js.OpenBraceToken {
				i = j
				break
			}
		}
	}
	var open int
	of := "undefined"
	switch s.toks[i].tt {
	case js.ConstToken, js.LetToken, js.VarToken:
		open = i + 1
		if open >= len(s.toks) || s.toks[open].tt != js.OpenBraceToken {
			return "", Site{}, false
		}
		close := s.matching(open)
		if close < 0 || close+2 >= len(s.toks) || s.toks[close+1].tt != js.EqToken {
			return "", Site{}, false
		}
		end := s.expressionEnd(close + 2)
		if end < close+2 {
			return "", Site{}, false
		}
		of = s.text(close+2, end)
		if of == "null" {
			return destructureText(s, open, "null", "null")
		}
		return destructureText(s, open, of, "undefined")
	case js.FunctionToken, js.AsyncToken:
		for k := i + 1; k < len(s.toks) && k < i+6; k++ {
			if s.toks[k].tt == js.OpenParenToken {
				if k+1 < len(s.toks) && s.toks[k+1].tt == js.OpenBraceToken {
					return destructureText(s, k+1, "undefined", "undefined")
				}
				break
			}
		}
	}
	return "", Site{}, false
}

// destructureText is V8's message for the object pattern that opens at token open.
func destructureText(s *Sites, open int, of, is string) (string, Site, bool) {
	if open+1 < len(s.toks) && s.toks[open+1].tt == js.CloseBraceToken {
		return "Cannot destructure '" + of + "' as it is " + is + ".", s.site(open), true
	}
	close := s.matching(open)
	for k := open + 1; k < close; k++ {
		if t := s.toks[k].tt; t == js.OpenBraceToken || t == js.OpenBracketToken {
			// A nested pattern: which level met undefined is not known from the code.
			return "", Site{}, false
		}
	}
	if open+1 < len(s.toks) && isName(s.toks[open+1]) {
		return "Cannot destructure property '" + s.toks[open+1].text + "' of '" + of + "' as it is " + is + ".", s.site(open + 1), true
	}
	return "", Site{}, false
}
