package engine

import "sync"

// keepResident is how much of what a cell grew its reset may zero in place and keep, so that the
// next cell's heap grows over resident pages (the size the module sees, memory.go): a 1 MiB
// string takes QuickJS about 2.2 MB of heap. Beyond it the pages go back to the system.
const keepResident = 4 << 20

// poolKeepBytes bounds what a pool's engines keep resident above their images at once, whether
// idle or serving a cell: memory no cell is charged for (docs/adr/0058-one-host-wide-memory-
// budget.md), so it stays small beside the budget.
const poolKeepBytes = 32 << 20

// keepAllowance is a pool's share of poolKeepBytes not granted to an engine's reset.
type keepAllowance struct {
	mu   sync.Mutex
	left uint64
}

// grant takes up to want bytes of the allowance and returns how many it took.
func (a *keepAllowance) grant(want uint64) uint64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := min(want, a.left)
	a.left -= n
	return n
}

// give returns n bytes to the allowance.
func (a *keepAllowance) give(n uint64) {
	a.mu.Lock()
	a.left += n
	a.mu.Unlock()
}
