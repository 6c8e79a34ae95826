package hostprogram

import (
	"math"
	"runtime/debug"

	"github.com/codemodehq/codemode/pkg/internal/membudget"
)

// DefaultMemoryBudget is --memory-budget when the process's cgroup sets no memory limit.
const DefaultMemoryBudget = 2 << 30

// cgroupShare is the part of a cgroup memory limit --memory-budget defaults to: the rest is left
// to what the host does not count (the kernel's page cache for the process, its stacks) so that
// the container is never OOM-killed.
const cgroupShare = 0.75

// memoryBudget is the host's memory budget of total bytes, the resident memory the host is kept
// under. Three quarters of it is the budget that cells' heaps, their buffered output and
// decompressed requests take from (membudget.Budget); the last quarter is headroom for what no
// budget counts: the Go runtime, the idle runtimes' images, connections and their buffers, the
// copies of a response on its way out and garbage not yet collected.
func memoryBudget(total int64) *membudget.Budget {
	return membudget.New(total / 4 * 3)
}

// defaultMemoryBudget is three quarters of the cgroup's memory limit, or DefaultMemoryBudget.
func defaultMemoryBudget() int64 {
	if limit, ok := membudget.CgroupLimit(); ok {
		return int64(float64(limit) * cgroupShare)
	}
	return DefaultMemoryBudget
}

// goMemoryLimit is the Go runtime's soft memory limit for a host of total bytes: seven eighths of
// it, so that the garbage collector works harder before garbage takes the host past its total
// (the budgeted Go memory, output and decompressed requests, is at most three quarters of it).
func goMemoryLimit(total int64) int64 { return total / 8 * 7 }

// applyGoMemoryLimit sets the Go runtime's soft memory limit from the budget, unless GOMEMLIMIT
// is set in the environment (the operator's choice wins), and returns the limit in force.
func applyGoMemoryLimit(total int64, getenv func(string) string) int64 {
	if getenv("GOMEMLIMIT") != "" {
		return debug.SetMemoryLimit(-1)
	}
	if total <= 0 || total > math.MaxInt64/8 {
		return debug.SetMemoryLimit(-1)
	}
	limit := goMemoryLimit(total)
	debug.SetMemoryLimit(limit)
	return limit
}
