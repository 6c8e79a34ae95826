package engine

import (
	"sync"
	"sync/atomic"

	"github.com/codemodehq/codemode/pkg/internal/broadcast"
)

// Pool holds the engines not serving a cell. An engine comes back after each cell and is reset
// (snapshot.go); only one that its cell broke is replaced, by a background goroutine that keeps
// warm engines ready.
type Pool struct {
	cfg    Config
	img    *image
	idle   chan *Engine
	warm   int
	keep   keepAllowance
	refill chan struct{}
	stop   chan struct{}
	done   chan struct{}
	once   sync.Once
	mu     sync.Mutex // orders put against close
	closed bool
	// returning counts engines that finished cells are about to put back; returned is broadcast
	// each time one is.
	returning atomic.Int64
	returned  broadcast.Signal
	stats     PoolStats
	statsMu   sync.Mutex
	// observer, when set (ObserveResets), sees every engine right after Put reset it.
	observer atomic.Pointer[func(ResetReport)]
}

// PoolStats counts the engines a pool created, and what became of them after their cells: reset
// and reused, or replaced; and how the pool served Get: Hits found an engine ready (idle, or put
// back by a cell that had just ended), Misses had to create one, the cost the pool exists to avoid.
type PoolStats struct {
	Created, Reused, Replaced int
	Hits, Misses              uint64
}

// took counts one Get: a hit, or a miss that created an engine (counted as created when the
// creation succeeded).
func (s *PoolStats) took(created, ok bool) {
	if !created {
		s.Hits++
		return
	}
	s.Misses++
	if ok {
		s.Created++
	}
}

// newPool starts a pool whose engines adopt img; first, already made from it, is its first idle
// engine.
func newPool(cfg Config, first *Engine, warm, capacity int) *Pool {
	p := &Pool{
		cfg:    cfg,
		img:    first.img,
		idle:   make(chan *Engine, max(capacity, warm, 1)),
		warm:   warm,
		keep:   keepAllowance{left: poolKeepBytes},
		refill: make(chan struct{}, 1),
		stop:   make(chan struct{}),
		done:   make(chan struct{}),
	}
	p.idle <- first
	p.stats.Created = 1
	go p.fill()
	p.signalRefill()
	return p
}

// WillReturn records that a cell has ended and will put its engine back shortly: Get waits for
// that engine rather than creating one.
func (p *Pool) WillReturn() { p.returning.Add(1) }

// Get returns an idle engine, waits for one that a finished cell is putting back, or creates one.
func (p *Pool) Get() (*Engine, error) {
	for p.returning.Load() > 0 {
		returned := p.returned.Changed()
		if p.returning.Load() == 0 {
			// The last return was announced between the check and Changed: its broadcast went
			// to an earlier channel, and a disposed engine never reaches idle.
			break
		}
		select {
		case e := <-p.idle:
			p.count(func(s *PoolStats) { s.took(false, true) })
			return e, nil
		case <-returned:
		}
	}
	// Taking an idle engine does not ask for a refill: the engine comes back after its cell, and
	// refilling meanwhile would create one each time a cell starts before the previous one has
	// put its engine back, until the pool held capacity engines. Refills replace engines that
	// were disposed, and follow a miss: no engine was idle and none on its way back, so cells
	// are starting faster than they end (a burst, or live cells piling up), and the filler
	// creates the next warm ones on another core while this cell creates its own.
	select {
	case e := <-p.idle:
		p.count(func(s *PoolStats) { s.took(false, true) })
		return e, nil
	default:
	}
	p.signalRefill()
	e, err := newEngine(p.cfg, p.img)
	p.count(func(s *PoolStats) { s.took(true, err == nil) })
	return e, err
}

// Put takes an engine back after its cell: reset and kept if it is still sound, disposed
// otherwise. It runs on the goroutine that owned the engine.
func (p *Pool) Put(e *Engine) {
	defer p.announceReturn()
	ok := p.reset(e)
	if observe := p.observer.Load(); observe != nil {
		(*observe)(e.report(ok))
	}
	if !ok {
		p.discard(e)
		p.count(func(s *PoolStats) { s.Replaced++ })
		p.signalRefill()
		return
	}
	p.count(func(s *PoolStats) { s.Reused++ })
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.closed {
		select {
		case p.idle <- e:
			return
		default:
		}
	}
	p.discard(e)
}

// discard disposes of an engine the pool will not keep, and takes back what it kept resident.
func (p *Pool) discard(e *Engine) {
	p.keep.give(e.mem.kept)
	e.mem.kept = 0
	e.dispose()
}

// announceReturn ends a WillReturn and wakes the gets waiting for it.
func (p *Pool) announceReturn() {
	p.returning.Add(-1)
	p.returned.Broadcast()
}

// reset restores e's memory image, reporting whether e can serve another cell.
func (p *Pool) reset(e *Engine) (ok bool) {
	if e.dead || e.w.mod.IsClosed() {
		return false
	}
	// InterruptOn's stop has waited for any interrupt on its way, so none comes after this.
	e.stop.Store(false)
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	if stackWentDeep(e.mem) {
		e.w.shed()
	}
	// What the engine kept at its last reset goes back to the pool's allowance, which grants the
	// reset what it may keep now; the part of the grant the cell did not grow into goes back too.
	p.keep.give(e.mem.kept)
	e.mem.kept = 0
	e.mem.keepLimit = p.keep.grant(keepResident)
	e.img.restore(e.mem, e.regs)
	p.keep.give(e.mem.keepLimit - e.mem.kept)
	e.mem.keepLimit = 0
	e.mem.takeRefused()
	// A memory that grows by copying (no mapped reservation, memory_other.go) cannot give pages
	// back: an engine whose cells grew it far is replaced rather than kept holding it.
	return e.mem.region != nil || uint64(len(e.mem.buf)) <= uint64(e.img.size)+keepResident
}

func (p *Pool) signalRefill() {
	select {
	case p.refill <- struct{}{}:
	default:
	}
}

// fill creates engines while fewer than warm are idle.
func (p *Pool) fill() {
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
			p.count(func(s *PoolStats) { s.Created++ })
			select {
			case p.idle <- e:
			case <-p.stop:
				e.dispose()
				return
			}
		}
	}
}

func (p *Pool) count(f func(*PoolStats)) {
	p.statsMu.Lock()
	f(&p.stats)
	p.statsMu.Unlock()
}

// Close stops refilling and disposes the idle engines.
func (p *Pool) Close() {
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
				p.discard(e)
			default:
				return
			}
		}
	})
}

// Stats returns what the pool has counted so far.
func (p *Pool) Stats() PoolStats {
	p.statsMu.Lock()
	defer p.statsMu.Unlock()
	return p.stats
}

// Idle is the number of engines ready for a cell now.
func (p *Pool) Idle() int { return len(p.idle) }
