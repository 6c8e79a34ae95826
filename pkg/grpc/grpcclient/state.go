package grpcclient

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"

	pb "github.com/codemodehq/codemode/gen/go/pb/codex/code_mode/v1"
	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/grpc/grpcconv"
	"github.com/codemodehq/codemode/pkg/internal/recent"
)

// maxPendingCallbacks bounds the tool calls and notifications a session runs at once (Codex's
// MAX_PENDING_DELEGATE_CALLS, shared by both kinds; docs/protocol/grpc.md#tool-calls), so a host
// cannot make the client hold unbounded work.
const maxPendingCallbacks = 1_024

// admission is what becomes of a callback the host sent.
type admission int

const (
	// admitted: run the delegate.
	admitted admission = iota + 1
	// preCancelled: the host cancelled the invocation before it arrived; drop it silently.
	preCancelled
	// cellClosed: the execution is unknown or retired; answer with the closed-cell failure.
	closedCell
	// rejected: answer with the rejection's reason; the session goes on.
	rejected
)

// callback is the verdict on one tool call or notification.
type callback struct {
	admission admission
	// ctx is the callback's context when admitted: cancelled with the invocation, the cell or the
	// session.
	ctx context.Context
	// reason is the failure a rejected callback is answered with.
	reason string
}

// Fatal errors of the state: the host broke the protocol, and the session fails.
var (
	errInvocationReused   = errors.New("code-mode tool invocation ID was reused")
	errExecutionReused    = errors.New("code-mode execution ID was empty or reused")
	errCallIDMismatch     = errors.New("code-mode notification call ID does not match its execution")
	errToolNameMissing    = errors.New("code-mode enabled tool omitted its tool name")
	errSessionStateClosed = errors.New("code-mode gRPC session is closed")
)

// The rejections a callback is answered with.
const (
	reasonPendingLimit    = "code-mode host exceeded its pending delegate callback limit"
	reasonToolNameMissing = "code-mode tool invocation omitted its tool name"
)

// state is the client's bookkeeping of one lease (Codex's grpc_session SessionState): which
// executions exist and which cell each owns, the callbacks in flight, and the rules that admit a
// callback the host sends. It is not safe for concurrent use; the binding guards it.
type state struct {
	// base is the parent of every callback's context: the lease's.
	base          context.Context
	executions    map[string]*executionRecord
	invocations   map[string]*activeInvocation
	notifications int
	seen          recent.Set[uuid.UUID]
	cancelled     recent.Set[uuid.UUID]
	// life is the lease's phase (lifecycle.go).
	life lifecycle
}

// executionRecord is one Execute from its request to its retirement.
type executionRecord struct {
	cell       codemode.CellID // wire ID, "" until the host names it
	toolCallID string
	// tools maps each enabled tool's canonical name to its kind.
	tools map[toolKey]pb.ToolKind
	// phase is where the execution stands (lifecycle.go).
	phase         execPhase
	notifications int
	// ctx is the notifications' context. Cancelling it means the cell's notifications are
	// settled: cancelled by a termination, or drained after the closure (a Result waits for
	// that).
	ctx    context.Context
	cancel context.CancelFunc
}

// activeInvocation is an admitted tool call.
type activeInvocation struct {
	execution string
	cancel    context.CancelFunc
}

func newState(base context.Context) *state {
	return &state{base: base, executions: make(map[string]*executionRecord), invocations: make(map[string]*activeInvocation)}
}

// requireOpen fails once the lease stopped, with the failure that stopped it. A shutdown being
// asked does not refuse the host's events: they still arrive until the close.
func (st *state) requireOpen() error { return st.life.stoppedErr() }

// acceptCell records the cell the host names for an execution, refusing a change of cell.
func (e *executionRecord) acceptCell(cell string) error {
	if err := grpcconv.CheckHostIdentifier(cell, "cell ID"); err != nil {
		return err
	}
	switch e.cell {
	case "":
		e.cell = codemode.CellID(cell)
	case codemode.CellID(cell):
	default:
		return fmt.Errorf("code-mode execution changed cell ID from %s to %s", e.cell, cell)
	}
	return nil
}

// beginExecution registers an execution before its request is sent, with its enabled tools.
func (st *state) beginExecution(req *pb.ExecuteRequest) error {
	if err := st.requireOpen(); err != nil {
		return err
	}
	if _, dup := st.executions[req.GetExecutionId()]; dup || req.GetExecutionId() == "" {
		return errExecutionReused
	}
	if err := grpcconv.CheckHostIdentifier(req.GetToolCallId(), "tool call ID"); err != nil {
		return err
	}
	tools := make(map[toolKey]pb.ToolKind, len(req.GetEnabledTools()))
	for _, d := range req.GetEnabledTools() {
		if d.GetToolName() == nil {
			return errToolNameMissing
		}
		tools[keyOf(grpcconv.ToolNameFromProto(d.GetToolName()))] = d.GetKind()
	}
	ctx, cancel := context.WithCancel(st.base)
	st.executions[req.GetExecutionId()] = &executionRecord{toolCallID: req.GetToolCallId(), tools: tools, ctx: ctx, cancel: cancel}
	return nil
}

// toolKey is a tool name with the default namespace spelled out, comparable as a map key.
type toolKey struct{ namespace, name string }

func keyOf(n codemode.ToolName) toolKey {
	n = n.WithDefaultNamespace()
	return toolKey{namespace: *n.Namespace, name: n.Name}
}

// admitStarted checks a started event against its execution and records it.
func (st *state) admitStarted(execution string, started *pb.ExecutionStarted) error {
	if err := grpcconv.CheckHostIdentifier(started.GetExecutionId(), "execution ID"); err != nil {
		return err
	}
	if started.GetExecutionId() != execution {
		return fmt.Errorf("gRPC code-mode execution returned ID %s instead of %s", started.GetExecutionId(), execution)
	}
	return st.admitExecution(execution, started.GetCellId())
}

// admitExecution records the started event of an execution.
func (st *state) admitExecution(execution, cell string) error {
	if err := st.requireOpen(); err != nil {
		return err
	}
	if err := st.checkCellOwnership(execution, cell); err != nil {
		return err
	}
	e, ok := st.executions[execution]
	if !ok {
		return fmt.Errorf("unknown code-mode execution %s", execution)
	}
	next, err := e.phase.next(execStart, execution, e.cell)
	if err != nil {
		return err
	}
	if err := e.acceptCell(cell); err != nil {
		return err
	}
	e.phase = next
	return nil
}

// markReady records that the caller holds the execution's StartedCell. It returns the cell if
// that completed its closure.
func (st *state) markReady(execution string) (codemode.CellID, error) {
	if err := st.requireOpen(); err != nil {
		return "", err
	}
	e, ok := st.executions[execution]
	if !ok {
		return "", fmt.Errorf("unknown code-mode execution %s", execution)
	}
	next, err := e.phase.next(execClaim, execution, e.cell)
	if err != nil {
		return "", err
	}
	e.phase = next
	return st.closeIfReady(execution), nil
}

// admitInvocation applies Codex's admission rules, in order, to a ToolCall the host sent; an
// error is fatal. The session check comes before, in the binding.
func (st *state) admitInvocation(call *pb.ToolCall) (callback, error) {
	if err := st.requireOpen(); err != nil {
		return callback{}, err
	}
	id, err := grpcconv.ParseCallbackUUID(call.GetInvocationId(), "tool invocation ID")
	if err != nil {
		return callback{}, err
	}
	if _, active := st.invocations[call.GetInvocationId()]; active || st.seen.Contains(id) {
		return callback{}, errInvocationReused
	}
	if err := st.checkCellOwnership(call.GetExecutionId(), call.GetCellId()); err != nil {
		return callback{}, err
	}
	e, ok := st.executions[call.GetExecutionId()]
	if !ok {
		st.seen.Remember(id)
		st.cancelled.Remove(id)
		return callback{admission: closedCell}, nil
	}
	if err := e.acceptCell(call.GetCellId()); err != nil {
		return callback{}, err
	}
	st.seen.Remember(id)
	wasCancelled := st.cancelled.Remove(id)
	switch {
	case e.phase.closed():
		return callback{admission: closedCell}, nil
	case wasCancelled:
		return callback{admission: preCancelled}, nil
	case call.GetToolName() == nil:
		return callback{admission: rejected, reason: reasonToolNameMissing}, nil
	}
	name := grpcconv.ToolNameFromProto(call.GetToolName()).WithDefaultNamespace()
	if kind, enabled := e.tools[keyOf(name)]; !enabled || kind != call.GetToolKind() {
		return callback{admission: rejected, reason: fmt.Sprintf("code-mode tool %s is not enabled for this execution", name)}, nil
	}
	if len(st.invocations)+st.notifications >= maxPendingCallbacks {
		return callback{admission: rejected, reason: reasonPendingLimit}, nil
	}
	ctx, cancel := context.WithCancel(st.base)
	st.invocations[call.GetInvocationId()] = &activeInvocation{execution: call.GetExecutionId(), cancel: cancel}
	return callback{admission: admitted, ctx: ctx}, nil
}

// admitNotification applies Codex's rules to a Notification; an error is fatal.
func (st *state) admitNotification(n *pb.Notification) (callback, error) {
	if err := st.requireOpen(); err != nil {
		return callback{}, err
	}
	if _, err := grpcconv.ParseCallbackUUID(n.GetNotificationId(), "notification ID"); err != nil {
		return callback{}, err
	}
	if err := grpcconv.CheckHostIdentifier(n.GetCallId(), "notification call ID"); err != nil {
		return callback{}, err
	}
	if err := st.checkCellOwnership(n.GetExecutionId(), n.GetCellId()); err != nil {
		return callback{}, err
	}
	e, ok := st.executions[n.GetExecutionId()]
	if !ok {
		return callback{admission: closedCell}, nil
	}
	if err := e.acceptCell(n.GetCellId()); err != nil {
		return callback{}, err
	}
	if n.GetCallId() != e.toolCallID {
		return callback{}, errCallIDMismatch
	}
	if e.phase.closed() {
		return callback{admission: closedCell}, nil
	}
	if len(st.invocations)+st.notifications >= maxPendingCallbacks {
		return callback{admission: rejected, reason: reasonPendingLimit}, nil
	}
	e.notifications++
	st.notifications++
	return callback{admission: admitted, ctx: e.ctx}, nil
}

// finishNotification records a finished notification; it returns the cell if that completed its
// closure.
func (st *state) finishNotification(execution string) codemode.CellID {
	e, ok := st.executions[execution]
	if !ok || e.notifications == 0 {
		return ""
	}
	e.notifications--
	st.notifications--
	return st.closeIfReady(execution)
}

// settle applies a response to its cell's notifications: a Terminated cancels them; a Result
// returns the channel closed once they were delivered, unless the host waits for
// acknowledgements (acked), which sent the Result after them. Nil means nothing to wait for.
func (st *state) settle(r codemode.RuntimeResponse, acked bool) <-chan struct{} {
	switch {
	case r.Kind == codemode.Terminated:
		st.cancelNotifications(r.CellID)
	case r.Kind == codemode.Result && !acked:
		return st.notificationsSettled(r.CellID)
	}
	return nil
}

// notificationsSettled returns a channel closed once the notifications of cell are settled, or
// nil for a cell without an execution.
func (st *state) notificationsSettled(cell codemode.CellID) <-chan struct{} {
	if e := st.byCell(cell); e != nil {
		return e.ctx.Done()
	}
	return nil
}

// cancelNotifications cancels the notifications of cell (it was terminated).
func (st *state) cancelNotifications(cell codemode.CellID) {
	if e := st.byCell(cell); e != nil {
		e.cancel()
	}
}

// byCell finds the execution that owns cell.
func (st *state) byCell(cell codemode.CellID) *executionRecord {
	for _, e := range st.executions {
		if e.cell == cell {
			return e
		}
	}
	return nil
}

// cancelInvocation records a ToolCallCancelled: an active invocation is cancelled, one not yet
// seen is remembered so its ToolCall, arriving later on its own stream, is dropped.
func (st *state) cancelInvocation(invocation string) error {
	id, err := grpcconv.ParseCallbackUUID(invocation, "tool invocation ID")
	if err != nil {
		return err
	}
	if a, ok := st.invocations[invocation]; ok {
		delete(st.invocations, invocation)
		a.cancel()
	} else if !st.seen.Contains(id) {
		st.cancelled.Remember(id)
	}
	return nil
}

// finishInvocation forgets a tool call that ended.
func (st *state) finishInvocation(invocation string) {
	if a, ok := st.invocations[invocation]; ok {
		delete(st.invocations, invocation)
		a.cancel()
	}
}

// closeCell records a CellClosed. Tool calls of the cell are cancelled at once; notifications may
// still finish. It returns the cell if that completed its closure.
func (st *state) closeCell(c *pb.CellClosed) (codemode.CellID, error) {
	if err := st.requireOpen(); err != nil {
		return "", err
	}
	if err := st.checkCellOwnership(c.GetExecutionId(), c.GetCellId()); err != nil {
		return "", err
	}
	e, ok := st.executions[c.GetExecutionId()]
	if !ok {
		return "", nil
	}
	if err := e.acceptCell(c.GetCellId()); err != nil {
		return "", err
	}
	next, err := e.phase.next(execClose, c.GetExecutionId(), e.cell)
	if err != nil {
		return "", err
	}
	e.phase = next
	if e.notifications == 0 {
		e.cancel()
	}
	st.revokeInvocations(c.GetExecutionId())
	return st.closeIfReady(c.GetExecutionId()), nil
}

// apply moves the lease by ev (failure is a leaseFailed's reason). The first event that stops it
// ends the state, cancelling every callback, and returns each live cell, for its closure to be
// reported.
func (st *state) apply(ev leaseEvent, failure error) []codemode.CellID {
	if !st.life.apply(ev, failure) {
		return nil
	}
	st.notifications = 0
	for id, a := range st.invocations {
		a.cancel()
		delete(st.invocations, id)
	}
	var cells []codemode.CellID
	for id, e := range st.executions {
		e.cancel()
		if e.cell != "" {
			cells = append(cells, e.cell)
		}
		delete(st.executions, id)
	}
	return cells
}

// closeIfReady retires an execution that is done (claimed and closed) and without notifications,
// returning its cell.
func (st *state) closeIfReady(execution string) codemode.CellID {
	e, ok := st.executions[execution]
	if !ok || e.phase != execDone || e.notifications > 0 {
		return ""
	}
	return st.removeExecution(execution)
}

// removeExecution retires an execution (closed, or abandoned by its caller) and returns its cell,
// "" if the host never named one.
func (st *state) removeExecution(execution string) codemode.CellID {
	e, ok := st.executions[execution]
	if !ok {
		return ""
	}
	delete(st.executions, execution)
	st.notifications -= e.notifications
	e.cancel()
	st.revokeInvocations(execution)
	return e.cell
}

// checkCellOwnership refuses a callback of a registered execution that names a cell another live
// execution owns: the host reused a cell ID.
func (st *state) checkCellOwnership(execution, cell string) error {
	if _, ok := st.executions[execution]; !ok {
		return nil
	}
	for id, e := range st.executions {
		if id != execution && e.cell == codemode.CellID(cell) {
			return fmt.Errorf("code-mode host reused active cell ID %s", cell)
		}
	}
	return nil
}

// revokeInvocations cancels the tool calls of an execution.
func (st *state) revokeInvocations(execution string) {
	for id, a := range st.invocations {
		if a.execution == execution {
			a.cancel()
			delete(st.invocations, id)
		}
	}
}
