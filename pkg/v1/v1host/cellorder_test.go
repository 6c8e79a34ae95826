package v1host

import (
	"reflect"
	"testing"

	"github.com/codemodehq/codemode/gen/go/wirev1"
	"github.com/codemodehq/codemode/pkg/codemode"
)

// The rules of a cell's order (cellOrder, routeTable), without goroutines or a connection. The
// wire order they make is asserted end to end in order_test.go.

// labels names the messages of a batch: "call N", "cancel N", "initial CELL" or "response".
func labels(batch []routeMessage) []string {
	var out []string
	for _, m := range batch {
		switch m.kind {
		case routeCall:
			out = append(out, "call "+string(rune('0'+m.call.id)))
		case routeCancel:
			out = append(out, "cancel "+string(rune('0'+m.cancel)))
		case routeInitial:
			out = append(out, "initial "+string(m.initial.Response.CellID))
		case routeResponse:
			out = append(out, "response")
		}
	}
	return out
}

func callMessage(id int) routeMessage {
	return routeMessage{kind: routeCall, call: &delegateCall{id: wirev1.DelegateRequestId(id)}}
}

func initialMessage(cell string) routeMessage {
	return routeMessage{kind: routeInitial, initial: codemode.InitialResult{Response: codemode.RuntimeResponse{CellID: codemode.CellID(cell)}}}
}

func wantStep(t *testing.T, o *cellOrder, wantFinish bool, want ...string) {
	t.Helper()
	step := o.next()
	if got := labels(step.batch); step.closeNow != wantFinish || step.end || !reflect.DeepEqual(got, want) {
		t.Fatalf("next = %q, close %v, end %v; want %q, close %v", got, step.closeNow, step.end, want, wantFinish)
	}
}

func TestNothingIsTakenBeforeTheCellStarted(t *testing.T) {
	var o cellOrder
	o.push(callMessage(1))
	o.offerInitial(initialMessage("a"))
	o.close()
	wantStep(t, &o, false)
	o.start()
	wantStep(t, &o, false, "call 1", "initial a")
	wantStep(t, &o, true)
}

func TestTheInitialResponseTakesThePlaceWhereItFirstArrived(t *testing.T) {
	var o cellOrder
	o.start()
	o.push(callMessage(1))
	o.offerInitial(initialMessage("observed"))
	o.push(callMessage(2))
	o.offerInitial(initialMessage("future")) // the execute's future returns the same response
	wantStep(t, &o, false, "call 1", "initial observed", "call 2")
	o.offerInitial(initialMessage("late"))
	wantStep(t, &o, false)
}

func TestCellClosedWaitsForTheInitialResponse(t *testing.T) {
	var o cellOrder
	o.start()
	o.close()
	wantStep(t, &o, false)
	o.offerInitial(initialMessage("a"))
	wantStep(t, &o, false, "initial a")
	wantStep(t, &o, true)
}

func TestCellClosedWaitsForTheAnswersBeingMade(t *testing.T) {
	var o cellOrder
	o.start()
	o.offerInitial(initialMessage("a"))
	if !o.hold() {
		t.Fatal("hold on a live route refused")
	}
	o.close()
	wantStep(t, &o, false, "initial a")
	wantStep(t, &o, false) // the held answer would follow cell/closed
	o.push(routeMessage{kind: routeResponse})
	o.release()
	wantStep(t, &o, false, "response")
	wantStep(t, &o, true)
}

func TestWhatIsQueuedAfterTheClosureStillPrecedesCellClosed(t *testing.T) {
	var o cellOrder
	o.start()
	o.offerInitial(initialMessage("a"))
	o.close()
	o.push(routeMessage{kind: routeCancel, cancel: 3})
	wantStep(t, &o, false, "initial a", "cancel 3")
	wantStep(t, &o, true)
}

func TestAFinishedRouteTakesNoHoldAndNoMessage(t *testing.T) {
	var o cellOrder
	o.start()
	o.offerInitial(initialMessage("a"))
	o.close()
	wantStep(t, &o, false, "initial a")
	wantStep(t, &o, true)
	if o.hold() {
		t.Fatal("hold on a finished route counted: nobody waits for it")
	}
	if o.push(routeMessage{kind: routeResponse}) {
		t.Fatal("a finished route queued an answer: nothing would send it")
	}
	if len(o.queue) != 0 || o.holds != 0 {
		t.Fatalf("finished route holds %d messages, %d holds", len(o.queue), o.holds)
	}
}

func TestOnlyACellsOwnMessagesCreateItsRoute(t *testing.T) {
	tab := newRouteTable(make(chan struct{}))
	key := cellKey{session: "s", cell: "1"}
	if tab.pushIfRouted(key, routeMessage{kind: routeResponse}) {
		t.Fatal("an answer was queued for a cell without a route")
	}
	tab.hold(key)() // a cell without a route needs no hold
	tab.offerInitial(key, initialMessage("1"), false)
	if len(tab.routes) != 0 {
		t.Fatal("the execute's future created a route: a route gone by then has closed")
	}
	tab.offerInitial(key, initialMessage("1"), true)
	if !tab.push(key, callMessage(1)) {
		t.Fatal("a call to a cell not started yet was not queued")
	}
	r := tab.start(key, execution{id: 7})
	if step := tab.next(r); !reflect.DeepEqual(labels(step.batch), []string{"initial 1", "call 1"}) {
		t.Fatalf("next = %q", labels(step.batch))
	}
}

// routeWritingItsFirstCall checks that take, a way to write directly, is refused before the cell
// started and past a queued call, and returns the order with that call taken by the sender.
func routeWritingItsFirstCall(t *testing.T, take func(*cellOrder) bool) *cellOrder {
	t.Helper()
	o := &cellOrder{}
	if take(o) {
		t.Fatal("direct write before execution/started")
	}
	o.start()
	o.push(callMessage(1))
	if take(o) {
		t.Fatal("direct write past a queued message")
	}
	wantStep(t, o, false, "call 1") // the sender writes call 1 ...
	return o
}

// A direct write (takeDirect) takes a message's place only where the sender would have written it
// next: after the cell started, with nothing queued and no batch being written; the sender takes
// nothing meanwhile, and a message that could not go out after all goes first.
func TestADirectWriteTakesOnlyTheNextPlace(t *testing.T) {
	o := routeWritingItsFirstCall(t, (*cellOrder).takeDirect)
	if o.takeDirect() {
		t.Fatal("direct write while the sender writes its batch")
	}
	wantStep(t, o, false) // ... and is back: nothing is being written
	if !o.takeDirect() {
		t.Fatal("no direct write on an idle route")
	}
	if o.takeDirect() {
		t.Fatal("two direct writes at once")
	}
	o.push(callMessage(3)) // pushed while call 2 is written directly
	wantStep(t, o, false)  // the sender waits for the direct write
	unsent := callMessage(2)
	if !o.endDirect(&unsent) {
		t.Fatal("the sender was not woken for the messages left")
	}
	wantStep(t, o, false, "call 2", "call 3")
}

// Ending a direct write wakes the sender only when it has work: messages queued meanwhile, or the
// cell's closure due.
func TestEndingADirectWriteWakesTheSenderForItsWork(t *testing.T) {
	var o cellOrder
	o.start()
	o.takeDirect()
	if o.endDirect(nil) {
		t.Fatal("woken with nothing to do")
	}
	o.takeDirect()
	o.offerInitial(initialMessage("a"))
	o.close()
	if !o.endDirect(nil) {
		t.Fatal("not woken for the initial response and the closure")
	}
	wantStep(t, &o, false, "initial a")
	wantStep(t, &o, true)
}

// The initial response may be written where the runtime produced it (takeInitialDirect) only
// where the sender would have written it next, and then counts as queued: the same response
// arriving again from the execute's future is dropped.
func TestTheInitialResponseIsWrittenDirectlyOnlyInItsPlace(t *testing.T) {
	o := routeWritingItsFirstCall(t, (*cellOrder).takeInitialDirect)
	wantStep(t, o, false)
	if !o.takeInitialDirect() {
		t.Fatal("no direct initial response on an idle route")
	}
	o.endDirect(nil)
	o.offerInitial(initialMessage("future"))
	if o.takeInitialDirect() {
		t.Fatal("the initial response written twice")
	}
	wantStep(t, o, false)
	o.close()
	wantStep(t, o, true)
}

// cell/closed may be written by the cell's closer (takeClose) only when it is all that is left:
// the initial response out, nothing queued or being written, no answer held. The route is
// finished from then on; the sender ends, or writes cell/closed when the closer could not.
func TestCellClosedIsWrittenByItsCloserOnlyWhenAllElseWentOut(t *testing.T) {
	for _, written := range []bool{true, false} {
		var o cellOrder
		o.start()
		o.close()
		if o.takeClose() {
			t.Fatal("cell/closed before the initial response")
		}
		o.offerInitial(initialMessage("a"))
		if o.takeClose() {
			t.Fatal("cell/closed past the queued initial response")
		}
		wantStep(t, &o, false, "initial a")
		if !o.hold() {
			t.Fatal("hold refused on a live route")
		}
		if o.takeClose() {
			t.Fatal("cell/closed while the sender writes the initial response")
		}
		wantStep(t, &o, false) // the sender is back, and waits for the held answer
		if o.takeClose() {
			t.Fatal("cell/closed before a held answer")
		}
		o.release()
		if !o.takeClose() {
			t.Fatal("the closer may not write cell/closed with nothing left")
		}
		wantStep(t, &o, false) // the sender waits for the closer's write
		if o.hold() || o.push(routeMessage{kind: routeResponse}) {
			t.Fatal("a route whose closure was decided took an answer")
		}
		o.endClose(written)
		if step := o.next(); step.end != written || step.closeNow == written || len(step.batch) > 0 {
			t.Fatalf("after the closer's write (written %v): next = %+v", written, step)
		}
	}
}
