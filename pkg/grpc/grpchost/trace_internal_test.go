package grpchost

import "testing"

func TestTraceparentsAreValidatedBeforeTheyArePassedOn(t *testing.T) {
	for v, want := range map[string]bool{
		"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01":        true,
		"01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-future": true,
		"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-future": false, // version 00 has no more fields
		"00-00000000000000000000000000000000-00f067aa0ba902b7-01":        false,
		"00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01":        false,
		"ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01":        false,
		"00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01":        false,
		"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7":           false,
		"": false,
	} {
		if got := validTraceparent(v); got != want {
			t.Errorf("validTraceparent(%q) = %v, want %v", v, got, want)
		}
	}
}
