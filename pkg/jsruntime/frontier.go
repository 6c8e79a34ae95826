package jsruntime

import (
	"strconv"
	"sync"
)

// callLog tells a pending frontier which tool calls to list: the calls started since the previous
// frontier that are still awaiting their result. The event loop records calls; the session lists
// them when it hands a frontier to an observer, possibly while the loop is paused, hence the lock.
type callLog struct {
	mu       sync.Mutex
	unlisted []int64            // started since the previous frontier, in call order
	inFlight map[int64]struct{} // started and not yet delivered into JavaScript
}

// started records a call JavaScript just made.
func (l *callLog) started(id int64) {
	l.mu.Lock()
	if l.inFlight == nil {
		l.inFlight = map[int64]struct{}{}
	}
	l.inFlight[id] = struct{}{}
	l.unlisted = append(l.unlisted, id)
	l.mu.Unlock()
}

// delivered records that the results of calls reached JavaScript.
func (l *callLog) delivered(results []toolResult) {
	l.mu.Lock()
	for _, r := range results {
		delete(l.inFlight, r.id)
	}
	l.mu.Unlock()
}

// list returns the RuntimeToolCallIDs of the unlisted calls still in flight and forgets the
// unlisted ones: a frontier lists each call at most once.
func (l *callLog) list() []string {
	l.mu.Lock()
	ids := []string{}
	for _, id := range l.unlisted {
		if _, ok := l.inFlight[id]; ok {
			ids = append(ids, "tool-"+strconv.FormatInt(id, 10))
		}
	}
	l.unlisted = l.unlisted[:0]
	l.mu.Unlock()
	return ids
}
