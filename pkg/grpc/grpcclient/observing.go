package grpcclient

import (
	"sync"
	"time"

	"github.com/codemodehq/codemode/pkg/internal/broadcast"
)

// leaseEndGrace bounds how long a binding whose lease the host ended waits for the outcomes of
// its Executes and Waits in progress before it fails them: a draining host answers each of them
// (Terminated, with the output so far) before it ends the lease, but those answers travel on
// other streams, which may be read after the lease's end.
const leaseEndGrace = 5 * time.Second

// observing counts a binding's Executes whose outcome is being read and its Waits in progress.
// The zero value is ready; it is safe for concurrent use.
type observing struct {
	mu   sync.Mutex
	n    int
	idle broadcast.Signal // broadcast when n drops to zero
}

// begin counts one more observation; the caller calls end once it has its answer.
func (o *observing) begin() {
	o.mu.Lock()
	o.n++
	o.mu.Unlock()
}

// end counts an observation out.
func (o *observing) end() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.n--
	if o.n == 0 {
		o.idle.Broadcast()
	}
}

// await returns once no observation is in progress, or after grace.
func (o *observing) await(grace time.Duration) {
	o.mu.Lock()
	if o.n == 0 {
		o.mu.Unlock()
		return
	}
	idle := o.idle.Changed()
	o.mu.Unlock()
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-idle:
	case <-t.C:
	}
}
