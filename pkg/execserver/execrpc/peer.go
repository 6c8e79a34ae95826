package execrpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	wire "github.com/codemodehq/codemode/gen/go/execserverwire"
)

// Handler serves what the other side sends. Requests and notifications are handled in arrival
// order on the read loop, except requests whose method Concurrent names (one that may wait, such
// as process/read), which run on a goroutine of their own. HandleRequest's error is answered as
// an error response (an *Error as is, any other error as CodeInternalError).
type Handler interface {
	Concurrent(method string) bool
	HandleRequest(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error)
	HandleNotification(ctx context.Context, method string, params json.RawMessage)
}

// ErrClosed is returned by calls on a peer whose connection ended.
var ErrClosed = errors.New("exec-server connection closed")

type callResult struct {
	result json.RawMessage
	err    error
}

// Peer is one end of a connection, in either role: it serves the other side's requests and
// notifications with its Handler, and makes calls and sends notifications of its own.
type Peer struct {
	conn Conn
	h    Handler
	logf func(format string, args ...any)

	writeMu sync.Mutex
	nextID  atomic.Int64

	mu      sync.Mutex
	pending map[wire.RequestId]chan callResult
	closed  bool

	done chan struct{}
	wg   sync.WaitGroup

	malformedPrefix string // set by AnswerMalformed
}

// MalformedID is the id of the error response to a message that failed to parse: its own id is
// unknown, and -1 is the id the protocol gives that answer (docs/protocol/exec-server.md#decoding).
var MalformedID = IntID(-1)

// AnswerMalformed makes the peer answer a message that fails to parse with an error response
// (id -1, CodeInvalidRequest, "PREFIX: reason") as well as logging it: a server owes its client
// that answer (docs/protocol/exec-server.md#decoding), so the client sees the line was lost
// instead of waiting for a reply; prefix names the transport ("failed to parse JSON-RPC message
// from exec-server stdio").
// Call it before Run. Without it a malformed message is only logged (Codex's client role).
func (p *Peer) AnswerMalformed(prefix string) { p.malformedPrefix = prefix }

// NewPeer makes a peer; Run serves it. logf (may be nil) receives malformed-message reports.
func NewPeer(conn Conn, h Handler, logf func(format string, args ...any)) *Peer {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	return &Peer{conn: conn, h: h, logf: logf, pending: map[wire.RequestId]chan callResult{}, done: make(chan struct{})}
}

// Done is closed when Run has returned.
func (p *Peer) Done() <-chan struct{} { return p.done }

// Run reads and dispatches messages until the connection ends or ctx is done; then it cancels
// the requests being served, waits for their handlers, fails the pending calls with ErrClosed
// and closes the connection. A clean end of the connection returns nil.
func (p *Peer) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer close(p.done)
	defer p.wg.Wait()
	defer cancel()
	defer p.failPending()
	stop := context.AfterFunc(ctx, func() { _ = p.conn.Close() })
	defer stop()
	for {
		data, err := p.conn.ReadMessage(ctx)
		if err != nil {
			_ = p.conn.Close()
			if errors.Is(err, io.EOF) || ctx.Err() != nil {
				return nil
			}
			return err
		}
		msg, err := Decode(data)
		if err != nil {
			// Codex reports a malformed message and keeps the connection.
			p.malformed(ctx, err)
			continue
		}
		switch m := msg.(type) {
		case wire.JSONRPCRequest:
			if !p.h.Concurrent(m.Method) {
				p.serve(ctx, m)
				continue
			}
			p.wg.Add(1)
			go func() {
				defer p.wg.Done()
				p.serve(ctx, m)
			}()
		case wire.JSONRPCNotification:
			p.h.HandleNotification(ctx, m.Method, m.Params)
		case wire.JSONRPCResponse:
			p.complete(m.Id, callResult{result: m.Result})
		case wire.JSONRPCError:
			p.complete(m.Id, callResult{err: &Error{Code: m.Error.Code, Message: m.Error.Message, Data: m.Error.Data}})
		}
	}
}

func (p *Peer) malformed(ctx context.Context, err error) {
	p.logf("failed to parse JSON-RPC message: %v", err)
	if p.malformedPrefix == "" {
		return
	}
	// serde_json names no path: "data did not match any variant of untagged enum RequestId".
	reason := err.Error()
	var de *wire.DecodeError
	if errors.As(err, &de) {
		reason = de.Msg
	}
	out := wire.JSONRPCError{Id: MalformedID, Error: wire.JSONRPCErrorError{Code: CodeInvalidRequest, Message: p.malformedPrefix + ": " + reason}}
	if err := p.send(ctx, out); err != nil {
		p.logf("failed to answer a malformed message: %v", err)
	}
}

func (p *Peer) serve(ctx context.Context, req wire.JSONRPCRequest) {
	result, err := p.h.HandleRequest(ctx, req.Method, req.Params)
	var out Message
	if err != nil {
		var rpcErr *Error
		if !errors.As(err, &rpcErr) {
			rpcErr = &Error{Code: CodeInternalError, Message: err.Error()}
		}
		out = wire.JSONRPCError{Id: req.Id, Error: wire.JSONRPCErrorError{Code: rpcErr.Code, Message: rpcErr.Message, Data: rpcErr.Data}}
	} else {
		if result == nil {
			result = json.RawMessage("null")
		}
		out = wire.JSONRPCResponse{Id: req.Id, Result: result}
	}
	if err := p.send(ctx, out); err != nil {
		p.logf("failed to answer %s: %v", req.Method, err)
	}
}

func (p *Peer) send(ctx context.Context, m Message) error {
	p.writeMu.Lock()
	defer p.writeMu.Unlock()
	return p.conn.WriteMessage(ctx, Encode(m))
}

func (p *Peer) complete(id wire.RequestId, r callResult) {
	p.mu.Lock()
	ch, ok := p.pending[id]
	delete(p.pending, id)
	p.mu.Unlock()
	if ok {
		ch <- r
	} else {
		p.logf("response to unknown request id %s", id)
	}
}

func (p *Peer) failPending() {
	p.mu.Lock()
	p.closed = true
	pending := p.pending
	p.pending = map[wire.RequestId]chan callResult{}
	p.mu.Unlock()
	for _, ch := range pending {
		ch <- callResult{err: ErrClosed}
	}
}

// Call sends a request and waits for its response: the result, an *Error, ErrClosed, or ctx's
// error.
func (p *Peer) Call(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	id := IntID(p.nextID.Add(1))
	ch := make(chan callResult, 1)
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, ErrClosed
	}
	p.pending[id] = ch
	p.mu.Unlock()
	if err := p.send(ctx, wire.JSONRPCRequest{Id: id, Method: method, Params: params}); err != nil {
		p.mu.Lock()
		delete(p.pending, id)
		p.mu.Unlock()
		return nil, fmt.Errorf("send %s: %w", method, err)
	}
	select {
	case r := <-ch:
		return r.result, r.err
	case <-ctx.Done():
		p.mu.Lock()
		delete(p.pending, id)
		p.mu.Unlock()
		return nil, ctx.Err()
	}
}

// Notify sends a notification.
func (p *Peer) Notify(ctx context.Context, method string, params json.RawMessage) error {
	return p.send(ctx, wire.JSONRPCNotification{Method: method, Params: params})
}
