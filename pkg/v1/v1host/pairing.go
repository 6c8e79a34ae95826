package v1host

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/google/uuid"
)

// Dual-websocket pairing (docs/protocol/v1.md#handshake, docs/protocol/v1.md#websocket-and-lanes): a connection granted dual-websocket-v1 gets a one-use
// v4 UUID token, and the client opens /bulk/{token} within PairingTimeout.
const (
	// MaxPendingPairings bounds the tokens handed out but not yet paired, across a Host.
	MaxPendingPairings = 256
	// PairingTimeout is how long a control connection waits for its bulk socket.
	PairingTimeout = 10 * time.Second
)

// errPairingTimeout ends a dual connection whose bulk socket never came.
var errPairingTimeout = errors.New("code-mode bulk websocket was not paired within 10s")

// pairings is the registry of pending bulk pairings.
type pairings struct {
	mu      sync.Mutex
	max     int
	pending map[string]*pairing
}

// pairing is one reserved token. The bulk handler hands its socket over on bulk (unbuffered, so
// a socket is either taken by the waiting control connection or closed, never stranded);
// release frees the slot and makes the token unknown.
type pairing struct {
	token    string
	registry *pairings
	bulk     chan *websocket.Conn
	gone     chan struct{}
	once     sync.Once
}

func newPairings(max int) *pairings {
	return &pairings{max: max, pending: map[string]*pairing{}}
}

// reserve hands out a token, or reports false when MaxPendingPairings are already pending.
func (r *pairings) reserve() (*pairing, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.pending) >= r.max {
		return nil, false
	}
	p := &pairing{token: uuid.NewString(), registry: r, bulk: make(chan *websocket.Conn), gone: make(chan struct{})}
	r.pending[p.token] = p
	return p, true
}

// claim takes the pairing for token out of the registry (tokens are one-use), or nil.
func (r *pairings) claim(token string) *pairing {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := r.pending[token]
	delete(r.pending, token)
	return p
}

// pendingCount is the number of reserved, unpaired tokens.
func (r *pairings) pendingCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.pending)
}

// release abandons the pairing: the token becomes unknown and a socket delivered too late is
// closed by the deliverer. Safe on nil and more than once.
func (p *pairing) release() {
	if p == nil {
		return
	}
	p.once.Do(func() {
		p.registry.mu.Lock()
		if p.registry.pending[p.token] == p {
			delete(p.registry.pending, p.token)
		}
		p.registry.mu.Unlock()
		close(p.gone)
	})
}

// deliver hands the bulk socket to the waiting control connection; it closes the socket when
// the control side has given up.
func (p *pairing) deliver(ws *websocket.Conn) {
	select {
	case p.bulk <- ws:
	case <-p.gone:
		_ = ws.CloseNow()
	}
}

// await waits for the bulk socket, at most PairingTimeout, and releases the pairing.
func (p *pairing) await(ctx context.Context) (*websocket.Conn, error) {
	defer p.release()
	timer := time.NewTimer(PairingTimeout)
	defer timer.Stop()
	select {
	case ws := <-p.bulk:
		return ws, nil
	case <-timer.C:
		return nil, errPairingTimeout
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
