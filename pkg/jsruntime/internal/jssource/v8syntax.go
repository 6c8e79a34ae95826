package jssource

import (
	"strings"
	"unicode/utf8"

	"github.com/tdewolff/parse/v2"
	"github.com/tdewolff/parse/v2/js"
)

// V8's SyntaxError texts (docs/adr/0060-v8-error-texts-and-stack-frames.md). V8 reports a cell
// that does not compile as "SyntaxError: <message>", without a position. The parser's messages and
// QuickJS's compiler's are translated where V8's message is known from the token at the error's
// position; the others keep their own text and position.

// strictReserved are the words a module may not use as names, which V8 reports as "Unexpected
// strict mode reserved word".
var strictReserved = map[string]bool{
	"implements": true, "interface": true, "let": true, "package": true, "private": true,
	"protected": true, "public": true, "static": true, "yield": true,
}

// V8Message returns V8's message for e, a SyntaxError of the cell src, or "" when it has none.
func (e *SyntaxError) V8Message(src string) string {
	m := e.Message
	switch {
	case strings.HasPrefix(m, "identifier ") && strings.HasSuffix(m, " has already been declared"):
		name := strings.TrimSuffix(strings.TrimPrefix(m, "identifier "), " has already been declared")
		return "Identifier '" + name + "' has already been declared"
	case strings.HasPrefix(m, "unterminated string literal"):
		return "Invalid or unexpected token"
	case strings.HasPrefix(m, "unterminated template literal"):
		return "Unexpected end of input"
	case strings.HasPrefix(m, "expected = instead of ") && strings.HasSuffix(m, " in const statement"):
		return "Missing initializer in const declaration"
	case m == "expected Identifier instead of ( in function declaration":
		return "Function statements require a function name"
	case strings.HasPrefix(m, "legacy octal numbers"):
		// The lexer stops at such a number, so it is read from the source.
		if off := sourceOffset(src, e.Line, e.Column); off >= 0 {
			digits := src[off:]
			if n := strings.IndexFunc(digits, func(r rune) bool { return r < '0' || r > '9' }); n >= 0 {
				digits = digits[:n]
			}
			if strings.ContainsAny(digits, "89") {
				return "Decimals with leading zeros are not allowed in strict mode."
			}
			return "Octal literals are not allowed in strict mode."
		}
	}
	toks := sourceTokens(src)
	at := tokenAtPosition(src, toks, e.Line, e.Column)
	if at < 0 {
		if strings.Contains(m, "EOF") {
			return "Unexpected end of input"
		}
		return ""
	}
	t := toks[at]
	if !strings.HasPrefix(m, "unexpected "+t.text+" ") && !strings.Contains(m, " instead of "+t.text+" ") {
		if strings.Contains(m, "EOF") {
			return "Unexpected end of input"
		}
		return ""
	}
	if t.tt == js.ReturnToken {
		return "Illegal return statement"
	}
	if at > 0 && toks[at-1].tt == js.AwaitToken && startsExpression(t) {
		return "Unexpected reserved word" // await outside an async function
	}
	if t.tt == js.EqToken && at > 0 && (toks[at-1].tt == js.IncrToken || toks[at-1].tt == js.DecrToken) {
		return "Invalid left-hand side in assignment"
	}
	// `let` followed by what cannot start a binding is `let` used as a name.
	if start := statementStart(toks, at); toks[start].tt == js.LetToken && start+1 < len(toks) {
		switch toks[start+1].tt {
		case js.IdentifierToken, js.OpenBracketToken, js.OpenBraceToken:
		default:
			return "Unexpected strict mode reserved word"
		}
	}
	return unexpected(t)
}

// startsExpression reports whether a token can start an operand (an await's).
func startsExpression(t token) bool {
	switch t.tt {
	case js.IdentifierToken, js.StringToken, js.TemplateToken, js.TemplateStartToken, js.OpenParenToken,
		js.OpenBracketToken, js.OpenBraceToken, js.ThisToken, js.NewToken, js.NullToken, js.TrueToken, js.FalseToken:
		return true
	}
	return js.IsNumeric(t.tt)
}

// unexpected is V8's message for a token where it does not belong.
func unexpected(t token) string {
	switch {
	case strictReserved[t.text]:
		return "Unexpected strict mode reserved word"
	case t.tt == js.IdentifierToken:
		return "Unexpected identifier '" + t.text + "'"
	case js.IsNumeric(t.tt):
		return "Unexpected number"
	case t.tt == js.StringToken:
		return "Unexpected string"
	case t.tt == js.TemplateToken || t.tt == js.TemplateStartToken:
		return "Unexpected template string"
	}
	return "Unexpected token '" + t.text + "'"
}

// sourceTokens lexes source that may hold comments and any line terminators.
func sourceTokens(src string) []token {
	var toks []token
	lx := js.NewLexer(parse.NewInputString(src))
	pos := 0
	for {
		tt, data := lx.Next()
		if tt == js.ErrorToken {
			return toks
		}
		switch tt {
		case js.WhitespaceToken, js.LineTerminatorToken, js.CommentToken, js.CommentLineTerminatorToken:
		default:
			toks = append(toks, token{tt: tt, text: string(data), off: pos})
		}
		pos += len(data)
	}
}

// tokenAtPosition returns the index of the token that starts at line and column (from 1, in
// code points) of src, or -1.
func tokenAtPosition(src string, toks []token, line, col int) int {
	off := sourceOffset(src, line, col)
	for i, t := range toks {
		if t.off == off {
			return i
		}
	}
	return -1
}

// sourceOffset returns the offset of line and column (from 1, in code points) in src, or -1.
// One pass, counting lines as position does.
func sourceOffset(src string, line, col int) int {
	b := []byte(src)
	l, c := 1, 1
	for i := 0; i <= len(b); {
		if l == line && c == col {
			return i
		}
		if i == len(b) || l > line {
			break
		}
		if n := lineTerminatorLen(b[i:]); n > 0 {
			i += n
			l, c = l+1, 1
			continue
		}
		_, n := utf8.DecodeRune(b[i:])
		i += n
		c++
	}
	return -1
}

// statementStart returns the index of the first token of the statement holding token i, as far as
// the tokens show it.
func statementStart(toks []token, i int) int {
	for j := i - 1; j >= 0; j-- {
		switch toks[j].tt {
		case js.SemicolonToken, js.OpenBraceToken, js.CloseBraceToken:
			return j + 1
		}
	}
	return 0
}

// CompileMessage returns V8's message for QuickJS's SyntaxError msg at the position QuickJS
// reported while it compiled the module, or "" when it has none.
func (s *Sites) CompileMessage(msg string, line, col int) string {
	switch msg {
	case "break must be inside loop or switch":
		return "Illegal break statement"
	case "continue must be inside loop":
		return "Illegal continue statement: no surrounding iteration statement"
	case "invalid assignment left-hand side":
		return "Invalid left-hand side in assignment"
	case "new.target only allowed within functions":
		return "new.target expression is not allowed here"
	case "super() is only valid in a derived class constructor":
		return "'super' keyword unexpected here"
	case "cannot delete a direct reference in strict mode":
		return "Delete of an unqualified identifier in strict mode."
	case "invalid keyword: with":
		return "Strict mode code may not include a with statement"
	case "variable name expected", "duplicate label name":
	default:
		return ""
	}
	off, ok := s.offset(line, col)
	if !ok || len(s.toks) == 0 {
		return ""
	}
	i := s.tokenAt(off)
	if msg == "duplicate label name" {
		return "Label '" + s.toks[i].text + "' has already been declared"
	}
	switch s.toks[i].tt {
	case js.VarToken, js.LetToken, js.ConstToken:
		if i+1 < len(s.toks) {
			return unexpected(s.toks[i+1])
		}
	}
	return ""
}
