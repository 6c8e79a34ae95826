package v1host

import "testing"

// A terminate or wait that races a closing cell's route must not queue its answer where nobody
// drains it: before routeTable.finish, a response queued between the route's last check and its
// cell/closed waited for the connection to end (a racing terminate over WebSocket behind HAProxy
// never got its answer). These pin the table's rules, without goroutines or a connection.

func newTestTable() (*routeTable, cellKey, *cellRoute) {
	key := cellKey{session: "s", cell: "1"}
	t := newRouteTable(make(chan struct{}))
	t.mu.Lock()
	r := t.routeLocked(key)
	t.mu.Unlock()
	return t, key, r
}

func TestRouteDoesNotFinishWhileAnAnswerIsHeld(t *testing.T) {
	tab, key, r := newTestTable()
	release := tab.hold(key)
	if tab.finish(r) {
		t.Fatal("finish with a hold outstanding: the held answer would follow cell/closed")
	}
	release()
	if !tab.finish(r) {
		t.Fatal("finish after the hold was released: want true")
	}
}

func TestRouteDoesNotFinishWithAQueuedAnswer(t *testing.T) {
	tab, key, r := newTestTable()
	if !tab.enqueueIfRouted(key, routeMessage{kind: routeResponse, send: func() {}}) {
		t.Fatal("enqueueIfRouted on a live route: want true")
	}
	if tab.finish(r) {
		t.Fatal("finish with a queued answer: it would never be sent")
	}
	if q := tab.take(r); len(q) != 1 {
		t.Fatalf("take: %d messages, want the 1 queued", len(q))
	}
	tab.doneSending(r)
	if !tab.finish(r) {
		t.Fatal("finish after the queue was drained: want true")
	}
}

func TestFinishedRouteTakesNoHoldAndNoAnswer(t *testing.T) {
	tab, key, r := newTestTable()
	if !tab.finish(r) {
		t.Fatal("finish of an idle route: want true")
	}
	tab.hold(key)()
	if r.holds != 0 {
		t.Fatalf("hold on a finished route counted (%d): nobody waits for it", r.holds)
	}
	if tab.enqueueIfRouted(key, routeMessage{kind: routeResponse, send: func() {}}) {
		t.Fatal("enqueueIfRouted on a finished route: want false, the caller answers at once")
	}
	if len(r.queue) != 0 {
		t.Fatalf("finished route queued %d messages", len(r.queue))
	}
	if tab.claimIdle(key) != nil {
		t.Fatal("claimIdle on a finished route: want nil")
	}
}

func TestBeforeItStartsARouteQueuesAtMostMaxQueuedCellMessagesCalls(t *testing.T) {
	tab, key, r := newTestTable()
	for i := range MaxQueuedCellMessages {
		if !tab.tryEnqueue(key, routeMessage{kind: routeCall}) {
			t.Fatalf("call %d refused below the limit", i+1)
		}
	}
	if tab.tryEnqueue(key, routeMessage{kind: routeCall}) {
		t.Fatal("a call past MaxQueuedCellMessages was queued on an unstarted route")
	}
	tab.start(key, 1, r.receivedAt, nil)
	if !tab.tryEnqueue(key, routeMessage{kind: routeCall}) {
		t.Fatal("a started route refused a call: it drains its queue itself")
	}
}

func TestAnEndedConnectionQueuesNothing(t *testing.T) {
	done := make(chan struct{})
	tab := newRouteTable(done)
	key := cellKey{session: "s", cell: "1"}
	close(done)
	if tab.tryEnqueue(key, routeMessage{kind: routeCall}) || tab.enqueueIfRouted(key, routeMessage{kind: routeResponse}) {
		t.Fatal("a route of an ended connection queued a message")
	}
}
