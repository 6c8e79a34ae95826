//go:build linux

package engine

import (
	"syscall"
)

// pageBytes is the system page size that region boundaries are rounded to.
var pageBytes = syscall.Getpagesize()

// reserveRegion maps n bytes of address space, read-write, without committing or reserving swap:
// pages cost memory only once touched.
func reserveRegion(n uint64) ([]byte, error) {
	return syscall.Mmap(-1, 0, int(n), syscall.PROT_READ|syscall.PROT_WRITE,
		syscall.MAP_PRIVATE|syscall.MAP_ANONYMOUS|syscall.MAP_NORESERVE)
}

// discardRegion zeroes b and gives its whole pages back to the system (the partial pages at its
// ends are cleared in place).
func discardRegion(b []byte) {
	start, end := pageAlignedSpan(b)
	if start >= end {
		clear(b)
		return
	}
	clear(b[:start])
	clear(b[end:])
	if err := syscall.Madvise(b[start:end], syscall.MADV_DONTNEED); err != nil {
		clear(b[start:end])
	}
}

func releaseRegion(b []byte) { _ = syscall.Munmap(b) }
