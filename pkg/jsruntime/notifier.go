package jsruntime

import "sync"

// notifier delivers a cell's notifications in order on one goroutine, started on demand, so a
// slow delegate never blocks the script.
type notifier struct {
	send    func(string)
	mu      sync.Mutex
	queue   []string
	running bool
	wg      sync.WaitGroup
}

func (n *notifier) push(text string) {
	n.wg.Add(1)
	n.mu.Lock()
	n.queue = append(n.queue, text)
	start := !n.running
	n.running = true
	n.mu.Unlock()
	if start {
		go n.drain()
	}
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
		n.wg.Done()
		if !goOn {
			go n.drain()
		}
	}()
	n.send(text)
	return true
}

func (n *notifier) wait() { n.wg.Wait() }
