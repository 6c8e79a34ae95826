package grpcclient

import (
	"context"
	"errors"
	"testing"
)

// A cell's next wait waits for every dropped wait of that cell, and only those, until each is
// released.
func TestDroppedWaitsHoldBackOnlyTheirCell(t *testing.T) {
	var d droppedWaits
	releaseFirst := d.drop("1")
	releaseSecond := d.drop("1")
	releaseOther := d.drop("2")
	first := d.pending("1")
	if len(first) != 2 {
		t.Fatalf("cell 1 waits for %d dropped waits, want its 2", len(first))
	}
	releaseFirst()
	if got := d.pending("1"); len(got) != 1 || got[0] != first[1] {
		t.Fatalf("after the first retired, cell 1 waits for %d, want the second only", len(got))
	}
	releaseSecond()
	if got := d.pending("1"); len(got) != 0 {
		t.Fatalf("after both retired, cell 1 still waits for %d", len(got))
	}
	if _, kept := d.cells["1"]; kept {
		t.Fatal("a cell without dropped waits keeps an entry: the map would grow with every cell")
	}
	if got := d.pending("2"); len(got) != 1 {
		t.Fatal("cell 2's dropped wait was lost")
	}
	releaseOther()
}

// await returns at once when nothing is held back or everything was released; it returns the
// caller's cause when the caller left first, and nil when the lease ended first (the caller's
// next check of the binding says why).
func TestDroppedWaitsAwaitEndsWithTheCallerOrTheLease(t *testing.T) {
	var d droppedWaits
	if err := d.await(context.Background(), nil, "1"); err != nil {
		t.Fatalf("await with nothing held back: %v", err)
	}
	release := d.drop("1")
	gone := errors.New("caller gone")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(gone)
	if err := d.await(ctx, nil, "1"); !errors.Is(err, gone) {
		t.Fatalf("await after the caller left: %v, want %v", err, gone)
	}
	lease := make(chan struct{})
	close(lease)
	if err := d.await(context.Background(), lease, "1"); err != nil {
		t.Fatalf("await after the lease ended: %v, want nil", err)
	}
	release()
	if err := d.await(context.Background(), nil, "1"); err != nil {
		t.Fatalf("await after the release: %v", err)
	}
}
