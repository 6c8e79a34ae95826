package jsruntime

import (
	"container/heap"
	"strconv"
	"strings"
	"time"
)

// Timers: JavaScript keeps the callbacks, Go keeps the clock. One time.Timer is armed for the
// earliest due timer; a heap orders them, so scheduling, clearing and firing cost O(log n) however
// many are pending, and equal due times fire in creation order. A cleared timer leaves the heap at
// once: a cell that sets and clears timers in a loop (a timeout raced against each call) must not
// pile up timers that will never fire.

// maxTimerDelay caps delays so that due times stay representable.
const maxTimerDelay = 100 * 365 * 24 * time.Hour

// timerQueue is a cell's pending timers. It belongs to the loop goroutine.
type timerQueue struct {
	heap   timerHeap
	seq    uint64
	lastID int64
	// limit bounds the pending timers (0: unbounded); the prelude enforces the same limit, so
	// only a forged record exceeds it.
	limit int
	alarm *time.Timer
}

type pendingTimer struct {
	due   time.Time
	seq   uint64
	id    int64
	index int // position in the heap
}

// timerHeap is a min-heap of timers by due time, with the pending timers by id so that a cleared
// one can be found. The heap holds pointers that know their position, so reordering it does not
// touch the map.
type timerHeap struct {
	items []*pendingTimer
	byID  map[int64]*pendingTimer
}

func (h *timerHeap) Len() int { return len(h.items) }
func (h *timerHeap) Less(i, j int) bool {
	a, b := h.items[i], h.items[j]
	if a.due.Equal(b.due) {
		return a.seq < b.seq
	}
	return a.due.Before(b.due)
}
func (h *timerHeap) Swap(i, j int) {
	h.items[i], h.items[j] = h.items[j], h.items[i]
	h.items[i].index, h.items[j].index = i, j
}
func (h *timerHeap) Push(x any) {
	t := x.(*pendingTimer)
	if h.byID == nil {
		h.byID = map[int64]*pendingTimer{}
	}
	t.index = len(h.items)
	h.items = append(h.items, t)
	h.byID[t.id] = t
}
func (h *timerHeap) Pop() any {
	n := len(h.items) - 1
	t := h.items[n]
	h.items[n] = nil
	h.items = h.items[:n]
	delete(h.byID, t.id)
	return t
}

// add schedules a record queued by setTimeout: "id delayMs". The prelude numbers timers from 1
// without gaps and sends whole, non-negative delays; anything else is a forged record.
func (q *timerQueue) add(record string) error {
	idText, delayText, _ := strings.Cut(record, " ")
	id, err := strconv.ParseInt(idText, 10, 64)
	if err != nil || id != q.lastID+1 {
		return forged("timer id %q out of sequence", idText)
	}
	ms, err := strconv.ParseFloat(delayText, 64)
	if err != nil || ms < 0 {
		return forged("timer delay %q", delayText)
	}
	if q.limit > 0 && q.heap.Len() >= q.limit {
		return forged("more than %d pending timers", q.limit)
	}
	q.lastID = id
	delay := maxTimerDelay
	if ms < float64(maxTimerDelay/time.Millisecond) {
		delay = time.Duration(ms) * time.Millisecond
	}
	q.seq++
	heap.Push(&q.heap, &pendingTimer{due: time.Now().Add(delay), seq: q.seq, id: id})
	return nil
}

// clear removes a timer that clearTimeout cancelled: record "id". The prelude sends it only for a
// timer still pending, so an id that is not in the queue is a forged record.
func (q *timerQueue) clear(record string) error {
	id, err := strconv.ParseInt(record, 10, 64)
	if err != nil {
		return forged("cleared timer id %q", record)
	}
	t, ok := q.heap.byID[id]
	if !ok {
		return forged("cleared timer %d is not pending", id)
	}
	heap.Remove(&q.heap, t.index)
	return nil
}

// due pops the earliest timer if it is due.
// pending reports whether any timer is set.
func (q *timerQueue) pending() bool { return q.heap.Len() > 0 }

func (q *timerQueue) due() (int64, bool) {
	if q.heap.Len() == 0 || time.Now().Before(q.heap.items[0].due) {
		return 0, false
	}
	return heap.Pop(&q.heap).(*pendingTimer).id, true
}

// clock arms the alarm for the earliest timer; nil (never ready) without timers.
func (q *timerQueue) clock() <-chan time.Time {
	if q.heap.Len() == 0 {
		return nil
	}
	wait := time.Until(q.heap.items[0].due)
	if q.alarm == nil {
		q.alarm = time.NewTimer(wait)
	} else {
		q.alarm.Reset(wait)
	}
	return q.alarm.C
}

// stop releases the alarm.
func (q *timerQueue) stop() {
	if q.alarm != nil {
		q.alarm.Stop()
	}
}
