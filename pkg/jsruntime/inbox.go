package jsruntime

import "sync"

// resultInbox is where finished tool calls leave their results for the cell's loop. Any goroutine
// puts without waiting (a transport's reader must never wait for a loop busy in a turn) and
// without starting one; the loop takes everything that arrived in one go. ready holds a signal
// while results wait: put sends it when the inbox stops being empty, so a loop that took the
// results without receiving it (takeAll) may later wake to an empty inbox, never sleep past a
// result.
type resultInbox struct {
	mu    sync.Mutex
	items []toolResult
	ready chan struct{}
}

func newResultInbox() resultInbox { return resultInbox{ready: make(chan struct{}, 1)} }

// put leaves res for the loop.
func (b *resultInbox) put(res toolResult) {
	b.mu.Lock()
	b.items = append(b.items, res)
	first := len(b.items) == 1
	b.mu.Unlock()
	if first {
		select {
		case b.ready <- struct{}{}:
		default: // a signal is pending already
		}
	}
}

// takeAll appends every waiting result to dst, oldest first, and empties the inbox.
func (b *resultInbox) takeAll(dst []toolResult) []toolResult {
	b.mu.Lock()
	dst = append(dst, b.items...)
	clear(b.items)
	b.items = b.items[:0]
	b.mu.Unlock()
	return dst
}

// empty reports whether no result waits.
func (b *resultInbox) empty() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.items) == 0
}
