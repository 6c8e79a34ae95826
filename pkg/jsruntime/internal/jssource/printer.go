package jssource

import (
	"bytes"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/tdewolff/parse/v2"
	"github.com/tdewolff/parse/v2/js"
)

// printer prints the tokens of a parsed source in canonical form. It lexes the source again
// with the parser's own lexer; whether a slash starts a regular expression is the one choice
// the lexer cannot make alone, and the printer makes the parser's choices, taken from the AST
// (facts.regexes), so it sees exactly the tokens the parser saw.
//
// Canonical form: whitespace becomes one ASCII space per code point, each line terminator
// (LF, CR, CRLF, U+2028, U+2029) one "\n", a comment spaces and newlines of its own shape (a
// line comment nothing: a line terminator or the end follows it), the hashbang nothing.
// Literals are rewritten only where QuickJS could read them differently (see appendString,
// appendTemplate), and a regular expression after a word or a closing bracket is put in
// parentheses, so that no engine can take its slash for a division. Every other token is
// copied, escapes and all, so each token keeps its line and, on most lines, its column.
//
// The `import` keywords are printed as they are and recorded as sites; resolve then rewrites
// those that call import(), using the parser's facts.
type printer struct {
	src []byte
	g   goal
	fr  *frame
	out []byte

	regexes []int // the offsets of the regular expressions, from the parser
	ri      int   // the next one

	sites []importSite
	depth int          // open (, [, { and template substitutions
	prev  js.TokenType // the previous significant token; ErrorToken before the first
	prev2 js.TokenType // the one before it

	// headers holds, per open "(", whether it opens the head of an if, while, for or with;
	// headerClosed is set when the previous token closed one.
	headers      []bool
	poppedHeader bool // the ")" being printed closes a head
	headerClosed bool
}

// importSite is an `import` keyword in the printed code.
type importSite struct {
	out, src int          // its offsets in the printed code and in the source
	depth    int          // the bracket depth around it
	dot      bool         // it follows "." or "?.": a property name
	semi     bool         // a statement starting here would need a ";" before "(" (see needsSemicolon)
	prev     js.TokenType // the previous significant token
	next     js.TokenType // the next significant token (ErrorToken at the end)
}

// printed is the printer's result before the import() calls are rewritten.
type printed struct {
	out   []byte
	sites []importSite
}

// print prints src, lexing a regular expression at each offset in regexes.
func print(src []byte, g goal, regexes []int, fr *frame) (printed, error) {
	p := &printer{src: src, g: g, fr: fr, regexes: regexes, prev: js.ErrorToken, prev2: js.ErrorToken}
	p.out = make([]byte, 0, len(src)+len(src)/8+16)
	if err := p.run(); err != nil {
		return printed{}, err
	}
	return printed{out: p.out, sites: p.sites}, nil
}

// run lexes the source and prints every token.
func (p *printer) run() error {
	start := hashbangEnd(p.src)
	in := parse.NewInputBytes(p.src)
	in.Move(start)
	in.Skip()
	lx := js.NewLexer(in)
	pos := start
	for {
		tt, data := lx.Next()
		if tt == js.ErrorToken {
			if lx.Err() != io.EOF {
				return internalError("lexer failed where the parser did not: %v", lx.Err())
			}
			break
		}
		if (tt == js.DivToken || tt == js.DivEqToken) && p.ri < len(p.regexes) && p.regexes[p.ri] == pos {
			if tt, data = lx.RegExp(); tt != js.RegExpToken {
				return internalError("no regular expression at offset %d", pos)
			}
			p.ri++
		}
		if err := p.token(tt, data, pos); err != nil {
			return err
		}
		pos += len(data)
	}
	if pos != len(p.src) {
		return internalError("lexed %d of %d bytes", pos, len(p.src))
	}
	if p.ri != len(p.regexes) {
		return internalError("met %d of %d regular expressions", p.ri, len(p.regexes))
	}
	if p.fr != nil && p.fr.next != len(p.fr.delims()) {
		return p.fr.unclosed(p)
	}
	return nil
}

// token prints one token that starts at pos.
func (p *printer) token(tt js.TokenType, data []byte, pos int) error {
	switch tt {
	case js.WhitespaceToken:
		if len(data) == 1 {
			p.out = append(p.out, ' ')
		} else {
			p.spaces(utf8.RuneCount(data))
		}
		return nil
	case js.LineTerminatorToken:
		p.newlines(data)
		return nil
	case js.CommentToken, js.CommentLineTerminatorToken:
		return p.comment(data, pos)
	}
	if n := len(p.sites); n > 0 && p.sites[n-1].next == js.ErrorToken {
		p.sites[n-1].next = tt
	}
	if p.fr != nil {
		if err := p.fr.before(p, tt, data, pos); err != nil {
			return err
		}
	}
	if err := p.significant(tt, data, pos); err != nil {
		return err
	}
	p.headerClosed = tt == js.CloseParenToken && p.poppedHeader
	p.prev2, p.prev = p.prev, tt
	if p.fr != nil {
		return p.fr.after(p, tt, data, pos)
	}
	return nil
}

// significant prints a token that is not whitespace, a line terminator or a comment.
func (p *printer) significant(tt js.TokenType, data []byte, pos int) error {
	switch tt {
	case js.StringToken:
		p.out = appendString(p.out, data)
	case js.TemplateToken, js.TemplateMiddleToken:
		p.out = appendTemplate(p.out, data)
	case js.TemplateStartToken:
		p.out = appendTemplate(p.out, data)
		p.depth++
	case js.TemplateEndToken:
		p.out = appendTemplate(p.out, data)
		p.depth--
	case js.RegExpToken:
		return p.regex(data, pos)
	case js.ImportToken:
		p.importKeyword(data, pos)
	case js.ExportToken:
		if p.g != goalModule && p.depth == 0 && !isDot(p.prev) {
			return p.syntaxError(pos, "Unexpected token 'export'")
		}
		p.out = append(p.out, data...)
	case js.OpenParenToken:
		p.headers = append(p.headers, p.opensHeader())
		p.depth++
		p.out = append(p.out, data...)
	case js.CloseParenToken:
		p.poppedHeader = false
		if n := len(p.headers); n > 0 {
			p.poppedHeader = p.headers[n-1]
			p.headers = p.headers[:n-1]
		}
		p.depth--
		p.out = append(p.out, data...)
	case js.OpenBracketToken, js.OpenBraceToken:
		p.depth++
		p.out = append(p.out, data...)
	case js.CloseBracketToken, js.CloseBraceToken:
		p.depth--
		p.out = append(p.out, data...)
	default:
		p.out = append(p.out, data...)
	}
	return nil
}

// opensHeader reports whether a "(" now opens the head of an if, while, for (await) or with
// statement, after which a statement follows: the keyword is not a property name (o.if()).
func (p *printer) opensHeader() bool {
	switch p.prev {
	case js.IfToken, js.WhileToken, js.ForToken, js.WithToken:
		return !isDot(p.prev2)
	case js.AwaitToken:
		return p.prev2 == js.ForToken
	}
	return false
}

// importKeyword prints the keyword `import` and records it as a site for resolve.
func (p *printer) importKeyword(data []byte, pos int) {
	p.sites = append(p.sites, importSite{
		out: len(p.out), src: pos, depth: p.depth, dot: isDot(p.prev), semi: p.needsSemicolon(), prev: p.prev,
		next: js.ErrorToken,
	})
	p.out = append(p.out, data...)
}

// resolve rewrites the import() calls among the sites, with the parser's facts, and returns
// the final code. A keyword the AST locates calls import(); one it does not locate calls
// import() if it stands outside every bracket before "(" (a module-level statement, see
// facts.unplaced); any other is a property, method or field name ({import() {}} declares a
// method), or import.meta. Every located keyword must be met, so nothing was misread.
func resolve(pr printed, f *facts, g goal, src []byte) (string, error) {
	var b strings.Builder
	last, ii, si, unplaced := 0, 0, 0, 0
	for _, s := range pr.sites {
		var semi bool
		switch {
		case s.dot:
			continue
		case ii < len(f.imports) && f.imports[ii] == s.src:
			ii++
			if s.next != js.OpenParenToken {
				return "", internalError("import keyword without ( at offset %d", s.src)
			}
			if si < len(f.statements) && f.statements[si] == s.src {
				si++
				semi = s.semi
			} else if s.semi && !takesOperand(s.prev) {
				// Two expressions side by side, `[a import(x)]`: the parser lets an array
				// literal's elements go without commas, and "(" would make a call of it.
				line, col := position(src, s.src)
				return "", &SyntaxError{Message: "Unexpected token 'import'", File: g.file(), Line: line, Column: col}
			}
		case s.depth == 0 && s.next == js.OpenParenToken:
			unplaced++
			semi = s.semi
		case s.depth == 0 && s.next != js.DotToken && g != goalModule:
			line, col := position(src, s.src)
			return "", &SyntaxError{Message: "Cannot use import statement outside a module", File: g.file(), Line: line, Column: col}
		case s.depth == 0 && s.next != js.DotToken:
			// A module's static imports were reported before printing.
			return "", internalError("static import at offset %d that the parse did not report", s.src)
		default:
			continue
		}
		if b.Len() == 0 {
			b.Grow(len(pr.out) + 4*len(RejectingImport))
		}
		b.Write(pr.out[last:s.out])
		if semi {
			// See needsSemicolon: the rewrite starts with "(", which would otherwise call
			// what precedes it (`f()\nimport(x)` is two statements by automatic semicolon
			// insertion, `f()\n(…)(x)` one call).
			b.WriteByte(';')
		}
		b.WriteString(RejectingImport)
		last = s.out + len("import")
	}
	if ii != len(f.imports) || unplaced != f.unplaced {
		return "", internalError("rewrote %d+%d of %d+%d import() calls", ii, unplaced, len(f.imports), f.unplaced)
	}
	if last == 0 {
		return string(pr.out), nil
	}
	b.Write(pr.out[last:])
	return b.String(), nil
}

// takesOperand reports whether an expression may follow the token tt although
// needsSemicolon holds for it: await, yield and the of of for-of.
func takesOperand(tt js.TokenType) bool {
	return tt == js.AwaitToken || tt == js.YieldToken || tt == js.OfToken
}

// needsSemicolon reports whether the previous token could end an expression, so that a
// statement starting with "(" after it needs a ";". After the ")" of an if, while, for or
// with head a statement follows and ";" would be an empty body; after a "}" it is at worst
// an empty statement.
func (p *printer) needsSemicolon() bool {
	switch p.prev {
	case js.ErrorToken, js.TemplateStartToken, js.TemplateMiddleToken:
		// A template's "${" opens an expression: nothing before it can be called.
		return false
	case js.CloseParenToken:
		return !p.headerClosed
	case js.CloseBracketToken, js.CloseBraceToken, js.IncrToken, js.DecrToken, js.AwaitToken, js.YieldToken,
		js.ThisToken, js.SuperToken, js.NullToken, js.TrueToken, js.FalseToken:
		return true
	}
	return !js.IsPunctuator(p.prev) && !js.IsReservedWord(p.prev)
}

// regex prints a regular expression literal.
func (p *printer) regex(data []byte, pos int) error {
	if i := bytes.IndexByte(data, 0); i >= 0 {
		// QuickJS takes source as a C string; a NUL cannot be escaped here without changing
		// the pattern's source text, so it is refused.
		return p.syntaxError(pos+i, "NUL character in regular expression")
	}
	if regexNeedsParens(p.prev) {
		p.out = append(p.out, '(')
		p.out = append(p.out, data...)
		p.out = append(p.out, ')')
		return nil
	}
	p.out = append(p.out, data...)
	return nil
}

// regexNeedsParens reports whether a regular expression after the token prev is put in
// parentheses. A parser decides whether a slash starts a regular expression by the grammar,
// and two parsers can disagree where a word is a keyword in one mode and a name in the other:
// in a script `await /x; …/` is a division by QuickJS's reading and a regular expression by
// ours (our parser knows one grammar for both). After a word, a literal or a closing
// bracket, the parentheses make every reader see a regular expression; after a punctuator or
// a keyword reserved in every mode (return, typeof, case …) there is no doubt and the
// columns stay as they were. The parentheses change nothing else: a regular expression only
// stands where an expression starts.
func regexNeedsParens(prev js.TokenType) bool {
	switch prev {
	case js.ErrorToken, js.TemplateStartToken, js.TemplateMiddleToken:
		return false
	case js.CloseParenToken, js.CloseBracketToken, js.CloseBraceToken, js.IncrToken, js.DecrToken,
		js.AwaitToken, js.YieldToken, js.ThisToken, js.SuperToken, js.NullToken, js.TrueToken, js.FalseToken:
		return true
	}
	return !js.IsPunctuator(prev) && !js.IsReservedWord(prev)
}

func isDot(tt js.TokenType) bool { return tt == js.DotToken || tt == js.OptChainToken }

// comment prints a comment as the spaces and newlines it covers.
func (p *printer) comment(data []byte, pos int) error {
	switch {
	case bytes.HasPrefix(data, []byte("//")):
		// A line terminator or the end of the source follows.
	case bytes.HasPrefix(data, []byte("/*")):
		last := 0
		for i := 0; i < len(data); {
			if n := lineTerminatorLen(data[i:]); n > 0 {
				p.out = append(p.out, '\n')
				i += n
				last = i
				continue
			}
			i++
		}
		p.spaces(utf8.RuneCount(data[last:]))
	default:
		// <!-- and --> comments (Annex B) exist in scripts only; in a module QuickJS reads
		// them as operators, which the parser cannot do.
		if p.g == goalModule {
			return p.syntaxError(pos, "HTML-like comments are not allowed in modules")
		}
	}
	return nil
}

func (p *printer) spaces(n int) {
	for range n {
		p.out = append(p.out, ' ')
	}
}

// newlines prints one "\n" per line terminator in data.
func (p *printer) newlines(data []byte) {
	for i := 0; i < len(data); {
		n := lineTerminatorLen(data[i:])
		if n == 0 {
			n = 1 // cannot happen: the lexer returns line terminators only
		}
		p.out = append(p.out, '\n')
		i += n
	}
}

// syntaxError returns a *SyntaxError at the offset pos of the source.
func (p *printer) syntaxError(pos int, msg string) error {
	line, col := position(p.src, pos)
	return &SyntaxError{Message: msg, File: p.g.file(), Line: line, Column: col}
}

// hashbangEnd returns the end of a "#!" comment on the first line, or 0. The parser skips it
// the same way before lexing.
func hashbangEnd(src []byte) int {
	if !bytes.HasPrefix(src, []byte("#!")) {
		return 0
	}
	for i := 2; i < len(src); i++ {
		if lineTerminatorLen(src[i:]) > 0 {
			return i
		}
	}
	return len(src)
}

// lineTerminatorLen returns the length of the line terminator sequence at the start of b
// (CRLF is one), or 0.
func lineTerminatorLen(b []byte) int {
	switch {
	case len(b) == 0:
		return 0
	case b[0] == '\n':
		return 1
	case b[0] == '\r':
		if len(b) > 1 && b[1] == '\n' {
			return 2
		}
		return 1
	case isLineSeparator(b):
		return 3
	}
	return 0
}

// isLineSeparator reports whether b starts with U+2028 or U+2029 in UTF-8.
func isLineSeparator(b []byte) bool {
	return len(b) >= 3 && b[0] == 0xE2 && b[1] == 0x80 && (b[2] == 0xA8 || b[2] == 0xA9)
}

// position returns the line and column (from 1; columns in code points) of offset off.
func position(src []byte, off int) (line, col int) {
	line, start := 1, 0
	for i := 0; i < off && i < len(src); {
		if n := lineTerminatorLen(src[i:]); n > 0 {
			i += n
			line++
			start = i
			continue
		}
		i++
	}
	return line, utf8.RuneCount(src[start:min(off, len(src))]) + 1
}
