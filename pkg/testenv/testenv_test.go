package testenv_test

import (
	"os"
	"strings"
	"testing"

	"github.com/codemodehq/codemode/pkg/testenv"
)

// recorder is a testing.TB that records instead of stopping the test.
type recorder struct {
	testing.TB
	fatal, skip string
}

func (r *recorder) Helper()                           {}
func (r *recorder) Fatalf(format string, args ...any) { r.fatal = format }
func (r *recorder) Skip(args ...any)                  { r.skip = args[0].(string) }

func TestSkipUnlessCISkipsOutsideCI(t *testing.T) {
	t.Setenv("CI", "")
	os.Unsetenv("CI") // t.Setenv restores the original value afterwards
	r := &recorder{TB: t}
	testenv.SkipUnlessCI(r, "node missing")
	if r.skip != "node missing" || r.fatal != "" {
		t.Fatalf("skip %q, fatal %q; want a skip only", r.skip, r.fatal)
	}
}

func TestSkipUnlessCIFailsInCI(t *testing.T) {
	t.Setenv("CI", "true")
	r := &recorder{TB: t}
	testenv.SkipUnlessCI(r, "node missing")
	if r.skip != "" || !strings.Contains(r.fatal, "CI=%q is set") {
		t.Fatalf("skip %q, fatal %q; want a failure only", r.skip, r.fatal)
	}
}
