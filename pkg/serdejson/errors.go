package serdejson

import "strconv"

// The Display texts of serde_json's syntax error codes (serde_json::error::ErrorCode).
const (
	ErrEOFWhileParsingList      = "EOF while parsing a list"
	ErrEOFWhileParsingObject    = "EOF while parsing an object"
	ErrEOFWhileParsingString    = "EOF while parsing a string"
	ErrEOFWhileParsingValue     = "EOF while parsing a value"
	ErrExpectedColon            = "expected `:`"
	ErrExpectedListCommaOrEnd   = "expected `,` or `]`"
	ErrExpectedObjectCommaOrEnd = "expected `,` or `}`"
	ErrExpectedSomeIdent        = "expected ident"
	ErrExpectedSomeValue        = "expected value"
	ErrInvalidEscape            = "invalid escape"
	ErrInvalidNumber            = "invalid number"
	ErrNumberOutOfRange         = "number out of range"
	ErrControlCharInString      = "control character (\\u0000-\\u001F) found while parsing a string"
	ErrKeyMustBeAString         = "key must be a string"
	ErrLoneLeadingSurrogate     = "lone leading surrogate in hex escape"
	ErrTrailingComma            = "trailing comma"
	ErrTrailingCharacters       = "trailing characters"
	ErrUnexpectedEndOfHexEscape = "unexpected end of hex escape"
	ErrRecursionLimitExceeded   = "recursion limit exceeded"
	// ErrInvalidUnicodeCodePoint is what serde_json::from_slice reports for a string that is not
	// UTF-8 (from_str cannot receive one; a Go caller can).
	ErrInvalidUnicodeCodePoint = "invalid unicode code point"
)

// SyntaxError is a serde_json error with a position. Its text is serde_json's Display:
// "{Msg} at line {Line} column {Column}", where Line counts from 1 and Column is the number of
// bytes between the start of the line and the reported byte (0 before the first byte).
type SyntaxError struct {
	Msg    string
	Line   int
	Column int
}

// Error returns serde_json's rendering of the error.
func (e *SyntaxError) Error() string {
	return e.Msg + " at line " + strconv.Itoa(e.Line) + " column " + strconv.Itoa(e.Column)
}

// positionOf converts a byte index of data to serde_json's line and column: the column of an
// index is the number of bytes since the last newline before it.
func positionOf(data []byte, i int) (line, column int) {
	line = 1
	start := 0
	for j := 0; j < i; j++ {
		if data[j] == '\n' {
			line++
			start = j + 1
		}
	}
	return line, i - start
}
