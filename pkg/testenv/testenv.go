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
