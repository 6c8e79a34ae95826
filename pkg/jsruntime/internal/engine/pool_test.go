package engine

import "testing"

// TestPoolStatsCountGets checks the counting of Get's outcomes as data: a hit creates nothing, a
// miss creates an engine, and a miss whose creation failed created none.
func TestPoolStatsCountGets(t *testing.T) {
	var s PoolStats
	s.took(false, true)
	s.took(true, true)
	s.took(false, true)
	s.took(true, false)
	if want := (PoolStats{Hits: 2, Misses: 2, Created: 1}); s != want {
		t.Fatalf("stats %+v, want %+v", s, want)
	}
}

// TestPoolCountsHitsAndMisses drives a pool that keeps no engine warm, so that nothing but the
// test's own calls creates engines: a Get finds the first engine (a hit), a second Get while the
// first engine is out creates one (a miss), and after both came back a Get finds one again.
func TestPoolCountsHitsAndMisses(t *testing.T) {
	p := newPool(testConfig(t), newTestEngine(t), 0, 1)
	defer p.Close()
	a, b := get(t, p), get(t, p)
	for _, e := range []*Engine{a, b} {
		p.WillReturn()
		p.Put(e) // the second one finds the pool full (capacity 1) and is disposed
	}
	if p.Idle() != 1 {
		t.Fatalf("%d idle engines, want 1", p.Idle())
	}
	c, err := p.Get()
	if err != nil {
		t.Fatal(err)
	}
	p.WillReturn()
	p.Put(c)
	want := PoolStats{Created: 2, Reused: 3, Hits: 2, Misses: 1}
	if got := p.Stats(); got != want {
		t.Fatalf("stats %+v, want %+v", got, want)
	}
}

// TestResetReusesTheMemoryAboveTheImage checks that the memory a cell sees grows with what it
// allocates, that after a reset it is the image again although the real memory stays as large as
// it grew, that the bytes above the image are zero and those within keepLimit still resident, and
// that the next cell grows over the same pages instead of growing the real memory (memory.go).
func TestResetReusesTheMemoryAboveTheImage(t *testing.T) {
	e := newTestEngine(t)
	image := e.MemoryBytes()
	if image != uint64(e.img.size) {
		t.Fatalf("a fresh engine holds %d bytes, want its image's %d", image, e.img.size)
	}
	allocate := func() {
		t.Helper()
		v, err := e.evalSource("grow.js", "globalThis.keep = new Uint8Array(8 << 20).fill(7)")
		if err != nil {
			t.Fatal(err)
		}
		e.free(v)
	}
	allocate()
	grown := e.MemoryBytes()
	if grown < image+8<<20 {
		t.Fatalf("after an 8 MiB allocation the engine holds %d bytes, want at least %d", grown, image+8<<20)
	}
	real := uint64(len(e.mem.buf))
	e.mem.keepLimit = keepResident
	e.img.restore(e.mem, e.regs)
	if got := e.MemoryBytes(); got != image || uint64(len(e.mem.buf)) != real {
		t.Fatalf("after a reset: the module sees %d bytes in a memory of %d, want the image's %d in the %d it grew to", got, len(e.mem.buf), image, real)
	}
	if err := e.img.matches(e.mem, e.regs); err != nil {
		t.Fatalf("after a reset: %v", err)
	}
	if e.mem.kept != keepResident || e.mem.lastHigh != grown {
		t.Fatalf("the reset kept %d bytes of the cell's %d, want %d", e.mem.kept, e.mem.lastHigh-image, keepResident)
	}
	allocate()
	if got := e.MemoryBytes(); got != grown || uint64(len(e.mem.buf)) != real {
		t.Fatalf("the same allocation again: the module sees %d bytes in a memory of %d, want %d in the same %d", got, len(e.mem.buf), grown, real)
	}
}

// TestPoolBoundsWhatEnginesKeep follows the pool's allowance of resident memory above the images
// (keep.go): an engine whose cell grew 8 MiB keeps keepResident of it after its reset, one the
// full pool disposes of gives its share back, and an engine whose next cell grew nothing keeps
// nothing; the allowance is whole again.
func TestPoolBoundsWhatEnginesKeep(t *testing.T) {
	p := newPool(testConfig(t), newTestEngine(t), 0, 1)
	defer p.Close()
	run := func(e *Engine, src string) {
		t.Helper()
		v, err := e.evalSource("cell.js", src)
		if err != nil {
			t.Fatal(err)
		}
		e.free(v)
		p.WillReturn()
		p.Put(e)
	}
	a, b := get(t, p), get(t, p)
	const grow = "globalThis.keep = new Uint8Array(8 << 20).fill(7)"
	run(a, grow)
	run(b, grow) // the pool is full (capacity 1): b is disposed of
	if a.mem.kept != keepResident || p.keep.left != poolKeepBytes-keepResident {
		t.Fatalf("after two 8 MiB cells: the kept engine holds %d bytes, the allowance has %d left; want %d and %d",
			a.mem.kept, p.keep.left, keepResident, poolKeepBytes-keepResident)
	}
	c := get(t, p)
	if c != a {
		t.Fatalf("Get = %p, want the kept engine %p", c, a)
	}
	run(c, "1 + 1")
	if c.mem.kept != 0 || p.keep.left != poolKeepBytes {
		t.Fatalf("after a cell that grew nothing: the engine keeps %d bytes, the allowance has %d left; want 0 and %d", c.mem.kept, p.keep.left, poolKeepBytes)
	}
}

// A keep allowance never grants more than it has left.
func TestKeepAllowanceGrantsWhatIsLeft(t *testing.T) {
	a := keepAllowance{left: 10}
	if got := a.grant(4); got != 4 || a.left != 6 {
		t.Fatalf("grant(4) = %d, %d left", got, a.left)
	}
	if got := a.grant(8); got != 6 || a.left != 0 {
		t.Fatalf("grant(8) = %d, %d left; want 6 and 0", got, a.left)
	}
	a.give(10)
	if a.left != 10 {
		t.Fatalf("%d left after giving all back", a.left)
	}
}

// get takes an engine from p.
func get(t *testing.T, p *Pool) *Engine {
	t.Helper()
	e, err := p.Get()
	if err != nil {
		t.Fatal(err)
	}
	return e
}
