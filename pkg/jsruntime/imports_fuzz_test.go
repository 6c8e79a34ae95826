package jsruntime

import (
	"strings"
	"testing"
)

// FuzzPrepareSource checks that the import scan never panics and leaves import-free source alone.
func FuzzPrepareSource(f *testing.F) {
	for _, seed := range []string{
		`import x from "y"`, "a = import('x')", "`${`${import('x')}`}`", "/[/]/.test(s); import('x')",
		"{}\n/`/; import('x'); //`", `"\`, "`${", "/*", "x = a++ / import('q') / 1", "export {a} from 'b'",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, src string) {
		out, _, ok := prepareSource(src)
		if !ok {
			return
		}
		if !strings.Contains(src, "import") && out != src {
			t.Fatalf("source without imports changed: %q -> %q", src, out)
		}
		_ = rewriteGeneratedImports(src)
	})
}
