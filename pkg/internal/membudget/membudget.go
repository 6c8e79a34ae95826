// Package membudget is the host-wide memory budget: one count of the bytes that cells' heaps,
// their buffered output and decompressed requests hold, which every one of them asks before it
// grows. A grow the budget cannot cover is refused, so that many cells within their own caps
// cannot together take more memory than the host has (ADR 58: six heap bombs under 512 MiB
// caps took a host to 2.99 GB).
package membudget

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
)

// Budget counts bytes taken against a limit. Its methods are safe for concurrent use; a nil
// *Budget is no budget at all (every Take succeeds), so code that has none needs no branch.
type Budget struct {
	limit int64
	used  atomic.Int64
}

// New returns a budget of limit bytes.
func New(limit int64) *Budget { return &Budget{limit: limit} }

// Take takes n bytes if the budget still holds them, and reports whether it did. Taking nothing
// always succeeds.
func (b *Budget) Take(n int64) bool {
	if b == nil || n <= 0 {
		return true
	}
	for {
		used := b.used.Load()
		if used+n > b.limit {
			return false
		}
		if b.used.CompareAndSwap(used, used+n) {
			return true
		}
	}
}

// Charge takes n bytes whether or not the budget holds them: for memory that is already
// allocated and cannot be refused any more (a response on its way out), which later Takes must
// see. The budget may then be overdrawn until it is given back.
func (b *Budget) Charge(n int64) {
	if b == nil || n <= 0 {
		return
	}
	b.used.Add(n)
}

// Give gives back n bytes taken (or charged) earlier.
func (b *Budget) Give(n int64) {
	if b == nil || n <= 0 {
		return
	}
	b.used.Add(-n)
}

// Limit is the budget's size in bytes (0 for a nil budget).
func (b *Budget) Limit() int64 {
	if b == nil {
		return 0
	}
	return b.limit
}

// Used is the bytes taken now.
func (b *Budget) Used() int64 {
	if b == nil {
		return 0
	}
	return b.used.Load()
}

// cgroupMemoryMax is where cgroup v2 publishes the memory limit of the process's cgroup (inside a
// container: the container's limit).
const cgroupMemoryMax = "/sys/fs/cgroup/memory.max"

// CgroupLimit returns the memory limit of the process's cgroup v2, and false when there is none
// ("max") or it cannot be read (another OS, cgroup v1).
func CgroupLimit() (int64, bool) {
	data, err := os.ReadFile(cgroupMemoryMax)
	if err != nil {
		return 0, false
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
	if err != nil || n <= 0 {
		return 0, false
	}
	return n, true
}

// ParseBytes reads a byte count: digits, optionally followed by Ki, Mi or Gi (powers of 1024, as
// Kubernetes writes them) or K, M, G (powers of 1000).
func ParseBytes(s string) (int64, error) {
	units := []struct {
		suffix string
		mult   int64
	}{{"Ki", 1 << 10}, {"Mi", 1 << 20}, {"Gi", 1 << 30}, {"K", 1e3}, {"M", 1e6}, {"G", 1e9}}
	mult := int64(1)
	digits := s
	for _, u := range units {
		if d, ok := strings.CutSuffix(s, u.suffix); ok {
			digits, mult = d, u.mult
			break
		}
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil || n < 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("%q is not a byte count like 536870912, 512Mi or 2Gi", s)
	}
	return n * mult, nil
}
