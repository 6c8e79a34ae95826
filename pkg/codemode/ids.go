package codemode

import (
	"math"
	"strconv"
)

// CellID identifies a cell within its session. Hosts assign decimal counters "1", "2", … per
// session; clients treat IDs as opaque strings.
type CellID string

// String returns the ID as a plain string.
func (id CellID) String() string { return string(id) }

// CellIDAllocator hands out the decimal cell IDs of one session. It is not safe for concurrent use.
type CellIDAllocator struct {
	last uint64
}

// Next returns the next ID, or ErrCellIDSpaceExhausted instead of wrapping around.
func (a *CellIDAllocator) Next() (CellID, error) {
	if a.last == math.MaxUint64 {
		return "", ErrCellIDSpaceExhausted
	}
	a.last++
	return CellID(strconv.FormatUint(a.last, 10)), nil
}

// SetLastForTest positions the allocator so that Next returns last+1. It exists for tests of
// ID exhaustion.
func (a *CellIDAllocator) SetLastForTest(last uint64) { a.last = last }
