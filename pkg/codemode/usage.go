package codemode

// CellUsage is what a cell's runtime spent on it.
type CellUsage struct {
	// PeakHeapBytes is the most memory the cell's runtime held while the cell ran (for the
	// in-process runtime, its wasm linear memory: the prepared image plus what the cell grew it
	// by). Zero when the cell never had a runtime.
	PeakHeapBytes uint64
}

// CellUsageReporter is an optional interface of a Delegate. A session whose runtime measures its
// cells reports each admitted cell's usage there exactly once, just before CellClosed for the same
// cell, so an owner that accounts for the cell at its close has the usage by then. It is a separate
// interface, not an argument of CellClosed, because only runtimes that run cells themselves can
// measure them: a remote transport's client cannot, and its delegates need not change.
//
// CellUsage must not block; it is called on the goroutine that closes the cell.
type CellUsageReporter interface {
	CellUsage(cellID CellID, usage CellUsage)
}

// ReportCellUsage hands usage to d if d implements CellUsageReporter and reports whether it did.
func ReportCellUsage(d Delegate, cellID CellID, usage CellUsage) bool {
	r, ok := d.(CellUsageReporter)
	if ok {
		r.CellUsage(cellID, usage)
	}
	return ok
}

// CellUsageProbe is an optional interface of a Session whose runtime can tell what a live cell
// has used so far: PeakHeapBytes as of its last turn. ok is false for a cell the session does not
// run (unknown, or already closed).
type CellUsageProbe interface {
	LiveCellUsage(cellID CellID) (usage CellUsage, ok bool)
}
