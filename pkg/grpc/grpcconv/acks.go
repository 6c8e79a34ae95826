package grpcconv

// AcknowledgementsHeader is the OpenSession request header by which a client asks the host to
// wait for AcknowledgeNotification before a notification counts as delivered (value "true").
//
// Codex's host never waits (its client does not acknowledge), so there a cell's completion may
// overtake its notifications, while an in-process session drains them before it completes. A
// client that acknowledges every notification once its delegate handled it sends the header and
// gets the in-process order: a cell completes only after its notifications were handled, and a
// termination can still preempt a completion that waits for them. Codex peers neither send nor
// know it, so it changes nothing between them and codemode.
//
// A host that honours the request answers with the same header on the OpenSession response. A
// client then knows that a Result means its notifications were handled, and hands the Result over
// without waiting for the cell's CellClosed as it must with a host that does not wait.
const AcknowledgementsHeader = "X-Code-Mode-Notification-Acks"
