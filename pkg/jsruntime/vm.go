package jsruntime

import (
	"context"
	"time"

	"github.com/codemodehq/codemode/pkg/jsruntime/internal/engine"
)

// vm is everything the cell layer (cell.go, loop.go, session.go) asks of its QuickJS runtime. The VM
// behind it (internal/engine) knows nothing of cells, sessions or the bridge's message kinds, and
// the cell layer touches no wasm memory, export or module: the package boundary enforces it. The
// engine calls back through engine.Host with the raw bridge message.
type vm interface {
	// Attach gives the runtime to a cell: host answers its bridge messages, its heap may grow by
	// heapLimit beyond the image, and a refused growth interrupts the running script.
	Attach(host engine.Host, heapLimit uint64)
	// Detach detaches the cell before the runtime goes back to its pool.
	Detach()
	// InterruptOn interrupts the running script when ctx ends; stop unregisters that.
	InterruptOn(ctx context.Context) (stop func())
	// LoadModule loads the cell's prepared module source.
	LoadModule(src string) error
	// Begin and Deliver run one turn: the module's evaluation, or ready results and timers. Each
	// returns what the script queued meanwhile.
	Begin(input string) (queued string, err error)
	Deliver(input string, strs []string) (queued string, err error)
	// DeliverOne is the turn that settles one call with the small JSON text of its result.
	DeliverOne(id int32, value string) (queued string, err error)
	// Classify says what a turn's error means: an interrupt, a trap, a JavaScript error.
	Classify(err error) error
	// HeapRefused reports (once) whether, and why, a heap growth was refused since the last call.
	HeapRefused() engine.Refusal
	// MemoryBytes is the memory the runtime holds for the cell: it only grows while the cell
	// runs, so its value at the cell's end is the cell's peak.
	MemoryBytes() uint64
	// ExportsKept and ShedExports count and drop the resolved exports an idle cell need not keep.
	ExportsKept() int
	ShedExports()
	// QuoteParts takes n strings from the prelude's part entry point, as JSON (inside Serve).
	QuoteParts(n int) ([][]byte, error)
	// MainName is the name under which Begin imports the module.
	MainName() string
	// Retire marks the runtime unusable: its pool disposes of it instead of resetting it.
	Retire()
	// OnLongTurn has f called once, on the running turn's goroutine, when the next turn has run
	// for d (f nil: never).
	OnLongTurn(d time.Duration, f func())
}

var _ vm = (*engine.Engine)(nil)

// runtimes is the pool as the cell layer sees it.
type runtimes interface {
	get() (vm, error)
	put(vm)
	willReturn()
}

// poolRuntimes is the pool behind runtimes: what it hands out and takes back are engines.
type poolRuntimes struct{ p *engine.Pool }

func (r poolRuntimes) get() (vm, error) {
	e, err := r.p.Get()
	if err != nil {
		return nil, err
	}
	return e, nil
}

func (r poolRuntimes) put(v vm)    { r.p.Put(v.(*engine.Engine)) }
func (r poolRuntimes) willReturn() { r.p.WillReturn() }
