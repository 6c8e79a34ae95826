package hostprogram

import (
	"math"
	"runtime/debug"

	"github.com/codemodehq/codemode/pkg/internal/membudget"
	"github.com/codemodehq/codemode/pkg/jsruntime"
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

// NewMemoryBudget returns the budget of a process whose resident memory is to stay under total
// bytes, for a program that runs its own runtime (codemode mcp): the cells take from three
// quarters of it, as a host's do (memoryBudget). With the process's Go memory limit
// (ApplyGoMemoryLimit) it is what --memory-budget sets up in codemode-host.
func NewMemoryBudget(total int64) jsruntime.MemoryBudget { return memoryBudget(total) }

// ApplyGoMemoryLimit sets the process's Go memory limit from a budget of total bytes (seven
// eighths of it) unless GOMEMLIMIT is set in getenv's environment, as codemode-host does; the
// program that owns the process calls it, once, before it starts serving.
func ApplyGoMemoryLimit(total int64, getenv func(string) string) { applyGoMemoryLimit(total, getenv) }

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
