package jsruntime

import (
	"reflect"
	"testing"
)

func ids(results []toolResult) []int64 {
	var out []int64
	for _, r := range results {
		out = append(out, r.id)
	}
	return out
}

// signalled reports whether the inbox's signal is pending, taking it.
func signalled(b *resultInbox) bool {
	select {
	case <-b.ready:
		return true
	default:
		return false
	}
}

func TestResultInboxKeepsOrderAndSignalsOnce(t *testing.T) {
	b := newResultInbox()
	if !b.empty() || signalled(&b) {
		t.Fatal("a new inbox is not empty and quiet")
	}
	for id := int64(1); id <= 3; id++ {
		b.put(toolResult{id: id})
	}
	if !signalled(&b) || signalled(&b) {
		t.Fatal("three results did not leave exactly one signal")
	}
	if got := ids(b.takeAll(nil)); !reflect.DeepEqual(got, []int64{1, 2, 3}) {
		t.Fatalf("took %v", got)
	}
	if !b.empty() {
		t.Fatal("not empty after takeAll")
	}
}

// A loop that takes the results without the signal finds it pending, maybe for nothing; a result
// put after the take is never left without one.
func TestResultInboxNeverHoldsAResultWithoutASignal(t *testing.T) {
	b := newResultInbox()
	b.put(toolResult{id: 1})
	got := b.takeAll(nil) // the signal stays
	b.put(toolResult{id: 2})
	if !signalled(&b) {
		t.Fatal("no signal for result 2")
	}
	got = b.takeAll(got)
	if !reflect.DeepEqual(ids(got), []int64{1, 2}) {
		t.Fatalf("took %v", ids(got))
	}
	if signalled(&b) {
		t.Fatal("a second signal for one wake-up's results")
	}
	if got := b.takeAll(nil); len(got) != 0 {
		t.Fatalf("a woken loop found %v in an empty inbox", ids(got))
	}
}
