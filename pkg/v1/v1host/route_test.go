package v1host

import (
	"context"
	"testing"
)

// A terminate or wait that races a closing cell's route must not queue its answer where nobody
// drains it: before this, a response queued between the route's last check and its cell/closed
// waited for the connection to end (a racing terminate over WebSocket behind HAProxy never got
// its answer). finishRoute is that last check; these pin what it decides, without goroutines.

func routeTable() (*conn, cellKey, *cellRoute) {
	key := cellKey{session: "s", cell: "1"}
	r := newCellRoute()
	c := &conn{ctx: context.Background(), routes: map[cellKey]*cellRoute{key: r}}
	return c, key, r
}

func TestRouteDoesNotFinishWhileAnAnswerIsHeld(t *testing.T) {
	c, key, r := routeTable()
	release := c.hold(key)
	if c.finishRoute(r) {
		t.Fatal("finish with a hold outstanding: the held answer would follow cell/closed")
	}
	release()
	if !c.finishRoute(r) {
		t.Fatal("finish after the hold was released: want true")
	}
}

func TestRouteDoesNotFinishWithAQueuedAnswer(t *testing.T) {
	c, key, r := routeTable()
	if !c.enqueueIfRouted(key, routeMessage{kind: routeResponse, send: func() {}}) {
		t.Fatal("enqueueIfRouted on a live route: want true")
	}
	if c.finishRoute(r) {
		t.Fatal("finish with a queued answer: it would never be sent")
	}
	_ = c.take(r)
	c.doneSending(r)
	if !c.finishRoute(r) {
		t.Fatal("finish after the queue was drained: want true")
	}
}

func TestFinishedRouteTakesNoHoldAndNoAnswer(t *testing.T) {
	c, key, r := routeTable()
	if !c.finishRoute(r) {
		t.Fatal("finish of an idle route: want true")
	}
	c.hold(key)()
	if r.holds != 0 {
		t.Fatalf("hold on a finished route counted (%d): nobody waits for it", r.holds)
	}
	if c.enqueueIfRouted(key, routeMessage{kind: routeResponse, send: func() {}}) {
		t.Fatal("enqueueIfRouted on a finished route: want false, the caller answers at once")
	}
	if len(r.queue) != 0 {
		t.Fatalf("finished route queued %d messages", len(r.queue))
	}
	if c.claimIdleRoute(key) != nil {
		t.Fatal("claimIdleRoute on a finished route: want nil")
	}
}
