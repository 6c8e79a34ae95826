package recent_test

import (
	"testing"

	"github.com/codemodehq/codemode/pkg/internal/recent"
)

func TestSetForgetsTheOldestKeyFirst(t *testing.T) {
	s := recent.New[int](3)
	for _, k := range []int{1, 2, 3} {
		if !s.Remember(k) {
			t.Fatalf("%d: not new", k)
		}
	}
	if s.Remember(2) {
		t.Fatal("2 was remembered twice")
	}
	if !s.Remember(4) || s.Contains(1) || !s.Contains(2) || !s.Contains(3) || !s.Contains(4) {
		t.Fatal("a full set must forget exactly its oldest key")
	}
	if !s.Remember(1) || s.Contains(2) {
		t.Fatal("after 1 came back, 2 is the oldest and must be forgotten")
	}
}
func TestZeroSetForgetsTheOldestPastTheLimitAndRemoveKeepsNewMemberships(t *testing.T) {
	var r recent.Set[int]
	for i := range recent.Limit {
		if !r.Remember(i) {
			t.Fatalf("Remember(%d) of a new ID reported a reuse", i)
		}
	}
	if r.Remember(0) {
		t.Fatal("Remember of a remembered ID reported it new")
	}
	r.Remember(recent.Limit)
	if r.Contains(0) || !r.Contains(1) || !r.Contains(recent.Limit) {
		t.Fatal("the oldest ID must be forgotten, and only it")
	}
	// A removed and re-remembered ID keeps its new membership when its old slot expires.
	var again recent.Set[int]
	again.Remember(-1) // slot 0
	if !again.Remove(-1) || again.Remove(-1) || again.Contains(-1) {
		t.Fatal("Remove must end the membership once")
	}
	if !again.Remember(-1) { // slot 1
		t.Fatal("a removed ID is new again")
	}
	for i := range recent.Limit - 1 {
		again.Remember(i) // the last one expires slot 0
	}
	if !again.Contains(-1) {
		t.Fatal("the old slot of a re-remembered ID evicted its new membership")
	}
	again.Remember(recent.Limit) // expires slot 1
	if again.Contains(-1) {
		t.Fatal("the re-remembered ID must expire with its own slot")
	}
}
