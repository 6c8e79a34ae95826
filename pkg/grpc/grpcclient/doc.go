// Package grpcclient is a codemode.SessionProvider whose sessions live on a remote
// codex.code_mode.v1.CodeModeHost: Codex's gRPC client, in Go, over gRPC (the default), gRPC-Web
// or Connect (Options.Protocol), on connect-go.
//
// A session is a lease on the host (OpenSession) with one catch-all tool subscription. The host's
// callbacks are admitted by Codex's rules before the delegate sees them (docs/protocol/grpc.md#tool-calls): the session
// must match, an invocation ID must be a UUID never seen before (reuse is fatal), a cell belongs to
// one execution (a host that reuses a live cell ID is fatal), a call for a closed execution is
// answered with the closed-cell failure, a call the host already cancelled is dropped, a tool
// must be enabled for its execution with its kind, and at most 1,024 tool calls and notifications
// run at once. Delegate panics and runtime.Goexit are contained and reported. A Result is handed
// over only after the cell's notifications were delivered; a Terminated cancels them.
//
// Every request has a deadline: 60 s for the transport plus, where the host waits on the runtime,
// the yield time and its 1 s grace. A request that times out fails the whole session, because
// the host no longer answers. Failures of the transport read "gRPC code-mode {operation} failed:
// {status}", at most 512 bytes; errors of the runtime on the host (the host's
// FAILED_PRECONDITION) reach the caller with the runtime's own text.
//
// When the lease is lost (the host restarted, the network failed) the session's next operation
// opens a new lease, the next epoch. Stored values and running cells of the lost one are gone
// and its cells are reported closed; cells of epoch N ≥ 2 are named "g<N>:<host ID>", and an
// ID of another epoch fails with ErrStaleEpoch.
//
// Behind a proxy (docs/protocol/grpc.md#routing, docs/scale-out.md) every request of a session carries the route its
// host returned on OpenSession (x-code-mode-route). A failure that says the route was lost
// (x-code-mode-route-lost: true) resets the session: the operation fails with ErrSessionReset and is
// not replayed, and the next one opens the next epoch. OpenSession refused with UNAVAILABLE or
// RESOURCE_EXHAUSTED is tried again, at most 5 attempts in all.
//
// # Glossary
//
//   - lease: one OpenSession on the host and its stream; a binding in the code. A session holds
//     one lease at a time and opens another when the host is lost.
//   - epoch: the number of a session's lease, 1 for the first, one more for each reconnection.
//     Cells of epoch N ≥ 2 are "g<N>:<host ID>" (the "g" and ErrStaleEpoch's text predate the
//     name and stay as callers see them). Not the wire version: V1's generations (G1, G2, G3)
//     name versions of the V1 protocol, which this package does not speak.
//   - wire ID / public ID: a cell's ID as the host names it, and as callers see it in an epoch
//     (PublicCellID, RemoteCellID).
//   - route: the identity of the host that holds the lease behind a proxy (x-code-mode-route);
//     a lost route resets the session (ErrSessionReset).
//   - execution: one Execute request, from its registration to its retirement; its cell is
//     the host's. Its phases and the lease's are tables in lifecycle.go.
//   - callback: a tool call or notification the host sends for a cell, admitted by the rules
//     above before the delegate sees it.
//   - dropped wait: a Wait whose caller left before the answer; the cell's next Wait goes only
//     after the host confirmed its cancellation (CancelWait).
package grpcclient
