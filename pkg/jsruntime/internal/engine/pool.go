package jsruntime

import (
	"sync"
	"sync/atomic"
)

// pool holds the engines not serving a cell. An engine comes back after each cell and is reset
// (snapshot.go); only one that its cell broke, or whose memory grew past maxHole, is replaced, by
// a background goroutine that keeps warm engines ready.
type pool struct {
	cfg     engineConfig
	img     *image
	idle    chan *engine
	warm    int
	maxHole uint64
	refill  chan struct{}
	stop    chan struct{}
	done    chan struct{}
	once    sync.Once
	mu      sync.Mutex // orders put against close; guards returned
	closed  bool
	// returning counts engines that finished cells are about to put back; returned is closed
	// (and replaced) each time one is.
	returning atomic.Int64
	returned  chan struct{}
	stats     poolStats
	statsMu   sync.Mutex
}

// poolStats counts what became of engines after their cells.
type poolStats struct {
	created, reused, replaced int
}

// newPool starts a pool whose engines adopt img; first, already made from it, is its first idle
// engine.
func newPool(cfg engineConfig, first *engine, warm, capacity int, maxHole uint64) *pool {
	p := &pool{
		cfg:      cfg,
		img:      first.img,
		idle:     make(chan *engine, max(capacity, warm, 1)),
		warm:     warm,
		maxHole:  maxHole,
		refill:   make(chan struct{}, 1),
		returned: make(chan struct{}),
		stop:     make(chan struct{}),
		done:     make(chan struct{}),
	}
	p.idle <- first
	p.stats.created = 1
	go p.fill()
	p.signalRefill()
	return p
}

// willReturn records that a cell has ended and will put its engine back shortly: get waits for
// that engine rather than creating one.
func (p *pool) willReturn() { p.returning.Add(1) }

// get returns an idle engine, waits for one that a finished cell is putting back, or creates one.
func (p *pool) get() (*engine, error) {
	for p.returning.Load() > 0 {
		p.mu.Lock()
		returned := p.returned
		p.mu.Unlock()
		select {
		case e := <-p.idle:
			return e, nil
		case <-returned:
		}
	}
	// Taking an idle engine does not ask for a refill: the engine comes back after its cell, and
	// refilling meanwhile would create one each time a cell starts before the previous one has
	// put its engine back, until the pool held capacity engines. Refills replace engines that
	// were disposed.
	select {
	case e := <-p.idle:
		return e, nil
	default:
	}
	p.count(func(s *poolStats) { s.created++ })
	return newEngine(p.cfg, p.img)
}

// observeReset, when set (by tests), sees every engine right after put reset it, with the
// verdict, before it is handed to another cell. It is atomic: a cell of an earlier test may still
// be putting its engine back while the next test sets or clears the hook.
var observeReset atomic.Pointer[func(e *engine, reusable bool)]

// put takes an engine back after its cell: reset and kept if it is still sound, disposed
// otherwise. It runs on the goroutine that owned the engine.
func (p *pool) put(e *engine) {
	defer p.announceReturn()
	ok := p.reset(e)
	if observe := observeReset.Load(); observe != nil {
		(*observe)(e, ok)
	}
	if !ok {
		e.dispose()
		p.count(func(s *poolStats) { s.replaced++ })
		p.signalRefill()
		return
	}
	p.count(func(s *poolStats) { s.reused++ })
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.closed {
		select {
		case p.idle <- e:
			return
		default:
		}
	}
	e.dispose()
}

// announceReturn ends a willReturn and wakes the gets waiting for it.
func (p *pool) announceReturn() {
	p.returning.Add(-1)
	p.mu.Lock()
	close(p.returned)
	p.returned = make(chan struct{})
	p.mu.Unlock()
}

// reset restores e's memory image, reporting whether e can serve another cell.
func (p *pool) reset(e *engine) (ok bool) {
	if e.dead || e.w.mod.IsClosed() {
		return false
	}
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	if stackWentDeep(e.mem) {
		e.w.shed()
	}
	e.img.restore(e.mem, e.sp)
	e.mem.takeRefused()
	if e.mem.hole > 0 && (!e.mem.mapped() || e.mem.hole > p.maxHole) {
		return false
	}
	return true
}

func (p *pool) signalRefill() {
	select {
	case p.refill <- struct{}{}:
	default:
	}
}

// fill creates engines while fewer than warm are idle.
func (p *pool) fill() {
	defer close(p.done)
	for {
		select {
		case <-p.stop:
			return
		case <-p.refill:
		}
		for len(p.idle) < p.warm {
			e, err := newEngine(p.cfg, p.img)
			if err != nil {
				// Creation failures surface on the cell that needs an engine; do not spin.
				break
			}
			p.count(func(s *poolStats) { s.created++ })
			select {
			case p.idle <- e:
			case <-p.stop:
				e.dispose()
				return
			}
		}
	}
}

func (p *pool) count(f func(*poolStats)) {
	p.statsMu.Lock()
	f(&p.stats)
	p.statsMu.Unlock()
}

// close stops refilling and disposes the idle engines.
func (p *pool) close() {
	p.once.Do(func() {
		// A cell that ends after this puts its engine back to a closed pool, which disposes it.
		p.mu.Lock()
		p.closed = true
		p.mu.Unlock()
		close(p.stop)
		<-p.done
		for {
			select {
			case e := <-p.idle:
				e.dispose()
			default:
				return
			}
		}
	})
}
