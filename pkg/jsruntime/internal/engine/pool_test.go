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
	p := newPool(testConfig(t), newTestEngine(t), 0, 1, 1<<30)
	defer p.Close()
	a, err := p.Get()
	if err != nil {
		t.Fatal(err)
	}
	b, err := p.Get()
	if err != nil {
		t.Fatal(err)
	}
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

// TestMemoryBytesExcludesTheHole checks that a runtime's memory as a cell sees it grows with
// what the cell allocates, and that after a reset it is the image again although the memory
// itself stays as large as it grew (the rest is the hole, memory.go).
func TestMemoryBytesExcludesTheHole(t *testing.T) {
	e := newTestEngine(t)
	image := e.MemoryBytes()
	if image != uint64(e.img.size) {
		t.Fatalf("a fresh engine holds %d bytes, want its image's %d", image, e.img.size)
	}
	v, err := e.evalSource("grow.js", "globalThis.keep = new ArrayBuffer(8 << 20)")
	if err != nil {
		t.Fatal(err)
	}
	e.free(v)
	grown := e.MemoryBytes()
	if grown < image+8<<20 {
		t.Fatalf("after an 8 MiB allocation the engine holds %d bytes, want at least %d", grown, image+8<<20)
	}
	e.img.restore(e.mem, e.regs)
	if got := e.MemoryBytes(); got != image || e.mem.hole == 0 {
		t.Fatalf("after a reset: %d bytes held (hole %d), want the image's %d and a hole", got, e.mem.hole, image)
	}
}
