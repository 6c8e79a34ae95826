package codemode

// CellUsage is what a cell's runtime spent on it.
type CellUsage struct {
	// PeakHeapBytes is the most memory the cell's runtime held while the cell ran (for the
	// in-process runtime, its wasm linear memory: the prepared image plus what the cell grew it
	// by). Zero when the cell never had a runtime.
	PeakHeapBytes uint64
}

// CellUsageProbe is an optional interface of a Session whose runtime can tell what a live cell
// has used so far: PeakHeapBytes as of its last turn. ok is false for a cell the session does not
// run (unknown, or already closed).
type CellUsageProbe interface {
	LiveCellUsage(cellID CellID) (usage CellUsage, ok bool)
}
