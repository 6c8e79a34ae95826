package grpchost_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if a test leaves a goroutine behind: every session, stream and
// connection a test opened must be gone once its cleanups ran.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
