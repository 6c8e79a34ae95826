package jsruntime

import "sync"

// notifier delivers a cell's notifications in order on one goroutine, started on demand, so a
// slow delegate never blocks the script, up to a point: once limit bytes of text wait for
// delivery, push waits for the delegate to catch up. Without that bound a cell notifying in a
// loop to a slow delegate grew the Go heap without limit, and its completion then waited for the
// whole backlog.
type notifier struct {
	send  func(string)
	limit int             // bytes of undelivered text past which push waits; 0: no limit
	done  <-chan struct{} // the cell's end: a waiting push gives up
	mu    sync.Mutex
	queue []string
	bytes int // text queued or being delivered
	// delivered receives a token (without blocking) after each delivery, for a waiting push.
	delivered chan struct{}
	running   bool
	wg        sync.WaitGroup
}

// push queues text for delivery. It waits while the undelivered text would exceed the limit (a
// text alone may exceed it), and drops text if the cell ends meanwhile: notifications of an ended
// cell are not delivered anyway.
func (n *notifier) push(text string) {
	n.mu.Lock()
	if !n.admit(len(text)) {
		return
	}
	n.wg.Add(1)
	n.queue = append(n.queue, text)
	n.bytes += len(text)
	start := !n.running
	n.running = true
	n.mu.Unlock()
	if start {
		go n.drain()
	}
}

// admit waits, with n.mu held, while size more bytes would take the undelivered text past the
// limit (a text alone may exceed it). It reports false, with n.mu released, when the cell ended
// meanwhile.
func (n *notifier) admit(size int) bool {
	for n.limit > 0 && n.bytes > 0 && n.bytes+size > n.limit {
		if n.delivered == nil {
			n.delivered = make(chan struct{}, 1)
		}
		n.mu.Unlock()
		select {
		case <-n.delivered:
		case <-n.done:
			return false
		}
		n.mu.Lock()
	}
	return true
}

// reserve accounts for a text that is delivered without the queue (a delegate's StartNotify),
// waiting first as push does; it reports false when the cell ended meanwhile. Its delivery must
// be reported with delivered1.
func (n *notifier) reserve(size int) bool {
	n.mu.Lock()
	if !n.admit(size) {
		return false
	}
	n.wg.Add(1)
	n.bytes += size
	n.mu.Unlock()
	return true
}

func (n *notifier) drain() {
	for {
		n.mu.Lock()
		if len(n.queue) == 0 {
			n.running = false
			n.mu.Unlock()
			return
		}
		text := n.queue[0]
		n.queue[0] = ""
		n.queue = n.queue[1:]
		n.mu.Unlock()
		if !n.deliver(text) {
			return
		}
	}
}

// deliver sends one notification and reports whether this goroutine may go on. A send that ends
// the goroutine (runtime.Goexit in the delegate) cannot be stopped, so draining continues on a
// new goroutine.
func (n *notifier) deliver(text string) (goOn bool) {
	defer func() {
		n.delivered1(len(text))
		if !goOn {
			go n.drain()
		}
	}()
	n.send(text)
	return true
}

// delivered1 accounts for one delivered (or abandoned) text of size bytes and wakes a waiting
// push.
func (n *notifier) delivered1(size int) {
	n.mu.Lock()
	n.bytes -= size
	if n.delivered != nil {
		select {
		case n.delivered <- struct{}{}:
		default:
		}
	}
	n.mu.Unlock()
	n.wg.Done()
}

func (n *notifier) wait() { n.wg.Wait() }
