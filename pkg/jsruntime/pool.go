package jsruntime

import (
	"sync"
)

// pool keeps warm engines with the default heap limit, refilled in the background. Engines are
// handed out once and never come back.
type pool struct {
	cfg   engineConfig
	warm  chan *engine
	stop  chan struct{}
	done  chan struct{}
	once  sync.Once
	limit uint64
}

func newPool(cfg engineConfig, size int, defaultHeapLimit uint64) *pool {
	p := &pool{
		cfg:   cfg,
		warm:  make(chan *engine, size),
		stop:  make(chan struct{}),
		done:  make(chan struct{}),
		limit: defaultHeapLimit,
	}
	if size > 0 {
		go p.fill()
	} else {
		close(p.done)
	}
	return p
}

// fill keeps the warm channel full until the pool stops.
func (p *pool) fill() {
	defer close(p.done)
	for {
		select {
		case <-p.stop:
			return
		default:
		}
		e, err := newEngine(p.cfg, p.limit)
		if err != nil {
			// Creation failures surface on the cell that needs an engine; do not spin.
			select {
			case <-p.stop:
				return
			case p.warm <- nil:
			}
			continue
		}
		select {
		case p.warm <- e:
		case <-p.stop:
			e.dispose()
			return
		}
	}
}

// get returns an engine for heapLimit (0 = the pool's default): a warm one when the limit is the
// default, else a new one.
func (p *pool) get(heapLimit uint64) (*engine, error) {
	if heapLimit == p.limit {
		select {
		case e := <-p.warm:
			if e != nil {
				return e, nil
			}
		default:
		}
	}
	return newEngine(p.cfg, heapLimit)
}

// close stops refilling and disposes the warm engines.
func (p *pool) close() {
	p.once.Do(func() {
		close(p.stop)
		<-p.done
		for {
			select {
			case e := <-p.warm:
				if e != nil {
					e.dispose()
				}
			default:
				return
			}
		}
	})
}
