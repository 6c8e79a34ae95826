package v1transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"github.com/codemodehq/codemode/gen/go/wirev1"
	"github.com/codemodehq/codemode/pkg/v1/v1frame"
)

// Queue bounds (docs/protocol/v1.md#limits): the control queue, which is the only queue of a single connection,
// and the bulk queue of a dual connection.
const (
	ControlQueueFrames = 128
	BulkQueueFrames    = 1024
)

// ErrQueueFull is returned by TrySend when the lane's queue has no room; the link has then
// failed with it (a peer that does not read must not make the other side buffer without bound).
var ErrQueueFull = errors.New("outgoing queue is full")

// Side names the party at the other end of a Link with the word of the pinned error texts ("code-mode
// client sent a message on the wrong websocket lane", docs/protocol/v1.md#websocket-and-lanes).
type Side string

// The two parties.
const (
	SideClient Side = "client"
	SideHost   Side = "host"
)

// Link runs a Conn for one driver: In is the decoded type of incoming messages
// (wirev1.ClientToHost on a host, wirev1.HostToClient on a client).
type Link[In wirev1.Message] struct {
	conn   Conn
	peer   Side
	decode func([]byte) (In, error)

	inbox [3]chan inbound[In] // by lane
	queue [3]chan []byte      // by lane; on a single connection everything uses LaneControl
	// writing serialises writes per lane: the lane's writer goroutine holds it for each queued
	// frame, and a sender that finds the lane idle (lock free, queue empty) writes itself,
	// saving a goroutine handoff per message.
	writing [3]sync.Mutex
	// queued counts, per lane, the frames handed to the queue and not yet written.
	queued [3]atomic.Int64
	// Flush queues a barrier (a nil frame) per lane: barriers[lane] counts those queued (under
	// flushMu), reached[lane] those the writer has passed; the writer then leaves a token in
	// flushed[lane] without waiting, and a flusher rechecks reached.
	flushMu  sync.Mutex
	barriers [3]uint64
	reached  [3]atomic.Uint64
	flushed  [3]chan struct{}

	// startReading starts the reader goroutine of a single connection's one lane, in the mode of
	// the first of Next or Serve (a dual connection's readers start with the link).
	startReading sync.Once
	// serving is held while Serve's handler runs on a single connection's reader goroutine;
	// serveStopped (under serving) tells the reader to call the handler no more.
	serving      sync.Mutex
	serveStopped bool
	// serve is what Serve's reader runs with, for a successor started by Relay; handling is the
	// handler running now (under serving), which Relay marks relayed.
	serve    serveRun[In]
	handling *handling

	done    chan struct{}
	closeMu sync.Once
	errMu   sync.Mutex
	err     error
	readers sync.WaitGroup
	writers sync.WaitGroup

	// budget, when set (WithBudget), is charged for every frame from when it is sent until it is
	// written; held is what the link's frames hold of it now, given back by Wait for frames
	// that were never written.
	budget Budget
	held   atomic.Int64
}

// Budget is a memory budget a link charges for the frames it holds (membudget.Budget implements
// it): a peer that stops reading makes the sender hold every frame it still has to write.
type Budget interface {
	// Charge takes n bytes even past the budget: the frame exists already.
	Charge(n int64)
	// Give gives back n bytes charged earlier.
	Give(n int64)
}

// LinkOption configures a Link.
type LinkOption func(*linkOptions)

type linkOptions struct{ budget Budget }

// WithBudget charges b for the frames the link holds: FrameCharge times each frame's size, from
// Send until the frame is written (or dropped when the link ends). The charge is never refused
// (docs/adr/0059-*.md): the frame exists already, and what the budget refuses meanwhile is
// what would grow further, cells' heaps and output.
func WithBudget(b Budget) LinkOption { return func(o *linkOptions) { o.budget = b } }

// FrameCharge is how many times its size a frame costs the budget while the link holds it: the
// frame, its buffer's spare capacity (it grew by doubling) and the message it was encoded from,
// which its sender holds until the send returns; as the gRPC host charges a response it sends
// (docs/adr/0058-one-host-wide-memory-budget.md).
const FrameCharge = 3

type inbound[In any] struct {
	msg In
	err error
}

// NewLink starts the link's reader and writer goroutines. peer is who sends what this side
// reads. decode turns a payload into a message; its error is wrapped into Codex's "failed to
// decode code-mode IPC frame: …", which is invalid data (errors.Is v1frame.ErrInvalidData) like a
// malformed frame.
func NewLink[In wirev1.Message](conn Conn, peer Side, decode func([]byte) (In, error), opts ...LinkOption) *Link[In] {
	var o linkOptions
	for _, opt := range opts {
		opt(&o)
	}
	l := &Link[In]{conn: conn, peer: peer, decode: decode, done: make(chan struct{}), budget: o.budget}
	lanes := []wirev1.Lane{wirev1.LaneControl}
	if conn.Dual() {
		lanes = append(lanes, wirev1.LaneBulk)
	}
	for _, lane := range lanes {
		size := ControlQueueFrames
		if lane == wirev1.LaneBulk {
			size = BulkQueueFrames
		}
		l.inbox[lane] = make(chan inbound[In], 1)
		l.queue[lane] = make(chan []byte, size)
		l.flushed[lane] = make(chan struct{}, 1)
		l.writers.Add(1)
		go l.write(lane)
	}
	if conn.Dual() {
		// Each lane has its reader from the start, so that control never waits behind bulk.
		l.startReading.Do(func() {})
		for _, lane := range lanes {
			l.readers.Add(1)
			go l.read(lane)
		}
	}
	return l
}

// readInbox starts the single lane's reader in Next's mode (decoded messages go to the inbox),
// unless a reader already runs.
func (l *Link[In]) readInbox() {
	l.startReading.Do(func() {
		l.readers.Add(1)
		go l.read(wirev1.LaneControl)
	})
}

// Dual reports whether the link runs a dual connection.
func (l *Link[In]) Dual() bool { return l.conn.Dual() }

// Done is closed once the link has failed or was closed.
func (l *Link[In]) Done() <-chan struct{} { return l.done }

// Err is the reason the link ended, nil while it runs. A clean end of input is io.EOF.
func (l *Link[In]) Err() error {
	l.errMu.Lock()
	defer l.errMu.Unlock()
	return l.err
}

// Close ends the link with err (the first reason wins), closes the Conn, and waits for the
// writer goroutines. Readers return once the closed Conn unblocks their read; Wait waits for
// them too.
func (l *Link[In]) Close(err error) {
	l.fail(err)
	l.writers.Wait()
}

// Wait waits until every goroutine of a closed link has returned, and gives the budget back what
// frames never written still held (the caller has no sender left by then).
func (l *Link[In]) Wait() {
	<-l.done
	l.writers.Wait()
	l.readers.Wait()
	if n := l.held.Swap(0); n > 0 {
		l.budget.Give(n)
	}
}

// hold charges the budget for frame f and returns the charge, for release once f is written or
// dropped.
func (l *Link[In]) hold(f []byte) int64 {
	if l.budget == nil {
		return 0
	}
	n := FrameCharge * int64(len(f))
	l.held.Add(n)
	l.budget.Charge(n)
	return n
}

// release gives back a charge of hold.
func (l *Link[In]) release(n int64) {
	if l.budget == nil || n == 0 {
		return
	}
	l.held.Add(-n)
	l.budget.Give(n)
}

// frameCharge is what hold charged for f.
func (l *Link[In]) frameCharge(f []byte) int64 {
	if l.budget == nil {
		return 0
	}
	return FrameCharge * int64(len(f))
}

func (l *Link[In]) fail(err error) {
	l.closeMu.Do(func() {
		l.errMu.Lock()
		l.err = err
		l.errMu.Unlock()
		close(l.done)
		if rc, ok := l.conn.(ReasonCloser); ok && err != nil && !errors.Is(err, io.EOF) {
			_ = rc.CloseWithReason(err)
			return
		}
		_ = l.conn.Close()
	})
}

// read decodes the frames of one lane until the lane fails.
func (l *Link[In]) read(lane wirev1.Lane) {
	defer l.readers.Done()
	for {
		in := l.readOne(lane)
		select {
		case l.inbox[lane] <- in:
		case <-l.done:
			return
		}
		if in.err != nil {
			return
		}
	}
}

func (l *Link[In]) readOne(lane wirev1.Lane) inbound[In] {
	payload, err := l.conn.ReadFrame(lane)
	if err != nil {
		return inbound[In]{err: err}
	}
	msg, err := l.decode(payload)
	if err != nil {
		return inbound[In]{err: &decodeError{err: err}}
	}
	if l.conn.Dual() && wirev1.LaneOf(msg) != lane {
		return inbound[In]{err: fmt.Errorf("code-mode %s sent a message on the wrong websocket lane", l.peer)}
	}
	return inbound[In]{msg: msg}
}

// Next returns the next incoming message, control before bulk: a bulk message is returned only
// when no control message is waiting. A lane's error (io.EOF for a clean end) is returned once
// and the caller should then Close the link. Next also returns when ctx ends or the link closes.
func (l *Link[In]) Next(ctx context.Context) (In, error) {
	l.readInbox()
	var zero In
	control, bulk := l.inbox[wirev1.LaneControl], l.inbox[wirev1.LaneBulk]
	select {
	case in := <-control:
		return in.msg, in.err
	default:
	}
	select {
	case in := <-control:
		return in.msg, in.err
	case in := <-bulk: // nil on a single connection: never ready
		return in.msg, in.err
	case <-ctx.Done():
		return zero, ctx.Err()
	case <-l.done:
		return zero, l.closedErr()
	}
}

// Serve calls handle with every incoming message, in order, control before bulk as Next returns
// them, until handle returns an error, a lane fails (io.EOF for a clean end), ctx ends or the
// link closes, and returns that reason. Once Serve has returned, handle is not running and is
// not called again. handle should not block for long: while it runs, no further message is
// handled.
//
// On a single connection handle runs on the reader goroutine itself, right after the frame was
// read and decoded, which saves a goroutine handoff per message (the reader does not read ahead
// while handle runs). A link is driven either by Serve or by Next, not both.
func (l *Link[In]) Serve(ctx context.Context, handle func(In) error) error {
	if l.conn.Dual() {
		for {
			msg, err := l.Next(ctx)
			if err == nil {
				err = handle(msg)
			}
			if err != nil {
				return err
			}
		}
	}
	result := make(chan error, 1)
	started := false
	l.startReading.Do(func() {
		started = true
		l.serve = serveRun[In]{ctx: ctx, handle: handle, result: result}
		l.readers.Add(1)
		go l.readAndHandle(l.serve)
	})
	if !started {
		return errors.New("v1transport: Serve on a link that is already read")
	}
	var err error
	select {
	case err = <-result:
		return err
	case <-ctx.Done():
		err = ctx.Err()
	case <-l.done:
		err = l.closedErr()
	}
	// Wait for a handler that is running, and let none start after this.
	l.serving.Lock()
	l.serveStopped = true
	l.serving.Unlock()
	select {
	case herr := <-result: // the reader stopped on its own meanwhile: its reason is the real one
		return herr
	default:
		return err
	}
}

// serveRun is what a single connection's reader in Serve's mode runs with.
type serveRun[In any] struct {
	ctx    context.Context
	handle func(In) error
	result chan<- error
}

// handling is one call of Serve's handler; relayed is set (under serving) when Relay handed the
// reading on while it runs.
type handling struct{ relayed bool }

// readAndHandle is a single connection's reader in Serve's mode: it calls handle itself, unless
// Serve has ended or is about to (ctx ended, the link closed). A reader whose handler relayed
// (Relay) returns once the handler does.
func (l *Link[In]) readAndHandle(run serveRun[In]) {
	defer l.readers.Done()
	for {
		in := l.readOne(wirev1.LaneControl)
		l.serving.Lock()
		if l.serveStopped || (in.err == nil && (run.ctx.Err() != nil || l.isDone())) {
			l.serving.Unlock()
			return
		}
		err := in.err
		if err == nil {
			h := &handling{}
			l.handling = h
			err = run.handle(in.msg)
			if h.relayed {
				// A successor reads now and holds serving for its own handlers. An error of this
				// handler still ends the link.
				if err != nil {
					l.fail(err)
				}
				return
			}
			l.handling = nil
		} else if l.isDone() {
			err = l.closedErr() // the read failed because the link was closed: say why
		}
		if err != nil {
			l.serveStopped = true
			run.result <- err
		}
		l.serving.Unlock()
		if err != nil {
			return
		}
	}
}

// Relay, called by Serve's handler on a single connection while it runs on the reader, starts a
// new reader that reads and handles the next messages while this handler goes on; the handler's
// goroutine stops reading once the handler returns. A handler that turns out to take long (a cell's
// turn run on the reader, docs/adr/0075-a-round-trip-on-one-thread.md) relays so that the
// connection is still read meanwhile: its next messages may then be handled before it returns.
// Call it at most once per handler call, on the handler's goroutine (from then on the successor
// owns the reading); on a dual connection it does nothing.
func (l *Link[In]) Relay() {
	h := l.handling
	if h == nil || h.relayed || l.conn.Dual() {
		return
	}
	h.relayed = true
	l.handling = nil
	l.readers.Add(1)
	go l.readAndHandle(l.serve)
	l.serving.Unlock()
}

// RunsTurns reports whether Serve's handler may take on a cell's turn and the message it sends
// (docs/adr/0075-a-round-trip-on-one-thread.md): on a single connection, whose reader runs the
// handler and can relay (Relay), over a stream that can tell whether a frame goes out without
// waiting (TrySendNow). A dual connection's handler runs apart from its readers.
func (l *Link[In]) RunsTurns() bool {
	s, ok := l.conn.(interface{ tellsRoom() bool })
	return ok && s.tellsRoom() && !l.conn.Dual()
}

// ReadAhead reports whether the connection holds received bytes not yet handled: a handler that
// could take long should leave the reader free then.
func (l *Link[In]) ReadAhead() bool {
	b, ok := l.conn.(interface{ buffered() int })
	return ok && b.buffered() > 0
}

func (l *Link[In]) isDone() bool {
	select {
	case <-l.done:
		return true
	default:
		return false
	}
}

func (l *Link[In]) closedErr() error {
	if err := l.Err(); err != nil {
		return err
	}
	return io.EOF
}

// Encode frames m. It fails when the encoding exceeds the frame limit, before anything is
// queued, so the caller can send a smaller replacement.
func Encode(m wirev1.Message) ([]byte, error) {
	return v1frame.Seal(m.AppendJSON(v1frame.Reserve(make([]byte, 0, encodedSizeHint(m)))))
}

// encodedSizeHint is room enough for m's frame when m carries a large tool input, so that the
// input is copied into the frame once (growing the buffer past it would copy it again; ADR 62);
// other messages start small.
func encodedSizeHint(m wirev1.Message) int {
	const envelope = 512 // the ids, the tool's name and the keys around the input
	if d, ok := m.(wirev1.DelegateRequestMessage); ok {
		if call, ok := d.Request.(wirev1.ToolInvoke); ok {
			return v1frame.HeaderBytes + envelope + len(call.Invocation.Input) + len(call.Invocation.ToolName.Name)
		}
	}
	return 0
}

// lane is where m travels: its lane on a dual connection, the one stream otherwise.
func (l *Link[In]) lane(m wirev1.Message) wirev1.Lane {
	if l.conn.Dual() {
		return wirev1.LaneOf(m)
	}
	return wirev1.LaneControl
}

// Send encodes m and queues it, waiting for room in its lane's queue. Encoding errors are
// returned as they are (see Encode); a link that ended returns its reason.
func (l *Link[In]) Send(ctx context.Context, m wirev1.Message) error {
	f, err := Encode(m)
	if err != nil {
		return err
	}
	return l.SendFrame(ctx, l.lane(m), f)
}

// SendFrame queues an encoded frame on lane, waiting for room. When the lane is idle it writes
// the frame at once instead, in order with everything queued before.
func (l *Link[In]) SendFrame(ctx context.Context, lane wirev1.Lane, f []byte) error {
	select {
	case <-l.done:
		return l.closedErr()
	default:
	}
	n := l.hold(f)
	if l.writeIfIdle(lane, f, nil) {
		l.release(n)
		return nil
	}
	l.queued[lane].Add(1)
	select {
	case l.queue[lane] <- f:
		return nil // the writer releases it
	case <-ctx.Done():
		l.queued[lane].Add(-1)
		l.release(n)
		return ctx.Err()
	case <-l.done:
		l.queued[lane].Add(-1)
		l.release(n)
		return l.closedErr()
	}
}

// TrySendNow writes m at once when that cannot wait: nothing is queued or being written on its
// lane and the connection can take the whole frame now (a pipe with room for it). commit, if not
// nil, is called then, before the write and with the lane held, and may still skip the write by
// returning false (the message is no longer wanted). TrySendNow reports false, having called and
// sent nothing, when the frame cannot go out at once, and the caller sends m as usual; a goroutine
// that must not wait on its peer (a connection's reader,
// docs/adr/0075-a-round-trip-on-one-thread.md) may send this way. Encoding errors are returned as
// Send returns them; a failed write fails the link, as any write does.
func (l *Link[In]) TrySendNow(m wirev1.Message, commit func() bool) (bool, error) {
	now, ok := l.conn.(interface{ canWriteNow(n int) bool })
	if !ok || l.isDone() {
		return false, nil
	}
	f, err := Encode(m)
	if err != nil {
		return false, err
	}
	skipped := false
	written := l.writeIfIdle(l.lane(m), f, func() bool {
		if !now.canWriteNow(len(f)) {
			return false
		}
		skipped = commit != nil && !commit()
		return !skipped
	})
	return written || skipped, nil
}

// TrySend encodes m and queues it only if its lane's queue has room at once; otherwise the
// link fails with ErrQueueFull. For senders that must never block, such as a read loop.
func (l *Link[In]) TrySend(m wirev1.Message) error {
	f, err := Encode(m)
	if err != nil {
		return err
	}
	// No direct write here: the caller must not wait for the peer to read.
	lane := l.lane(m)
	n := l.hold(f)
	l.queued[lane].Add(1)
	select {
	case <-l.done:
		l.queued[lane].Add(-1)
		l.release(n)
		return l.closedErr()
	case l.queue[lane] <- f:
		return nil
	default:
		l.queued[lane].Add(-1)
		l.release(n)
		err := fmt.Errorf("code-mode %s outgoing queue is full: %w", l.self(), ErrQueueFull)
		l.fail(err)
		return err
	}
}

// self is this side's name.
func (l *Link[In]) self() Side {
	if l.peer == SideClient {
		return SideHost
	}
	return SideClient
}

// writeIfIdle writes f on lane when no frame is queued or being written there and admit, if not
// nil, admits it (called with the lane held). A write error fails the link; the frame counts as
// handled either way.
func (l *Link[In]) writeIfIdle(lane wirev1.Lane, f []byte, admit func() bool) bool {
	mu := &l.writing[lane]
	if !mu.TryLock() {
		return false
	}
	if l.queued[lane].Load() > 0 || (admit != nil && !admit()) {
		mu.Unlock()
		return false
	}
	err := l.conn.WriteFrame(lane, f)
	mu.Unlock()
	if err != nil {
		l.fail(fmt.Errorf("failed to write code-mode %s message: %w", l.self(), err))
	}
	return true
}

// Flush returns once every frame sent before the call has been written to the Conn, on every
// lane, or with ctx's error, or with the link's reason when it ended first. A host that ends a
// connection on purpose flushes first, so that its last messages (cell/closed) reach the peer
// before the Conn closes; Close alone drops what is still queued.
func (l *Link[In]) Flush(ctx context.Context) error {
	l.flushMu.Lock()
	defer l.flushMu.Unlock()
	for lane, q := range l.queue {
		if q == nil {
			continue
		}
		if err := l.flushLane(ctx, lane, q); err != nil {
			return err
		}
	}
	return nil
}

// flushLane queues a barrier (a nil frame) behind the lane's frames and waits for the writer to
// pass it. Counting it in queued keeps senders from writing past it directly.
func (l *Link[In]) flushLane(ctx context.Context, lane int, q chan []byte) error {
	l.queued[lane].Add(1)
	select {
	case q <- nil:
		l.barriers[lane]++
	case <-ctx.Done():
		l.queued[lane].Add(-1)
		return fmt.Errorf("flushing the code-mode %s link: %w", l.self(), ctx.Err())
	case <-l.done:
		l.queued[lane].Add(-1)
		return l.closedErr()
	}
	ticket := l.barriers[lane]
	for l.reached[lane].Load() < ticket {
		select {
		case <-l.flushed[lane]:
		case <-ctx.Done():
			return fmt.Errorf("flushing the code-mode %s link: %w", l.self(), ctx.Err())
		case <-l.done:
			return l.closedErr()
		}
	}
	return nil
}

// write drains one lane's queue into the Conn.
func (l *Link[In]) write(lane wirev1.Lane) {
	defer l.writers.Done()
	for {
		select {
		case f := <-l.queue[lane]:
			if f == nil { // a Flush barrier: everything queued before it is written
				l.queued[lane].Add(-1)
				l.reached[lane].Add(1)
				signal(l.flushed[lane])
				continue
			}
			l.writing[lane].Lock()
			err := l.conn.WriteFrame(lane, f)
			l.queued[lane].Add(-1)
			l.writing[lane].Unlock()
			l.release(l.frameCharge(f))
			if err != nil {
				l.fail(fmt.Errorf("failed to write code-mode %s message: %w", l.self(), err))
				return
			}
		case <-l.done:
			return
		}
	}
}

// decodeError is a frame whose payload did not decode: invalid data like a malformed frame, and
// fatal to the connection like it (docs/protocol/v1.md#unknown-fields); Codex's codec classifies
// it the same (io::ErrorKind::InvalidData). It wraps the decoder's error.
type decodeError struct{ err error }

func (e *decodeError) Error() string { return "failed to decode code-mode IPC frame: " + e.err.Error() }

func (e *decodeError) Unwrap() error { return e.err }

func (e *decodeError) Is(target error) bool { return target == v1frame.ErrInvalidData }

// signal leaves a token in ch unless one is already waiting there.
func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}
