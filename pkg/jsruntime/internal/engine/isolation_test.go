package engine

import (
	"os"
	"testing"

	"github.com/fastschema/qjs"
)

// TestEngineHasNoFileSystem checks the layer below the import blocking: QuickJS's std and os
// modules, reached from Go without the prelude's guards, see no files and no environment.
func TestEngineHasNoFileSystem(t *testing.T) {
	e := newTestEngine(t)
	os.Setenv("CODEMODE_ESCAPE_TEST", "leaked")
	defer os.Unsetenv("CODEMODE_ESCAPE_TEST")
	c := e.rt.Context()
	v, err := c.Eval("probe.js", qjs.Code(`
globalThis.found = [];
Promise.all([import("qjs:std"), import("qjs:os")]).then(([std, os]) => {
  for (const p of ["/etc/passwd", "../../../../etc/passwd", "/proc/self/environ", "go.mod", "/go.mod"]) {
    if (std.loadFile(p) !== null) found.push(p);
  }
  const f = std.open("/created.txt", "w");
  if (f) found.push("created");
  if (std.getenv("CODEMODE_ESCAPE_TEST") !== undefined) found.push("env");
  const [names, errno] = os.readdir("/");
  if (errno === 0) found.push("readdir");
  found.push("checked");
}, (e) => found.push("import failed " + e));
undefined`))
	if err != nil {
		t.Fatal(err)
	}
	v.Free()
	v, err = c.Eval("result.js", qjs.Code(`JSON.stringify(found)`))
	if err != nil {
		t.Fatal(err)
	}
	defer v.Free()
	if got := v.String(); got != `["checked"]` {
		t.Fatalf("reachable: %s", got)
	}
}
