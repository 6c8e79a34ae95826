package engine

import "unsafe"

// pageAlignedSpan returns the offsets of the first and last whole system pages inside b.
func pageAlignedSpan(b []byte) (start, end int) {
	if len(b) == 0 {
		return 0, 0
	}
	addr := addressOf(b)
	page := uintptr(pageBytes)
	first := (addr + page - 1) &^ (page - 1)
	last := (addr + uintptr(len(b))) &^ (page - 1)
	if last <= first {
		return 0, 0
	}
	return int(first - addr), int(last - addr)
}

// addressOf is the address of b's first byte.
func addressOf(b []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(b))) }
