package engine

import (
	"path/filepath"
	"sync"
	"testing"
)

// testPrelude is the smallest prelude an engine accepts: begin and deliver record their input
// for take, and describe renders an exception as the cell layer's prelude does, quoted as JSON.
// The engine's tests need nothing of a cell's globals, and a prelude of their own keeps them apart
// from jsruntime's.
var testPrelude = Prelude{File: "test_prelude.js", Argument: "arg", Source: `(function (host, argument) {
  "use strict";
  let queued = "";
  globalThis.bridge = host;
  return {
    begin(input) { queued += "begin " + JSON.stringify(input) + ";" },
    deliver(input) { queued += "deliver " + JSON.stringify(input) + ";" },
    take() { const q = queued; queued = ""; return q },
    describe(e) { return JSON.stringify(e instanceof Error ? String(e) + "\n" + e.stack : String(e)) },
  };
})`}

// testConfig is a Config whose runtimes install testPrelude and see no file system.
func testConfig(t testing.TB) Config {
	return Config{RootDir: filepath.Join(t.TempDir(), "no-filesystem"), Reserve: 4 << 30, Prelude: testPrelude}
}

// sharedImage is the image every test engine adopts: preparing one costs a prelude's installation.
var sharedImage struct {
	once sync.Once
	img  *image
	err  error
}

// newTestEngine returns an engine with testPrelude, disposed when the test ends.
func newTestEngine(t testing.TB) *Engine {
	t.Helper()
	cfg := testConfig(t)
	sharedImage.once.Do(func() {
		first, err := newEngine(cfg, nil)
		if err != nil {
			sharedImage.err = err
			return
		}
		sharedImage.img = first.img
		first.dispose()
	})
	if sharedImage.err != nil {
		t.Fatal(sharedImage.err)
	}
	e, err := newEngine(cfg, sharedImage.img)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.dispose)
	return e
}
