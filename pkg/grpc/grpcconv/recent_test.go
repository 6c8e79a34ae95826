package grpcconv_test

import (
	"testing"

	"github.com/codemodehq/codemode/pkg/grpc/grpcconv"
)

func TestRecentIDsForgetTheOldestPastTheLimit(t *testing.T) {
	var r grpcconv.RecentIDs[int]
	for i := range grpcconv.MaxRecentIDs {
		if !r.Remember(i) {
			t.Fatalf("Remember(%d) of a new ID reported a reuse", i)
		}
	}
	if r.Remember(0) {
		t.Fatal("Remember of a remembered ID reported it new")
	}
	r.Remember(grpcconv.MaxRecentIDs)
	if r.Contains(0) || !r.Contains(1) || !r.Contains(grpcconv.MaxRecentIDs) {
		t.Fatal("the oldest ID must be forgotten, and only it")
	}
	// A removed and re-remembered ID keeps its new membership when its old slot expires.
	var again grpcconv.RecentIDs[int]
	again.Remember(-1) // slot 0
	if !again.Remove(-1) || again.Remove(-1) || again.Contains(-1) {
		t.Fatal("Remove must end the membership once")
	}
	if !again.Remember(-1) { // slot 1
		t.Fatal("a removed ID is new again")
	}
	for i := range grpcconv.MaxRecentIDs - 1 {
		again.Remember(i) // the last one expires slot 0
	}
	if !again.Contains(-1) {
		t.Fatal("the old slot of a re-remembered ID evicted its new membership")
	}
	again.Remember(grpcconv.MaxRecentIDs) // expires slot 1
	if again.Contains(-1) {
		t.Fatal("the re-remembered ID must expire with its own slot")
	}
}
