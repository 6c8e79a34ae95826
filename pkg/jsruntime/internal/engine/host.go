package engine

import "fmt"

// Host serves the bridge calls of the cell an engine is running. The engine hands over each
// message as JavaScript sent it and returns the reply; what a message means is the host's
// business. Serve and Fault run on the goroutine that called into the engine.
type Host interface {
	// Serve answers one bridge message.
	Serve(msg string) Reply
	// Fault records a malformed bridge call; the cell fails with err.
	Fault(err error)
}

// Reply is the answer to a bridge call: undefined, a string, or an exception to throw.
type Reply struct {
	kind replyKind
	text string
}

type replyKind int

const (
	replyUndefined replyKind = iota
	replyString
	replySyntaxError
	replyTypeError
)

// Undefined is the reply of a call that returns nothing.
func Undefined() Reply { return Reply{} }

// String is a reply that returns s to JavaScript.
func String(s string) Reply { return Reply{kind: replyString, text: s} }

// SyntaxError is a reply that throws a SyntaxError with message msg.
func SyntaxError(msg string) Reply { return Reply{kind: replySyntaxError, text: msg} }

// TypeError is a reply that throws a TypeError with message msg.
func TypeError(msg string) Reply { return Reply{kind: replyTypeError, text: msg} }

// Text is the reply's string or exception message ("" for Undefined).
func (r Reply) Text() string { return r.text }

// IsUndefined reports whether the reply returns nothing.
func (r Reply) IsUndefined() bool { return r.kind == replyUndefined }

// ForgedMessageText starts the error text of a cell that sent a message the prelude would never
// send; JavaScript's bridge call throws a TypeError with exactly this message.
const ForgedMessageText = "exec runtime received a malformed message from the cell's JavaScript environment"

// ForgedError reports a forged message: one the prelude would never send, so the cell's code
// reached the bridge itself. Its text is ForgedMessageText and the reason.
type ForgedError struct{ Reason string }

func (e *ForgedError) Error() string { return ForgedMessageText + ": " + e.Reason }

// Forged returns a *ForgedError with the formatted reason.
func Forged(format string, args ...any) error {
	return &ForgedError{Reason: fmt.Sprintf(format, args...)}
}
