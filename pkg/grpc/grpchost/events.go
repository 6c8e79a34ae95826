package grpchost

import (
	"context"
	"errors"
	"sync"

	pb "github.com/codemodehq/codemode/gen/go/pb/codex/code_mode/v1"
	"github.com/codemodehq/codemode/pkg/internal/broadcast"
)

// maxQueuedNotifications bounds the notifications waiting on a session's lease (Codex's
// OUTGOING_CHANNEL_CAPACITY). Past it notify() waits for the client to read; other events
// (opening, cancellations, closures) are bounded by what they report and never wait, so a
// client that stops reading holds up its own notifications and nothing else.
const maxQueuedNotifications = 128

// errEventsClosed is returned to a notification that arrives after the lease ended.
var errEventsClosed = errors.New("code-mode session is closed")

// eventQueue is the ordered queue of a session's lease events, drained by the OpenSession
// handler.
type eventQueue struct {
	mu            sync.Mutex
	items         []*pb.SessionEvent
	notifications int
	closed        bool
	// ready has a token while items is not empty or the queue is closed.
	ready chan struct{}
	// space is broadcast whenever a notification leaves the queue.
	space broadcast.Signal
}

func newEventQueue() *eventQueue {
	return &eventQueue{ready: make(chan struct{}, 1)}
}

// pushNow queues an event that never waits. It reports false once the queue is closed.
func (q *eventQueue) pushNow(e *pb.SessionEvent) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return false
	}
	q.items = append(q.items, e)
	q.signal()
	return true
}

// pushNotification queues a notification, waiting while maxQueuedNotifications are queued, until
// ctx ends or the queue closes.
func (q *eventQueue) pushNotification(ctx context.Context, e *pb.SessionEvent) error {
	for {
		q.mu.Lock()
		if q.closed {
			q.mu.Unlock()
			return errEventsClosed
		}
		if q.notifications < maxQueuedNotifications {
			q.items = append(q.items, e)
			q.notifications++
			q.signal()
			q.mu.Unlock()
			return nil
		}
		space := q.space.Changed()
		q.mu.Unlock()
		select {
		case <-space:
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
}

// signal leaves a token in ready; the caller holds mu.
func (q *eventQueue) signal() {
	select {
	case q.ready <- struct{}{}:
	default:
	}
}

// next returns the oldest event, waiting for one. It reports false once the queue is closed and
// drained, or when ctx ends.
func (q *eventQueue) next(ctx context.Context) (*pb.SessionEvent, bool) {
	for {
		q.mu.Lock()
		if len(q.items) > 0 {
			e := q.items[0]
			q.items[0] = nil
			q.items = q.items[1:]
			if _, ok := e.GetEvent().(*pb.SessionEvent_Notification); ok {
				q.notifications--
				q.space.Broadcast()
			}
			if len(q.items) > 0 {
				q.signal()
			}
			q.mu.Unlock()
			return e, true
		}
		closed := q.closed
		q.mu.Unlock()
		if closed {
			return nil, false
		}
		select {
		case <-q.ready:
		case <-ctx.Done():
			return nil, false
		}
	}
}

// close ends the queue: later pushes fail, waiting notifications give up, and next returns what is
// queued before it reports the end.
func (q *eventQueue) close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return
	}
	q.closed = true
	q.space.Broadcast()
	q.signal()
}
