package broadcast_test

import (
	"fmt"
	"sync"

	"github.com/codemodehq/codemode/pkg/internal/broadcast"
)

// queue is a state guarded by a mutex whose readers wait for it to change.
type queue struct {
	mu      sync.Mutex
	items   []string
	changed broadcast.Signal
}

func (q *queue) push(item string) {
	q.mu.Lock()
	q.items = append(q.items, item)
	q.mu.Unlock()
	q.changed.Broadcast()
}

// waitLen waits until the queue holds n items, or until cancel is closed.
func (q *queue) waitLen(n int, cancel <-chan struct{}) bool {
	for {
		q.mu.Lock()
		changed := q.changed.Changed() // before the check, so no change is missed
		ok := len(q.items) >= n
		q.mu.Unlock()
		if ok {
			return true
		}
		select {
		case <-changed:
		case <-cancel:
			return false
		}
	}
}

func Example() {
	var q queue
	done := make(chan bool)
	go func() { done <- q.waitLen(2, nil) }()
	q.push("a")
	q.push("b")
	fmt.Println(<-done)
	// Output: true
}
