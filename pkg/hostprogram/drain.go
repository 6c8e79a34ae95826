package hostprogram

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/codemodehq/codemode/pkg/grpc/grpchost"
)

// drainState is the program's one drain, started by the first interrupted listener.
type drainState struct {
	once     sync.Once
	begun    atomic.Bool
	ctx      context.Context // ends at the drain bound
	cancel   context.CancelFunc
	v1Done   chan struct{} // closed when the V1 host has drained (or gave up)
	forced   atomic.Bool   // the bound passed before everything drained
	watchdog *time.Timer
	mu       sync.Mutex
	at       time.Time // when the drain began
}

func (d *drainState) started() bool { return d.begun.Load() }

func (d *drainState) stopWatchdog() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.watchdog != nil {
		d.watchdog.Stop()
	}
	if d.cancel != nil {
		d.cancel()
	}
}

// beginDrain starts the drain once: the V1 host drains its connections (cutting them if the
// bound passes first), and a watchdog exits the process if the actors still have not returned
// cutGrace after the bound.
func (p *Program) beginDrain() {
	p.drain.once.Do(func() {
		d := &p.drain
		d.mu.Lock()
		d.ctx, d.cancel = context.WithTimeout(context.Background(), p.cfg.DrainTimeout)
		d.at = time.Now()
		d.watchdog = time.AfterFunc(p.cfg.DrainTimeout+cutGrace, func() {
			p.log.Error("code-mode host did not stop after its drain bound; exiting", "drain_timeout", p.cfg.DrainTimeout)
			p.Exit(1)
		})
		d.mu.Unlock()
		d.begun.Store(true)
		p.log.Info("code-mode host draining", "drain_timeout", p.cfg.DrainTimeout)
		go p.drainV1()
	})
}

// drainV1 drains the V1 host's connections, and cuts them if the bound passed.
func (p *Program) drainV1() {
	defer close(p.drain.v1Done)
	if p.v1 == nil {
		return
	}
	if err := p.v1.Drain(p.drain.ctx); err != nil {
		p.drain.forced.Store(true)
		p.log.Error("code-mode V1 connections did not drain in time; cutting them", "error", err)
		p.cut()
	}
}

// stopWebSocket stops a WebSocket listener once the V1 connections have drained.
func (p *Program) stopWebSocket(srv *http.Server) {
	<-p.drain.v1Done
	if err := srv.Shutdown(p.drain.ctx); err != nil {
		p.drain.forced.Store(true)
	}
	_ = srv.Close()
}

// stopGRPCStdio closes every gRPC session, then ends the standard streams' HTTP/2 connection
// once its streams have finished.
func (p *Program) stopGRPCStdio(srv *grpchost.ConnServer) {
	p.shutDownGRPC("on stdio", srv.Shutdown)
}

// stopGRPC closes every gRPC session (cells terminated, CellClosed sent on each lease, leases
// ended), then lets the server finish its streams and stop.
func (p *Program) stopGRPC(srv *http.Server) {
	p.shutDownGRPC("", srv.Shutdown)
	_ = srv.Close()
}

// shutDownGRPC closes the gRPC sessions, then lets the server of a listener (where: how the log
// names it) end its streams, each within the drain's bound; overrunning either forces the drain.
func (p *Program) shutDownGRPC(where string, shutdown func(context.Context) error) {
	if err := p.grpc.Drain(p.drain.ctx); err != nil {
		p.drain.forced.Store(true)
		p.log.Error("code-mode gRPC sessions did not close in time", "error", err)
	}
	if err := shutdown(p.drain.ctx); err != nil {
		p.drain.forced.Store(true)
		p.log.Error("code-mode gRPC streams did not end in time; cutting them", "listener", where, "error", err)
	}
}

// logDrained writes the drain's last line once every actor has returned: how long it took and
// whether it finished within its bound.
func (p *Program) logDrained() {
	if !p.drain.started() {
		return
	}
	p.drain.mu.Lock()
	took := time.Since(p.drain.at)
	p.drain.mu.Unlock()
	p.log.Info("code-mode host drained", "duration_ms", took.Milliseconds(), "forced", p.drain.forced.Load())
}
