package jsruntime

import (
	"container/heap"
	"math"
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
	alarm  *time.Timer
}

type pendingTimer struct {
	due time.Time
	seq uint64
	id  int64
}

// timerHeap orders the pending timers by due time and knows where each one is, so a cleared
// timer leaves at once instead of holding its place until it comes due.
type timerHeap struct {
	items []pendingTimer
	at    map[int64]int // timer id -> index in items
}

func (h *timerHeap) Len() int { return len(h.items) }
func (h *timerHeap) Less(i, j int) bool {
	if h.items[i].due.Equal(h.items[j].due) {
		return h.items[i].seq < h.items[j].seq
	}
	return h.items[i].due.Before(h.items[j].due)
}
func (h *timerHeap) Swap(i, j int) {
	h.items[i], h.items[j] = h.items[j], h.items[i]
	h.at[h.items[i].id] = i
	h.at[h.items[j].id] = j
}
func (h *timerHeap) Push(x any) {
	t := x.(pendingTimer)
	if h.at == nil {
		h.at = map[int64]int{}
	}
	h.at[t.id] = len(h.items)
	h.items = append(h.items, t)
}
func (h *timerHeap) Pop() any {
	t := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	delete(h.at, t.id)
	return t
}

// add schedules a record queued by setTimeout: "id delayMs". The prelude numbers timers from 1
// without gaps, sends whole, non-negative delays and keeps at most limit timers pending; anything
// else is a forged record.
func (q *timerQueue) add(record string, limit int) error {
	idText, delayText, _ := strings.Cut(record, " ")
	id, err := strconv.ParseInt(idText, 10, 64)
	if err != nil || id != q.lastID+1 {
		return forged("timer id %q out of sequence", idText)
	}
	// JavaScript writes a whole number of at least 1e21 with an exponent ("1e+21").
	ms, err := strconv.ParseFloat(delayText, 64)
	if err != nil || !(ms >= 0) || math.IsInf(ms, 1) || ms != math.Trunc(ms) {
		return forged("timer delay %q", delayText)
	}
	if q.heap.Len() >= limit {
		return forged("more than %d pending timers", limit)
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

// clear drops the timer of a record queued by clearTimeout: "id". The prelude sends it only for a
// timer that is pending (set, not yet fired, not cleared), so any other id is a forged record.
func (q *timerQueue) clear(record string) error {
	id, err := strconv.ParseInt(record, 10, 64)
	i, pending := q.heap.at[id]
	if err != nil || !pending {
		return forged("cleared timer %q is not pending", record)
	}
	heap.Remove(&q.heap, i)
	return nil
}

// due pops the earliest timer if it is due.
func (q *timerQueue) due() (int64, bool) {
	if q.heap.Len() == 0 || time.Now().Before(q.heap.items[0].due) {
		return 0, false
	}
	return heap.Pop(&q.heap).(pendingTimer).id, true
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
