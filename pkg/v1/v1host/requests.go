package v1host

import (
	"context"
	"fmt"

	"github.com/codemodehq/codemode/gen/go/wirev1"
	"github.com/codemodehq/codemode/pkg/internal/recent"
)

// activeRequest is an operation the host has not finished.
type activeRequest struct {
	cancellable bool
	cancel      context.CancelFunc
	// yieldNow is closed by operation/yield: it ends the observation of an execute (until its
	// initial response) or a wait at once; nil for other requests.
	yieldNow chan struct{}
	yielded  bool
}

// requestRegistry tracks request IDs: an ID must not be active or among the last RecentIDs
// finished ones. Callers hold the connection's lock.
type requestRegistry struct {
	active map[wirev1.RequestId]*activeRequest
	recent recent.Set[wirev1.RequestId]
}

func newRequestRegistry() requestRegistry {
	return requestRegistry{active: map[wirev1.RequestId]*activeRequest{}, recent: recent.New[wirev1.RequestId](RecentIDs)}
}

// start registers id; a reuse is a protocol violation that ends the connection. The returned
// ctx ends when the request is cancelled (operation/cancel, for executes and waits) or parent
// ends.
func (r *requestRegistry) start(parent context.Context, id wirev1.RequestId, req wirev1.HostRequest) (context.Context, error) {
	if _, ok := r.active[id]; ok || r.recent.Contains(id) {
		return nil, fmt.Errorf("duplicate code-mode request ID RequestId(%d)", id)
	}
	ctx, cancel := context.WithCancel(parent)
	a := &activeRequest{cancellable: isCancellable(req), cancel: cancel}
	if isCancellable(req) {
		a.yieldNow = make(chan struct{})
	}
	r.active[id] = a
	return ctx, nil
}

// yieldChannel is the channel operation/yield closes for request id (nil if it has none).
func (r *requestRegistry) yieldChannel(id wirev1.RequestId) <-chan struct{} {
	if a, ok := r.active[id]; ok {
		return a.yieldNow
	}
	return nil
}

// yield ends the observation of an active execute or wait (Codex 0.169's operation/yield). An
// unknown or finished ID, a request that observes nothing, and a repeated yield are ignored: no
// reply, no error (docs/protocol/v1.md#operationyield). A yield has no reply of its own, and one
// that lost the race with the end of its observation is not the client's mistake.
func (r *requestRegistry) yield(id wirev1.RequestId) {
	if a, ok := r.active[id]; ok && a.yieldNow != nil && !a.yielded {
		a.yielded = true
		close(a.yieldNow)
	}
}

// isCancellable: operation/cancel affects only executes (before admission) and waits.
func isCancellable(req wirev1.HostRequest) bool {
	switch req.(type) {
	case wirev1.Execute, wirev1.Wait:
		return true
	}
	return false
}

// cancel cancels an active cancellable request; other kinds and unknown IDs are ignored.
func (r *requestRegistry) cancel(id wirev1.RequestId) {
	if a, ok := r.active[id]; ok && a.cancellable {
		a.cancel()
	}
}

// finish retires id into the recent history.
func (r *requestRegistry) finish(id wirev1.RequestId) {
	a, ok := r.active[id]
	if !ok {
		return
	}
	a.cancel()
	delete(r.active, id)
	r.recent.Remember(id)
}

// cancelAll cancels every active request, cancellable or not (the connection is ending).
func (r *requestRegistry) cancelAll() {
	for _, a := range r.active {
		a.cancel()
	}
}
