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
