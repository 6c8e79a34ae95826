package codemode

// TurnRunner is implemented by a Delegate whose done callbacks are called on a long-lived goroutine
// that holds no lock there and may run the cell's next turn before done returns: a transport's
// reader, whose stack has grown already (docs/adr/0075-a-round-trip-on-one-thread.md). The answer's
// turn and the call it starts then wake no other goroutine. A runtime asks on that goroutine, for
// an answer that settles its cell's one pending call; a goroutine started for the call alone (as
// FromBlocking's are) gains nothing, since its stack grows for every turn.
type TurnRunner interface {
	// RunTurnHere reports whether the goroutine calling done for call may run the turn now, and
	// gives relay, which the runtime calls once, on that goroutine, if the turn runs long: the
	// goroutine's other duties (reading its connection) must go on elsewhere from then.
	RunTurnHere(call NestedToolCall) (relay func(), ok bool)
}

// RunTurnHereOf is RunTurnHere of a Delegate that wraps inner (a telemetry decorator): inner's
// answer when inner runs turns, no otherwise.
func RunTurnHereOf(inner Delegate, call NestedToolCall) (relay func(), ok bool) {
	if tr, is := inner.(TurnRunner); is {
		return tr.RunTurnHere(call)
	}
	return nil, false
}
