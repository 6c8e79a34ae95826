package jsruntime

import "strconv"

// callLog tells a pending frontier which tool calls to list: the calls started since the previous
// frontier that are still awaiting their result. It belongs to the loop goroutine.
type callLog struct {
	unlisted []int64            // started since the previous frontier, in call order
	inFlight map[int64]struct{} // started and not yet delivered into JavaScript
}

// started records a call JavaScript just made.
func (l *callLog) started(id int64) {
	if l.inFlight == nil {
		l.inFlight = map[int64]struct{}{}
	}
	l.inFlight[id] = struct{}{}
	l.unlisted = append(l.unlisted, id)
}

// delivered records that a call's result reached JavaScript.
func (l *callLog) delivered(id int64) { delete(l.inFlight, id) }

// list returns the RuntimeToolCallIDs of the unlisted calls still in flight and forgets the
// unlisted ones: a frontier lists each call at most once.
func (l *callLog) list() []string {
	ids := []string{}
	for _, id := range l.unlisted {
		if _, ok := l.inFlight[id]; ok {
			ids = append(ids, "tool-"+strconv.FormatInt(id, 10))
		}
	}
	l.unlisted = l.unlisted[:0]
	return ids
}
