//go:build linux

package engine

import (
	"slices"
	"testing"
)

// touchedPages lists the pages of the page-aligned b that the kernel says may hold data.
func touchedPages(t *testing.T, b []byte) []int {
	t.Helper()
	var pages []int
	if !touchedRuns(b, func(lo, hi int) {
		for p := lo; p < hi; p += pageBytes {
			pages = append(pages, p/pageBytes)
		}
	}) {
		t.Fatal("the kernel's pagemap cannot be read")
	}
	return pages
}

// TestTouchedRunsFollowsThePageTable checks touchedRuns against the kernel on a mapped region:
// only the pages written are reported, as runs, and a page given back is no longer among them.
func TestTouchedRunsFollowsThePageTable(t *testing.T) {
	region, err := reserveRegion(uint64(16 * pageBytes))
	if err != nil {
		t.Fatal(err)
	}
	defer releaseRegion(region)
	if got := touchedPages(t, region); len(got) != 0 {
		t.Fatalf("a fresh region: pages %v hold data, want none", got)
	}
	for _, p := range []int{1, 2, 7, 15} {
		region[p*pageBytes+5] = 1
	}
	var runs [][2]int
	touchedRuns(region, func(lo, hi int) { runs = append(runs, [2]int{lo / pageBytes, hi / pageBytes}) })
	if want := [][2]int{{1, 3}, {7, 8}, {15, 16}}; !slices.Equal(runs, want) {
		t.Fatalf("runs %v, want %v", runs, want)
	}
	discardRegion(region[2*pageBytes : 3*pageBytes])
	if got, want := touchedPages(t, region), []int{1, 7, 15}; !slices.Equal(got, want) {
		t.Fatalf("after giving page 2 back: pages %v hold data, want %v", got, want)
	}
}

// TestResetClearsTouchedImagePagesInPlace checks how a reset treats the image's zero ranges (the
// stack region and all-zero heap pages): the pages a cell touched are cleared in place and stay
// resident up to keepInImage, the rest go back to the system, untouched pages stay untouched, and
// the memory equals the image. A small cell stays within the allowance, so its reset gives nothing
// back; a deep recursion touches more of the stack than the allowance. Each case has an engine of
// its own: reading the memory (matches) maps the zero page into every page it reads.
func TestResetClearsTouchedImagePagesInPlace(t *testing.T) {
	for _, c := range []struct {
		src  string
		deep bool
	}{
		{"globalThis.x = [1, 2, 3].map(String).join()", false},
		{"function f(n) { return n === 0 ? 0 : 1 + f(n - 1) } f(4000)", true},
		{"1 + 1", false},
	} {
		e := newTestEngine(t)
		v, err := e.evalSource("cell.js", c.src)
		if err != nil {
			t.Fatalf("%s: %v", c.src, err)
		}
		e.free(v)
		touchedBefore := e.touchedInZeros(t)
		e.img.restore(e.mem, e.regs)
		kept := e.mem.imageKept
		if got := e.touchedInZeros(t); got != kept {
			t.Fatalf("after %s: %d bytes of the image's zero ranges are resident, want the %d kept", c.src, got, kept)
		}
		if err := e.img.matches(e.mem, e.regs); err != nil {
			t.Fatalf("after %s: %v", c.src, err)
		}
		switch {
		case c.deep && (touchedBefore <= keepInImage || kept != keepInImage):
			t.Fatalf("%s touched %d bytes of the zero ranges and the reset kept %d, want more than %d touched and %d kept",
				c.src, touchedBefore, kept, keepInImage, keepInImage)
		case !c.deep && (kept == 0 || kept != touchedBefore):
			t.Fatalf("%s touched %d bytes of the zero ranges and the reset kept %d, want all of them (and some)", c.src, touchedBefore, kept)
		}
	}
}

// touchedInZeros counts the bytes of whole pages in the image's zero ranges that may hold data.
func (e *Engine) touchedInZeros(t *testing.T) uint64 {
	t.Helper()
	var n uint64
	for _, z := range e.img.zeros {
		b := e.mem.buf[z.from:z.to]
		start, end := pageAlignedSpan(b)
		if start < end {
			n += uint64(len(touchedPages(t, b[start:end]))) * uint64(pageBytes)
		}
	}
	return n
}
