// Package testenv decides what a test does when the machine lacks something it needs (node,
// node_modules, a tool): skip on a developer's machine, fail in CI.
package testenv

import (
	"os"
	"testing"
)

// SkipUnlessCI skips the test for reason, a missing dependency, unless the environment
// variable CI is set (GitHub Actions and most CI systems set CI=true): CI machines are
// provisioned with every dependency, so there a missing one must fail the test rather than let
// it pass without running.
func SkipUnlessCI(t testing.TB, reason string) {
	t.Helper()
	if ci, set := os.LookupEnv("CI"); set {
		t.Fatalf("%s (CI=%q is set, so a missing dependency fails instead of skipping)", reason, ci)
		return
	}
	t.Skip(reason)
}

// External marks a test that runs another implementation or an outside service (Codex's binaries,
// node, buf curl, HAProxy): with -short (make test-short) it is skipped, so the quick run needs
// nothing but Go and this module. Without -short it does nothing; the caller then locates what,
// skipping or failing as SkipUnlessCI decides.
func External(t testing.TB, what string) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: needs " + what)
	}
}

// Long marks a soak or a test that moves large volumes (what says which): with -short (make
// test-short) it is skipped, so the quick run stays under two minutes on two cores; make test
// runs it.
func Long(t testing.TB, what string) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: " + what)
	}
}
