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
	idle    chan *engine
	warm    int
	maxHole uint64
	refill  chan struct{}
	stop    chan struct{}
	done    chan struct{}
	once    sync.Once
	stats   poolStats
	statsMu sync.Mutex
}

// poolStats counts what became of engines after their cells.
type poolStats struct {
	created, reused, replaced int
}

func newPool(cfg engineConfig, warm, capacity int, maxHole uint64) *pool {
	p := &pool{
		cfg:     cfg,
		idle:    make(chan *engine, max(capacity, warm, 1)),
		warm:    warm,
		maxHole: maxHole,
		refill:  make(chan struct{}, 1),
		stop:    make(chan struct{}),
		done:    make(chan struct{}),
	}
	go p.fill()
	p.signalRefill()
	return p
}

// get returns an idle engine, or creates one.
func (p *pool) get() (*engine, error) {
	select {
	case e := <-p.idle:
		p.signalRefill()
		return e, nil
	default:
	}
	p.count(func(s *poolStats) { s.created++ })
	return newEngine(p.cfg)
}

// observeReset, when set (by tests), sees every engine right after put reset it, with the
// verdict, before it is handed to another cell. It is atomic: a cell of an earlier test may still
// be putting its engine back while the next test sets or clears the hook.
var observeReset atomic.Pointer[func(e *engine, reusable bool)]

// put takes an engine back after its cell: reset and kept if it is still sound, disposed
// otherwise. It runs on the goroutine that owned the engine.
func (p *pool) put(e *engine) {
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
	select {
	case p.idle <- e:
	default:
		e.dispose()
	}
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
	e.snap.restore(e.mem)
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
			e, err := newEngine(p.cfg)
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
