package jsruntime

import (
	"regexp"
	"sort"
	"strings"
)

// unsupportedImportPrefix starts Codex's error for any import in a cell.
const unsupportedImportPrefix = "Unsupported import in exec: "

// rejectingImport replaces the `import` keyword of a dynamic import() call, so the call returns a
// promise rejected with Codex's message (a plain string, like every helper error).
const rejectingImport = `(async (s) => { throw "` + unsupportedImportPrefix + `" + s; })`

// unsupportedImportError is the error text of a cell whose source has a static import.
func unsupportedImportError(specifier string) string {
	return unsupportedImportPrefix + specifier
}

// prepareSource scans a cell's module source for imports, as far as a lexer can see them. A static
// import or re-export returns its specifier and ok=false: the cell fails before it runs. Every
// dynamic import() call is rewritten to a promise rejected with Codex's message.
//
// A lexer must guess whether a slash after "}" (block or object literal) or after the word "of"
// divides or starts a regular expression, and a wrong guess could hide code inside what it takes
// for a string, template or regex. So after the first such guess the scan fails closed: every
// `import` keyword in the raw text that the lexer did not see as code is treated as code too.
func prepareSource(src string) (out string, staticSpecifier string, ok bool) {
	l := &importLexer{src: src, firstGuess: -1, seen: map[int]bool{}}
	if spec, found := l.scan(); found {
		return "", spec, false
	}
	if l.firstGuess >= 0 {
		if spec, found := l.failClosed(); found {
			return "", spec, false
		}
	}
	return l.rewrite(), "", true
}

// rawImportKeyword matches every `import` word of raw text that is not a property access.
var rawImportKeyword = regexp.MustCompile(`(?:^|[^\w$.])(import)(?:[^\w$]|$)`)

// failClosed handles the import keywords after the lexer's first guess that it did not see as
// code: as dynamic imports when "(" follows, else as static imports.
func (l *importLexer) failClosed() (string, bool) {
	for _, m := range rawImportKeyword.FindAllStringSubmatchIndex(l.src, -1) {
		pos := m[2]
		if pos < l.firstGuess || l.seen[pos] {
			continue
		}
		l.i = pos + len("import")
		switch l.nextSignificant() {
		case '(':
			l.dynamic = append(l.dynamic, pos)
		case '.', ':':
		default:
			return l.nextStringLiteral(), true
		}
	}
	sort.Ints(l.dynamic)
	return "", false
}

// generatedImport matches the keyword of every dynamic import call in raw text: `import`, not part
// of a longer name or a property access, then whitespace or comments, then "(". Keywords cannot
// be written with escapes, so no real import() call escapes it.
var generatedImport = regexp.MustCompile(`(^|[^\w$.])import(?:\s|/\*[\s\S]*?\*/|//[^\n]*\n)*\(`)

// rewriteGeneratedImports rewrites the dynamic import() calls of source built at run time (eval,
// the Function constructors). It works on the raw text, not on a lexer's view of it, so tricks
// with regex/division ambiguity cannot hide a call; the price is that "import(" inside a string
// of generated code is rewritten too.
func rewriteGeneratedImports(src string) string {
	if !strings.Contains(src, "import") {
		return src
	}
	return generatedImport.ReplaceAllStringFunc(src, func(m string) string {
		i := strings.Index(m, "import")
		return m[:i] + rejectingImport + m[i+len("import"):]
	})
}

// rewrite replaces the keyword of each dynamic import call found by scan.
func (l *importLexer) rewrite() string {
	src := l.src
	if len(l.dynamic) == 0 {
		return src
	}
	var b strings.Builder
	b.Grow(len(src) + len(l.dynamic)*len(rejectingImport))
	last := 0
	for _, pos := range l.dynamic {
		b.WriteString(src[last:pos])
		b.WriteString(rejectingImport)
		last = pos + len("import")
	}
	b.WriteString(src[last:])
	return b.String()
}

type tokenKind int

const (
	tokNone tokenKind = iota
	tokPunct
	tokCloser // ) ]
	tokDot
	tokWord
	tokKeyword // a keyword after which an expression (so a regex) may follow
	tokValue   // number, string, template, regex
)

// regexKeywords are the words after which a slash starts a regular expression.
var regexKeywords = map[string]bool{
	"return": true, "typeof": true, "instanceof": true, "in": true, "of": true, "new": true,
	"delete": true, "void": true, "throw": true, "case": true, "do": true, "else": true,
	"yield": true, "await": true,
}

// conditionWords are the keywords whose parenthesised condition is followed by a statement.
var conditionWords = map[string]bool{"if": true, "while": true, "for": true, "with": true}

// importLexer is a small JavaScript lexer: it knows comments, strings, templates, regular
// expressions, identifiers and punctuation, which is enough to find import keywords in code.
type importLexer struct {
	src        string
	i          int
	prev       tokenKind
	depth      int
	templates  []int  // brace depth at each open template substitution
	parens     []bool // per open parenthesis: does it hold an if/while/for/with condition?
	prevWord   string
	afterBrace bool // the previous token was "}"
	// firstGuess is the offset of the first slash whose meaning the lexer had to guess, or -1.
	firstGuess int
	// seen holds the offsets of the import keywords the lexer saw as code.
	seen    map[int]bool
	dynamic []int // offsets of `import` keywords of dynamic import calls
}

func (l *importLexer) scan() (string, bool) {
	for l.i < len(l.src) {
		if l.skipOneTrivia() {
			continue
		}
		c := l.src[l.i]
		wasBrace := l.afterBrace
		l.afterBrace = false
		switch {
		case c == '\'' || c == '"':
			l.skipString(c)
			l.prev = tokValue
		case c == '`':
			l.i++
			l.scanTemplate()
		case c == '/':
			if (wasBrace || (l.prev == tokKeyword && l.prevWord == "of")) && l.firstGuess < 0 {
				l.firstGuess = l.i
			}
			if l.prev == tokValue || l.prev == tokWord || l.prev == tokCloser {
				l.i++
				l.prev = tokPunct
			} else {
				l.scanRegex()
			}
		case c == '{':
			l.depth++
			l.i++
			l.prev = tokPunct
		case c == '}':
			l.i++
			l.depth--
			if n := len(l.templates); n > 0 && l.templates[n-1] == l.depth {
				l.templates = l.templates[:n-1]
				l.scanTemplate()
				continue
			}
			l.afterBrace = true
			// After a block a slash would start a regex, after an object literal it divides.
			// Guessing division can only make the scan see more code, never hide an import.
			l.prev = tokCloser
		case c == '(':
			l.parens = append(l.parens, l.prev == tokWord && conditionWords[l.prevWord])
			l.i++
			l.prev = tokPunct
		case c == ')':
			l.i++
			l.prev = tokCloser
			if n := len(l.parens); n > 0 {
				if l.parens[n-1] {
					l.prev = tokPunct // a statement follows a condition: a slash starts a regex
				}
				l.parens = l.parens[:n-1]
			}
		case c == ']':
			l.i++
			l.prev = tokCloser
		case c == '.' && !isDigit(l.peek(1)):
			l.i++
			l.prev = tokDot
		case isDigit(c) || c == '.':
			l.skipNumber()
			l.prev = tokValue
		case isIdentStart(c):
			if spec, found := l.word(); found {
				return spec, true
			}
		case (c == '+' || c == '-') && l.peek(1) == c:
			// x++ / y divides; a regex cannot follow ++ or --.
			l.i += 2
			l.prev = tokCloser
		default:
			l.i++
			l.prev = tokPunct
		}
	}
	return "", false
}

func (l *importLexer) peek(off int) byte {
	if l.i+off < len(l.src) {
		return l.src[l.i+off]
	}
	return 0
}

func (l *importLexer) skipLineComment() {
	for l.i < len(l.src) && l.src[l.i] != '\n' {
		l.i++
	}
}

func (l *importLexer) skipBlockComment() {
	end := strings.Index(l.src[l.i+2:], "*/")
	if end < 0 {
		l.i = len(l.src)
		return
	}
	l.i += 2 + end + 2
}

// skipString skips a quoted string and returns its raw contents.
func (l *importLexer) skipString(quote byte) string {
	start := l.i + 1
	l.i++
	for l.i < len(l.src) {
		switch l.src[l.i] {
		case '\\':
			l.i += 2
			continue
		case quote:
			l.i++
			return l.src[start : l.i-1]
		case '\n':
			return l.src[start:l.i]
		}
		l.i++
	}
	return l.src[start:]
}

// scanTemplate skips template text up to its end or to a substitution, which it opens.
func (l *importLexer) scanTemplate() {
	for l.i < len(l.src) {
		switch l.src[l.i] {
		case '\\':
			l.i += 2
			continue
		case '`':
			l.i++
			l.prev = tokValue
			return
		case '$':
			if l.peek(1) == '{' {
				l.templates = append(l.templates, l.depth)
				l.depth++
				l.i += 2
				l.prev = tokPunct
				return
			}
		}
		l.i++
	}
}

// scanRegex skips a regular expression literal. A literal cannot span lines: on a newline the
// slash is taken as a division instead, so a wrong guess cannot swallow code.
func (l *importLexer) scanRegex() {
	j := l.i + 1
	inClass := false
	for j < len(l.src) {
		switch l.src[j] {
		case '\\':
			j += 2
			continue
		case '[':
			inClass = true
		case ']':
			inClass = false
		case '/':
			if !inClass {
				j++
				for j < len(l.src) && isIdentPart(l.src[j]) {
					j++
				}
				l.i = j
				l.prev = tokValue
				return
			}
		case '\n', '\r':
			l.i++
			l.prev = tokPunct
			return
		}
		j++
	}
	l.i++
	l.prev = tokPunct
}

func (l *importLexer) skipNumber() {
	for l.i < len(l.src) && (isIdentPart(l.src[l.i]) || l.src[l.i] == '.') {
		l.i++
	}
}

// word lexes an identifier and reports the specifier of a static import or re-export.
func (l *importLexer) word() (string, bool) {
	start := l.i
	for l.i < len(l.src) && isIdentPart(l.src[l.i]) {
		l.i++
	}
	w := l.src[start:l.i]
	afterDot := l.prev == tokDot
	l.prev = tokWord
	l.prevWord = w
	if afterDot {
		l.prevWord = "" // obj.if(...) is a call, obj.return / 2 a division
	} else if regexKeywords[w] {
		l.prev = tokKeyword
	}
	if afterDot {
		return "", false
	}
	switch w {
	case "import":
		l.seen[start] = true
		switch l.nextSignificant() {
		case '(':
			l.dynamic = append(l.dynamic, start)
		case '.', ':':
			// import.meta, or a property key named import.
		default:
			return l.nextStringLiteral(), true
		}
	case "export":
		switch l.nextSignificant() {
		case '*':
			return l.nextStringLiteral(), true
		case '{':
			if spec, ok := l.reexportSpecifier(); ok {
				return spec, true
			}
		}
	}
	return "", false
}

// nextSignificant returns the next byte that is not whitespace or inside a comment, without
// consuming anything.
func (l *importLexer) nextSignificant() byte {
	save := l.i
	defer func() { l.i = save }()
	l.skipTrivia()
	return l.peek(0)
}

func (l *importLexer) skipTrivia() {
	for l.i < len(l.src) && l.skipOneTrivia() {
	}
}

// skipOneTrivia skips one whitespace character or comment and reports whether it did. Trivia
// changes no lexer state: a slash after `}` and a comment is still a slash after `}`.
func (l *importLexer) skipOneTrivia() bool {
	switch c := l.src[l.i]; {
	case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
		l.i++
	case c == '/' && l.peek(1) == '/':
		l.skipLineComment()
	case c == '/' && l.peek(1) == '*':
		l.skipBlockComment()
	default:
		return false
	}
	return true
}

// nextStringLiteral returns the contents of the next string literal in the source.
func (l *importLexer) nextStringLiteral() string {
	for l.i < len(l.src) {
		l.skipTrivia()
		if l.i >= len(l.src) {
			break
		}
		if c := l.src[l.i]; c == '\'' || c == '"' {
			return l.skipString(c)
		}
		l.i++
	}
	return "<unknown>"
}

// reexportSpecifier handles `export { ... } from "x"`: it reports x, or ok=false for a plain
// export list.
func (l *importLexer) reexportSpecifier() (string, bool) {
	save := l.i
	l.skipTrivia()
	end := strings.IndexByte(l.src[l.i:], '}')
	if end < 0 {
		l.i = save
		return "", false
	}
	l.i += end + 1
	l.skipTrivia()
	if strings.HasPrefix(l.src[l.i:], "from") && (l.i+4 >= len(l.src) || !isIdentPart(l.src[l.i+4])) {
		l.i += 4
		return l.nextStringLiteral(), true
	}
	l.i = save
	return "", false
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isIdentStart(c byte) bool {
	return c == '_' || c == '$' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80 || c == '\\'
}

func isIdentPart(c byte) bool { return isIdentStart(c) || isDigit(c) }
