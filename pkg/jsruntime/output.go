package jsruntime

import (
	"fmt"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// output is a cell's unobserved output.
type output struct {
	items []codemode.ContentItem
	// bytes is what items count against the provider's output limit.
	bytes int
	// yields are the item counts at which a yield_control() with no observer to answer set the
	// output apart, oldest first (Codex's pending initial yield; see cellLifecycle.yield): each
	// later yielding observation gets the items up to the next one, and a completion keeps them
	// apart from its Result. A pending observer takes everything at once.
	yields []int
	// budget is the host's memory budget. It pays for the items while no observer has taken them,
	// and for a completed cell's Result until someone claims it (held bytes): charged is what it
	// pays, outputCharge times bytes + held once refund has run. What an observer took is the
	// transport's to charge.
	budget        MemoryBudget
	charged, held int
	// reserved is the part of charged an offered text reserved (cellRun.offer) until it arrives.
	reserved int
}

// outputCharge is what a byte of output costs the budget: a transport sending it holds it about
// three times (the string, the encoded message, the buffer that grew by doubling to hold it; see
// grpchost's sendingCopies), and the budget must have seen that cost before the output is taken,
// or cells that finish together overdraw it when their outcomes are sent.
const outputCharge = 3

// add appends an item of n bytes, whose cost (outputCharge times n) the caller has taken from
// the budget.
func (o *output) add(item codemode.ContentItem, n int) {
	o.items = append(o.items, item)
	o.bytes += n
	o.charged += outputCharge * n
}

// reserve takes the cost of an item of at least n bytes from the budget ahead of the item (a
// reservation left from an earlier offer is given back first), and reports whether it could.
func (o *output) reserve(n int) bool {
	o.reserved = 0
	o.refund()
	if !o.pay(n) {
		return false
	}
	o.charged += outputCharge * n
	o.reserved = outputCharge * n
	return true
}

// pay takes the cost of an item of n bytes from the budget: from the reservation first, then
// refused past the budget, except within the cell's outputGrant, which is charged all the same.
// The caller adds the item (or the reservation) to charged.
func (o *output) pay(n int) bool {
	cost := outputCharge * n
	if o.reserved > 0 {
		used := min(o.reserved, cost)
		o.reserved, o.charged, cost = 0, o.charged-used, cost-used
		o.refund() // what the reservation held beyond the item
	}
	switch {
	case cost == 0:
	case o.charged+cost <= outputGrant:
		o.budget.Charge(int64(cost))
	case !o.budget.Take(int64(cost)):
		return false
	}
	return true
}

// refund gives the budget back what left the output.
func (o *output) refund() {
	if extra := o.charged - o.reserved - outputCharge*(o.bytes+o.held); extra > 0 {
		o.budget.Give(int64(extra))
		o.charged -= extra
	}
}

// releaseHeld gives back what a claimed (or dropped) Result held.
func (o *output) releaseHeld() {
	o.held = 0
	o.refund()
}

// take returns all unobserved output (never nil, so responses carry an empty list).
func (o *output) take() []codemode.ContentItem {
	items := o.takeAll()
	o.refund()
	return items
}

// takeAll is take without the refund.
func (o *output) takeAll() []codemode.ContentItem {
	items := o.items
	o.items, o.bytes, o.yields, o.reserved = nil, 0, nil, 0
	if items == nil {
		items = []codemode.ContentItem{}
	}
	return items
}

// hasYield reports whether output is set apart for a yielding observation.
func (o *output) hasYield() bool { return len(o.yields) > 0 }

// markYield sets the output so far apart for the next yielding observation.
func (o *output) markYield() {
	o.yields = append(o.yields, len(o.items))
}

// takeYield returns the items up to the oldest pending yield, if there is one, and keeps the
// rest.
func (o *output) takeYield() ([]codemode.ContentItem, bool) {
	if len(o.yields) == 0 {
		return nil, false
	}
	n := o.yields[0]
	head := append([]codemode.ContentItem{}, o.items[:n]...)
	o.set(append([]codemode.ContentItem{}, o.items[n:]...))
	o.yields = o.yields[1:]
	for i := range o.yields {
		o.yields[i] -= n
	}
	if len(o.yields) == 0 {
		o.yields = nil
	}
	o.refund()
	return head, true
}

// takeResult returns the items after the last pending yield, for the Result of a cell that
// completed with no observer, and keeps the ones before it, which the pending yields hand out
// (without a pending yield it takes everything). The Result keeps its items until it is claimed,
// so the budget keeps paying for them (releaseHeld).
func (o *output) takeResult() []codemode.ContentItem {
	before := o.bytes
	items := o.splitAfterYields()
	o.held += before - o.bytes
	o.refund()
	return items
}

// splitAfterYields is takeResult without the budget's bookkeeping.
func (o *output) splitAfterYields() []codemode.ContentItem {
	if len(o.yields) == 0 {
		return o.takeAll()
	}
	last := o.yields[len(o.yields)-1]
	tail := append([]codemode.ContentItem{}, o.items[last:]...)
	o.set(append([]codemode.ContentItem{}, o.items[:last]...))
	return tail
}

// set replaces the items and recounts their bytes (the caller refunds).
func (o *output) set(items []codemode.ContentItem) {
	o.items, o.bytes, o.reserved = items, 0, 0
	for _, item := range items {
		o.bytes += itemBytes(item)
	}
}

// itemBytes is what an item counts against the output limit.
func itemBytes(item codemode.ContentItem) int {
	switch it := item.(type) {
	case codemode.InputText:
		return len(it.Text)
	case codemode.InputImage:
		return len(it.ImageURL)
	case codemode.InputAudio:
		return len(it.AudioURL)
	}
	return 0
}

// outputLimitText is the error a helper throws when the cell's unobserved output would exceed
// the provider's limit.
const outputLimitText = "output exceeded the cell's limit of %d bytes not yet observed; wait for the cell or write less"

// outputBudgetText is the error a helper throws when the cell is within its output limit but the
// host's memory budget, shared by every cell, cannot hold the item: the host is full, not the
// cell's output.
const outputBudgetText = "output of %d bytes refused: the code-mode host's memory budget of %d bytes, shared by every cell, is spent; wait for the cell or write less"

// outputGrant is how much a cell's unobserved output may cost (outputCharge) without the budget's
// refusal (it is charged all the same): a host whose budget the other cells spent still lets a small cell
// answer (128 cells overdraw it by 8 MiB at most, within the host's headroom).
const outputGrant = 64 << 10

// append records an item of the running cell's output; it is visible to the next observation at
// once. It refuses an item that would take the unobserved output past limit, or that the host's
// memory budget cannot hold while no observer has taken it.
func (o *output) append(item codemode.ContentItem, limit int) error {
	n := itemBytes(item)
	if o.bytes+n > limit {
		o.reserved = 0
		o.refund()
		return fmt.Errorf(outputLimitText, limit)
	}
	if !o.pay(n) {
		return fmt.Errorf(outputBudgetText, n, o.budget.Limit())
	}
	o.add(item, n)
	return nil
}

// reserveText reserves the budget for a text of at least n bytes that the cell is about to
// append (see cellRun.offer), or refuses it as append would.
func (o *output) reserveText(n int) error {
	if !o.reserve(n) {
		return fmt.Errorf(outputBudgetText, n, o.budget.Limit())
	}
	return nil
}
