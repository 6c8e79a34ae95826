package grpcclient

import (
	"context"
	"sync"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// droppedWaits holds, per wire cell, the waits whose caller left before the answer and whose
// CancelWait has not returned: the cell's next wait is sent only after them, so it cannot meet
// the old observer on the host. The zero value is ready; it is safe for concurrent use (a leaf
// lock: nothing is called under it).
type droppedWaits struct {
	mu    sync.Mutex
	cells map[codemode.CellID][]chan struct{}
}

// drop records a dropped wait of cell; the returned release is called once its CancelWait
// returned, which lets the cell's next waits go.
func (d *droppedWaits) drop(cell codemode.CellID) (release func()) {
	done := make(chan struct{})
	d.mu.Lock()
	if d.cells == nil {
		d.cells = make(map[codemode.CellID][]chan struct{})
	}
	d.cells[cell] = append(d.cells[cell], done)
	d.mu.Unlock()
	return func() {
		d.forget(cell, done)
		close(done)
	}
}

// forget removes a dropped wait of cell whose CancelWait returned.
func (d *droppedWaits) forget(cell codemode.CellID, done chan struct{}) {
	d.mu.Lock()
	defer d.mu.Unlock()
	list := d.cells[cell]
	for i, c := range list {
		if c == done {
			list = append(list[:i], list[i+1:]...)
			break
		}
	}
	if len(list) == 0 {
		delete(d.cells, cell)
		return
	}
	d.cells[cell] = list
}

// pending returns the signals of cell's dropped waits still being cancelled.
func (d *droppedWaits) pending(cell codemode.CellID) []chan struct{} {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]chan struct{}(nil), d.cells[cell]...)
}

// await returns once the dropped waits of cell that exist now have retired, or with ctx's cause
// when ctx ends first. It returns nil when lease ends first: the caller's next check of the
// binding reports why it stopped.
func (d *droppedWaits) await(ctx context.Context, lease <-chan struct{}, cell codemode.CellID) error {
	for _, done := range d.pending(cell) {
		select {
		case <-done:
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-lease:
			return nil
		}
	}
	return nil
}
