package jsruntime

import "context"

// vm is everything the cell layer (cell.go, loop.go, session.go) asks of its QuickJS runtime: the
// VM behind this interface (engine.go, wasm.go, memory.go, snapshot.go, pool.go, values.go,
// scripts.go, turn.go) knows nothing of cells, sessions or the bridge's message kinds, and the
// cell layer touches no wasm memory, export or module. The host handler is the seam between them.
type vm interface {
	// attach gives the runtime to a cell: host answers its bridge messages, its heap may grow by
	// heapLimit beyond the image, and a refused growth interrupts the running script.
	attach(host hostHandler, heapLimit uint64)
	// detach detaches the cell before the runtime goes back to its pool.
	detach()
	// interruptOn interrupts the running script when ctx ends; stop unregisters that.
	interruptOn(ctx context.Context) (stop func())
	// loadModule loads the cell's prepared module source.
	loadModule(src string) error
	// begin and deliver run one turn: the module's evaluation, or ready results and timers. Each
	// returns what the script queued meanwhile.
	begin(input string) (queued string, err error)
	deliver(input string) (queued string, err error)
	// classify says what a turn's error means: an interrupt, a trap, a JavaScript error.
	classify(err error) error
	// heapRefused reports (once) whether a heap growth was refused since the last call.
	heapRefused() bool
	// exportsKept and shedExports count and drop the resolved exports an idle cell need not keep.
	exportsKept() int
	shedExports()
	// mainName is the name under which begin imports the module.
	mainName() string
	// retire marks the runtime unusable: its pool disposes of it instead of resetting it.
	retire()
}

var _ vm = (*engine)(nil)

func (e *engine) attach(host hostHandler, heapLimit uint64) {
	e.host = host
	e.mem.limit = uint64(e.img.size) + heapLimit
	e.mem.onRefuse = e.interrupt
}

func (e *engine) detach() {
	e.mem.onRefuse = nil
	e.host = nil
}

func (e *engine) begin(input string) (string, error)   { return e.turn(e.entry.begin, input) }
func (e *engine) deliver(input string) (string, error) { return e.turn(e.entry.deliver, input) }
func (e *engine) heapRefused() bool                    { return e.mem.takeRefused() }
func (e *engine) exportsKept() int                     { return e.w.kept() }
func (e *engine) shedExports()                         { e.w.shed() }
func (e *engine) mainName() string                     { return e.main }
func (e *engine) retire()                              { e.dead = true }

// runtimes is the pool as the cell layer sees it.
type runtimes interface {
	get() (vm, error)
	put(vm)
	willReturn()
}

// poolRuntimes is the pool behind runtimes: what it hands out and takes back are engines.
type poolRuntimes struct{ p *pool }

func (r poolRuntimes) get() (vm, error) {
	e, err := r.p.get()
	if err != nil {
		return nil, err
	}
	return e, nil
}

func (r poolRuntimes) put(v vm)    { r.p.put(v.(*engine)) }
func (r poolRuntimes) willReturn() { r.p.willReturn() }
