package grpcclient

import (
	"testing"
	"time"
)

// TestObservingAwaitsTheLastEnd: await returns at once with nothing in progress, and otherwise
// when the last observation ends (the grace here is far longer than any run of the test).
func TestObservingAwaitsTheLastEnd(t *testing.T) {
	var o observing
	o.await(time.Hour) // nothing in progress: returns at once
	o.begin()
	o.begin()
	returned := make(chan struct{})
	go func() { o.await(time.Hour); close(returned) }()
	o.end()
	select {
	case <-returned:
		t.Fatal("await returned with an observation still in progress")
	default:
	}
	o.end()
	<-returned
	o.begin()
	o.end()
	o.await(time.Hour) // idle again
}
