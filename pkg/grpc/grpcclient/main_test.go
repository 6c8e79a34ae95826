package grpcclient_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if a test leaves a goroutine behind: sessions, streams, hosts and
// connections must all be gone once the tests' cleanups ran.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
