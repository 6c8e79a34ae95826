// Package metrics makes a Code Mode host observable: it decorates a codemode.SessionProvider (and
// so every Session and Delegate it hands out) to count sessions, cells by outcome, tool calls,
// notifications and the bytes that cross between cells and the host, in Prometheus metrics, and
// to write one structured log line per session opened and closed, per cell finished, per tool
// call that failed or timed out and per request refused. docs/operations.md lists every metric
// with its labels and every log line with its fields.
//
// The decorator sees only the domain contract (pkg/codemode), so it works on any provider; on the
// in-process runtime it sits between the runtime and the session's delegate, where every nested
// tool call passes. It forwards every call of the one delegate contract in the order it comes
// (docs/adr/0066-one-delegate-contract.md), so the runtime takes the same path with and without
// it, and it observes responses through codemode.Observer, which a session calls in the cell's
// order of events and which costs no goroutine. A runtime that measures its cells reports each
// one's peak heap through Delegate.CellUsage, which the decorator keeps, and a live cell's
// through codemode.CellUsageProbe on the session; the pool's counters come from
// Options.PoolStats.
//
// No label carries an unbounded value: sessions and cells are named in log lines and in the
// /debug/sessions snapshot, never in a metric's labels. Nothing a cell computes, no source, tool
// input, result, output or error text, is logged.
package metrics
