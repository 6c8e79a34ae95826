package jssource

import "github.com/tdewolff/parse/v2/js"

// frame checks the parameters and the body of a function constructor on their own, as the
// specification's CreateDynamicFunction does when it parses them separately: the delimiters
// that Function put around them must be the tokens that open and close them, and nothing in
// between may close a bracket it did not open. Otherwise text in the parameters or the body
// closed the function early and added code of its own after it.
type frame struct {
	// paramsOpen, paramsClose, bodyOpen and bodyClose are the offsets of the "(" and ")" around
	// the parameters and the "{" and "}" around the body in the assembled source.
	paramsOpen, paramsClose, bodyOpen, bodyClose int

	next int // index in delims of the next delimiter to meet
	base int // bracket depth outside the parameters or the body being read
}

// delims returns the delimiters' offsets in source order.
func (fr *frame) delims() [4]int {
	return [4]int{fr.paramsOpen, fr.paramsClose, fr.bodyOpen, fr.bodyClose}
}

// delimTokens are the tokens the delimiters must be.
var delimTokens = [4]js.TokenType{js.OpenParenToken, js.CloseParenToken, js.OpenBraceToken, js.CloseBraceToken}

// before checks a significant token before it is printed.
func (fr *frame) before(p *printer, tt js.TokenType, data []byte, pos int) error {
	if fr.next >= len(delimTokens) {
		return nil
	}
	at := fr.delims()[fr.next]
	switch {
	case pos > at:
		// The delimiter lies inside a comment, string or template that began before it.
		return p.syntaxError(pos, "Unexpected end of input")
	case pos == at && tt != delimTokens[fr.next]:
		return fr.early(p, data, pos)
	case pos == at && fr.next%2 == 0:
		fr.base = p.depth
	}
	return nil
}

// after checks a significant token after it was printed.
func (fr *frame) after(p *printer, _ js.TokenType, data []byte, pos int) error {
	if fr.next >= len(delimTokens) {
		return nil
	}
	if pos == fr.delims()[fr.next] {
		fr.next++
		return nil
	}
	if fr.next%2 == 1 && p.depth <= fr.base {
		return fr.early(p, data, pos)
	}
	return nil
}

// early reports a token that closes the parameters or the body before their delimiter.
func (fr *frame) early(p *printer, data []byte, pos int) error {
	if fr.next <= 1 {
		return p.syntaxError(pos, "Arg string terminates parameters early")
	}
	return p.syntaxError(pos, "Unexpected token '"+string(data)+"'")
}

// unclosed reports delimiters never met.
func (fr *frame) unclosed(p *printer) error {
	return p.syntaxError(len(p.src), "Unexpected end of input")
}
