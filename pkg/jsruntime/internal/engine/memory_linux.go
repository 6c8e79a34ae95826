//go:build linux

package engine

import (
	"encoding/binary"
	"os"
	"sync"
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

// pagemap is the process's page table as the kernel shows it, opened once; nil where it cannot
// be read (resets then give every page of a range back, as they did before it was used).
var pagemap = sync.OnceValue(func() *os.File {
	f, err := os.Open("/proc/self/pagemap")
	if err != nil {
		return nil
	}
	return f
})

// A pagemap entry is 64 bits per page; these two say the page holds data: it is in memory, or it
// was swapped out (and would come back with its data). A page with neither reads as zero.
const (
	pagemapPresent = 1 << 63
	pagemapSwapped = 1 << 62
	pagemapEntry   = 8
)

// pagemapBatch is how many pages' entries one read asks for: an image's stack region in one.
const pagemapBatch = 2048

// pagemapScratch holds the entries of one read, shared by the resets of every engine.
var pagemapScratch = sync.Pool{New: func() any { return new([pagemapBatch * pagemapEntry]byte) }}

// touchedRuns calls f with each run [lo, hi) of byte offsets of b's pages that may hold data
// (pageTouched), b being page-aligned, and reports whether the kernel could tell. It makes no call that changes the page table, so, unlike madvise, it costs the
// process's other threads nothing (docs/adr/0076-a-reset-without-page-table-changes.md).
func touchedRuns(b []byte, f func(lo, hi int)) bool {
	pm := pagemap()
	if pm == nil || len(b) == 0 {
		return pm != nil
	}
	scratch := pagemapScratch.Get().(*[pagemapBatch * pagemapEntry]byte)
	defer pagemapScratch.Put(scratch)
	first := addressOf(b) / uintptr(pageBytes)
	pages := len(b) / pageBytes
	runStart := -1
	for at := 0; at < pages; at += pagemapBatch {
		n := min(pagemapBatch, pages-at)
		entries := scratch[:n*pagemapEntry]
		if got, err := pm.ReadAt(entries, int64(first+uintptr(at))*pagemapEntry); err != nil || got != len(entries) {
			return false
		}
		for i := range n {
			touched := pageTouched(binary.LittleEndian.Uint64(entries[i*pagemapEntry:]))
			switch page := at + i; {
			case touched && runStart < 0:
				runStart = page
			case !touched && runStart >= 0:
				f(runStart*pageBytes, page*pageBytes)
				runStart = -1
			}
		}
	}
	if runStart >= 0 {
		f(runStart*pageBytes, pages*pageBytes)
	}
	return true
}

// pageTouched reports whether a page with pagemap entry e may hold data.
func pageTouched(e uint64) bool { return e&(pagemapPresent|pagemapSwapped) != 0 }
