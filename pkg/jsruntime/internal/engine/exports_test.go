package engine

import "testing"

// TestEngineKeepsOneInstancePerHotExport checks what an engine holds between calls: a cold export
// is resolved for its call and dropped, and a re-entrant call of a hot export leaves one instance
// kept, not two.
func TestEngineKeepsOneInstancePerHotExport(t *testing.T) {
	e := newTestEngine(t)
	e.w.shed()
	if _, err := e.w.call(exThrowTypeError, e.jsctx, uint64(e.scratch)); err != nil {
		t.Fatal(err)
	}
	exc, err := e.w.call(exGetException, e.jsctx)
	if err != nil {
		t.Fatal(err)
	}
	e.free(exc)
	if e.w.fns[exThrowTypeError] != nil || e.w.fns[exGetException] != nil {
		t.Fatal("a cold export's instance was kept")
	}
	if got := e.w.kept(); got != 1 { // QJS_FreeValue's
		t.Fatalf("%d instances kept, want 1", got)
	}
	// An outer call holds free's kept instance while a re-entrant one runs; each puts its own back.
	outer := e.w.take(exFree)
	if _, err := e.w.call(exFree, 0); err != nil {
		t.Fatal(err)
	}
	inner := e.w.fns[exFree]
	if inner == nil || inner == outer {
		t.Fatal("the re-entrant call did not resolve and keep an instance of its own")
	}
	e.w.put(exFree, outer)
	if e.w.fns[exFree] != inner || e.w.kept() != 2 {
		t.Fatalf("after the outer call: %d instances kept, want free's and QJS_FreeValue's", e.w.kept())
	}
}
