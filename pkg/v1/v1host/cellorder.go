package v1host

// cellOrder is the order of what the host sends about one cell (docs/protocol/v1.md#execute), as
// plain data: one queue, drained by the cell's one sender (cells.go), or written directly by whoever
// takes the sender's place while nothing waits (takeDirect, docs/adr/0075-a-round-trip-on-one-thread.md). execution/started goes
// first (nothing is taken before start), then the cell's delegate requests, the cancellations of
// those it abandoned, its initial response and the responses of its waits, in the order they were
// pushed (the order the runtime produced them, so the order the script caused them, which a client
// relies on), and cell/closed last: once the cell closed, its initial response went out,
// the queue is empty and no wait or terminate answer is still being made (hold). The initial
// response and cell/closed too may be written by the goroutine that produced them when nothing
// waits (takeInitialDirect, takeClose). It does no I/O,
// starts no goroutine and has no lock of its own (routeTable's guards it), so its rules are
// unit-tested on their own (cellorder_test.go). See docs/adr/0067-one-queue-per-cell.md.
type cellOrder struct {
	queue []routeMessage
	// started is set once execution/started was written: only then may the sender take.
	started bool
	// initialQueued is set when the initial response took its place in the queue: the runtime
	// hands it over where it produced it (codemode.ExecuteRequest.Observe) and the execute's
	// future returns it too; the first to arrive is queued, the same response arriving again is
	// dropped (offerInitial).
	initialQueued bool
	// closed is set when the runtime reported that the cell closed (Delegate.CellClosed).
	closed bool
	// holds counts the wait and terminate answers being made: cell/closed waits for them.
	holds int
	// finished is set once the sender decided to send cell/closed: from then on nothing is
	// queued and nothing held, since nothing would drain it; it goes out at once instead.
	finished bool
	// taken is set while the sender writes a batch it took (until its next step); direct while a
	// message is written directly (takeDirect .. endDirect, takeClose .. endClose), when the
	// sender waits.
	taken, direct bool
	// closedWritten is set when the cell's closer wrote cell/closed itself (takeClose): the
	// sender only ends.
	closedWritten bool
}

// senderStep is the sender's next step (next): write batch; or write cell/closed and end
// (closeNow); or end (cell/closed went out, written by the cell's closer); or, none of these,
// wait for a change.
type senderStep struct {
	batch         []routeMessage
	closeNow, end bool
}

// takeDirect lets the caller write one message itself, now, instead of queueing it for the sender:
// only when nothing of the cell waits or is being written, so it keeps its place in the order
// (docs/adr/0075-a-round-trip-on-one-thread.md). The sender takes nothing until endDirect.
func (o *cellOrder) takeDirect() bool {
	if !o.started || o.finished || o.taken || o.direct || len(o.queue) > 0 {
		return false
	}
	o.direct = true
	return true
}

// takeInitialDirect is takeDirect for the initial response, which then counts as queued: the
// goroutine that produced it writes it (docs/adr/0078-a-cells-end-on-its-own-goroutine.md).
func (o *cellOrder) takeInitialDirect() bool {
	if o.initialQueued || !o.takeDirect() {
		return false
	}
	o.initialQueued = true
	return true
}

// takeClose decides the cell's closure for its closer, who writes cell/closed itself, now: when
// that is all that is left (the cell closed, its initial response went out, no answer holds it)
// and nobody writes. The route is finished from then on, as when the sender decides it (next).
func (o *cellOrder) takeClose() bool {
	if !o.closed || !o.initialQueued || o.holds > 0 || !o.takeDirect() {
		return false
	}
	o.finished = true
	return true
}

// endClose ends takeClose's write: when cell/closed could not be written after all, the sender
// writes it; either way the sender has a step to take.
func (o *cellOrder) endClose(written bool) {
	o.direct = false
	o.closedWritten = written
}

// endDirect ends a direct write; unsent, when not nil, is the message that could not be written
// after all, which goes first. It reports whether the sender has work now.
func (o *cellOrder) endDirect(unsent *routeMessage) (wake bool) {
	o.direct = false
	if unsent != nil {
		o.queue = append([]routeMessage{*unsent}, o.queue...)
	}
	return len(o.queue) > 0 || (o.closed && o.initialQueued && o.holds == 0)
}

// push queues m behind everything pushed before. It reports false when the cell's closure was
// decided already: the caller then sends m itself.
func (o *cellOrder) push(m routeMessage) bool {
	if o.finished {
		return false
	}
	o.queue = append(o.queue, m)
	return true
}

// offerInitial queues the initial response unless it is queued already (the runtime handed it
// over in its order of events before the execute's future returned it).
func (o *cellOrder) offerInitial(m routeMessage) {
	if o.initialQueued {
		return
	}
	o.initialQueued = true
	o.queue = append(o.queue, m)
}

// start lets the sender take: execution/started was written.
func (o *cellOrder) start() { o.started = true }

// close records that the cell closed: cell/closed is due once the rest is out.
func (o *cellOrder) close() { o.closed = true }

// hold keeps cell/closed back until release; false when the closure was decided already (the
// answer then has nothing to precede).
func (o *cellOrder) hold() bool {
	if o.finished {
		return false
	}
	o.holds++
	return true
}

// release ends a hold.
func (o *cellOrder) release() { o.holds-- }

// next is the sender's step (senderStep): the messages to send now, in order, or cell/closed
// when that is all that is left (the route is finished from then on). Messages the sender took
// count as sent by its next step, which the same sender takes only after sending them.
func (o *cellOrder) next() senderStep {
	o.taken = false
	switch {
	case !o.started || o.direct:
		return senderStep{}
	case o.closedWritten:
		return senderStep{end: true}
	case len(o.queue) > 0:
		batch := o.queue
		o.queue = nil
		o.taken = true
		return senderStep{batch: batch}
	case o.finished || o.closed && o.initialQueued && o.holds == 0:
		o.finished = true
		return senderStep{closeNow: true}
	}
	return senderStep{}
}
