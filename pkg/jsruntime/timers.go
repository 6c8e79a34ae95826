package jsruntime

import (
	"container/heap"
	"strconv"
	"strings"
	"time"
)

// Timers: JavaScript keeps the callbacks, Go keeps the clock. One time.Timer is armed for the
// earliest due timer; a heap orders them, so scheduling and firing cost O(log n) however many are
// pending, and equal due times fire in creation order.

// maxTimerDelay caps delays so that due times stay representable.
const maxTimerDelay = 100 * 365 * 24 * time.Hour

// timerQueue is a cell's pending timers. It belongs to the loop goroutine.
type timerQueue struct {
	heap   timerHeap
	seq    uint64
	lastID int64
	limit  int
	alarm  *time.Timer
}

type pendingTimer struct {
	due time.Time
	seq uint64
	id  int64
}

type timerHeap []pendingTimer

func (h timerHeap) Len() int { return len(h) }
func (h timerHeap) Less(i, j int) bool {
	if h[i].due.Equal(h[j].due) {
		return h[i].seq < h[j].seq
	}
	return h[i].due.Before(h[j].due)
}
func (h timerHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *timerHeap) Push(x any)   { *h = append(*h, x.(pendingTimer)) }
func (h *timerHeap) Pop() any {
	old := *h
	t := old[len(old)-1]
	*h = old[:len(old)-1]
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
	if q.limit > 0 && len(q.heap) >= q.limit {
		return forged("more than %d pending timers", q.limit)
	}
	q.lastID = id
	delay := maxTimerDelay
	if ms < float64(maxTimerDelay/time.Millisecond) {
		delay = time.Duration(ms) * time.Millisecond
	}
	q.seq++
	heap.Push(&q.heap, pendingTimer{due: time.Now().Add(delay), seq: q.seq, id: id})
	return nil
}

// due pops the earliest timer if it is due.
func (q *timerQueue) due() (int64, bool) {
	if len(q.heap) == 0 || time.Now().Before(q.heap[0].due) {
		return 0, false
	}
	return heap.Pop(&q.heap).(pendingTimer).id, true
}

// clock arms the alarm for the earliest timer; nil (never ready) without timers.
func (q *timerQueue) clock() <-chan time.Time {
	if len(q.heap) == 0 {
		return nil
	}
	wait := time.Until(q.heap[0].due)
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
