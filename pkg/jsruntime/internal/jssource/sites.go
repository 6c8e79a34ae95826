package jssource

import (
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
		return 0, false
	}
	return off, true
}

// tokenAt returns the index of the token at or before off.
func (s *Sites) tokenAt(off int) int {
	i := 0
	for i+1 < len(s.toks) && s.toks[i+1].off <= off {
		i++
	}
	return i
}

// position returns V8's line and column of an offset (columns in bytes: the printed code of a
// line before a non-ASCII character is rarely where an error is).
func (s *Sites) position(off int) (int, int) {
	line := 1
	for line < len(s.lines) && s.lines[line] <= off {
		line++
	}
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
	depth := 0
	for j := i; j < len(s.toks); j++ {
		switch s.toks[j].tt {
		case js.OpenParenToken, js.OpenBracketToken, js.OpenBraceToken, js.TemplateStartToken:
			depth++
		case js.CloseParenToken, js.CloseBracketToken, js.CloseBraceToken, js.TemplateEndToken:
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return -1
}

// unmatchedOpen returns the index of the innermost bracket of kind open that is still open
// before token i, or -1.
func (s *Sites) unmatchedOpen(i int, open js.TokenType) int {
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
				if open != js.OpenBraceToken && s.toks[j].tt == js.OpenBraceToken {
					return -1 // a call's arguments do not span a block
				}
				continue
			}
			depth--
		}
	}
	return -1
}

// chainStart returns the first token of the member chain whose last name is at i.
func (s *Sites) chainStart(i int) int {
	j := i
	for j >= 2 {
		switch s.toks[j-1].tt {
		case js.DotToken, js.OptChainToken:
			if isName(s.toks[j-2]) {
				j -= 2
				continue
			}
		}
		break
	}
	return j
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
	}
	if start > 0 && s.toks[start-1].tt == js.NewToken {
		st := s.site(start - 1)
		st.Callee, st.New = s.text(start, end), true
		return st, true
	}
	if end+1 < len(s.toks) {
		switch next := s.toks[end+1]; next.tt {
		case js.OpenParenToken, js.TemplateToken, js.TemplateStartToken:
			st := s.site(last)
			st.Callee = s.text(start, end)
			return st, true
		case js.EqToken:
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
		if open := s.unmatchedOpen(i, js.OpenParenToken); open > 0 && isName(s.toks[open-1]) {
			calleeLast := open - 1
			start := s.chainStart(calleeLast)
			if start > 0 && s.toks[start-1].tt == js.NewToken {
				st := s.site(start - 1)
				st.Callee, st.New = s.text(start, calleeLast), true
				return st, true
			}
			st := s.site(calleeLast)
			st.Callee = s.text(start, calleeLast)
			return st, true
		}
		return s.site(last), true
	}
	return s.site(i), true
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
		open := s.unmatchedOpen(i, js.OpenBraceToken)
		if open < 1 {
			return name
		}
		i = open
		if s.toks[open-1].tt != js.CloseParenToken {
			continue // a block or an object literal: look further out
		}
		paren := s.unmatchedOpen(open-1, js.OpenParenToken)
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
		container := s.unmatchedOpen(method, js.OpenBraceToken)
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
