package engine

import "golang.org/x/sync/semaphore"

// keepResident is how much of what a cell grew its reset may zero in place and keep, so that the
// next cell's heap grows over resident pages (the size the module sees, memory.go): a 1 MiB
// string takes QuickJS about 2.2 MB of heap. Beyond it the pages go back to the system.
const keepResident = 4 << 20

// poolKeepBytes bounds what a pool's engines keep resident above their images at once, whether
// idle or serving a cell: memory no cell is charged for (docs/adr/0058-one-host-wide-memory-
// budget.md), so it stays small beside the budget. A reset keeps pages only if it gets a whole
// keepResident of it.
const poolKeepBytes = 32 << 20

// newKeepAllowance is a pool's share of poolKeepBytes: each engine's reset holds keepResident of
// it, or none, until the engine's next reset or its disposal.
func newKeepAllowance() *semaphore.Weighted { return semaphore.NewWeighted(poolKeepBytes) }

// grantKeep takes keepResident bytes of the allowance for a reset, if they are there.
func grantKeep(a *semaphore.Weighted) uint64 {
	if a.TryAcquire(keepResident) {
		return keepResident
	}
	return 0
}
