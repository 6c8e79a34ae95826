package grpcclient_test

import (
	"context"
	"testing"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/codemode/codemodetest"
	"github.com/codemodehq/codemode/pkg/grpc/grpcclient"
	"github.com/codemodehq/codemode/pkg/grpc/grpchost"
)

// closureWatch serves a provider whose sessions also report every cell closure on the host's
// side, where a test can see what happens after the client has gone.
type closureWatch struct {
	codemode.SessionProvider
	closed chan codemode.CellID
}

func (w closureWatch) CreateSession(ctx context.Context, d codemode.Delegate, l codemode.SessionCellExecutionLimits) (codemode.Session, error) {
	return w.SessionProvider.CreateSession(ctx, closureTee{Delegate: d, closed: w.closed}, l)
}

// closureTee is the host's delegate with its CellClosed calls copied to a channel.
type closureTee struct {
	codemode.Delegate
	closed chan<- codemode.CellID
}

func (c closureTee) CellClosed(id codemode.CellID) {
	c.Delegate.CellClosed(id)
	c.closed <- id
}

// Go's counterpart of dropping_a_session_off_runtime_retires_its_active_cells: Go has no Drop, so
// an owner that cannot wait any more shuts its session down with a context that has already
// ended. Shutdown returns at once, and the host still retires every live cell of the session.
func TestDroppingASessionOffRuntimeRetiresItsActiveCells(t *testing.T) {
	ln, err := grpchost.Listen(context.Background(), "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := make(chan codemode.CellID, 8)
	h := startHostServing(t, ln, grpchost.Options{}, func(p codemode.SessionProvider) codemode.SessionProvider {
		return closureWatch{SessionProvider: p, closed: closed}
	})
	p := newProvider(t, h.url(), grpcclient.ProtocolGRPC)
	s, err := p.CreateSession(ctxT(t), codemodetest.NewRecorder(), codemode.SessionCellExecutionLimits{})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []codemode.CellID{"1", "2"} {
		if r := run(t, s, execReq(`await new Promise(() => {});`, 1)); r.Kind != codemode.Yielded || r.CellID != id {
			t.Fatalf("cell %s: %+v", id, r)
		}
	}
	gone, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.Shutdown(gone); err == nil {
		t.Log("Shutdown finished before it looked at its context")
	}
	retired, deadline := map[codemode.CellID]bool{}, ctxT(t)
	for len(retired) < 2 {
		select {
		case id := <-closed:
			if retired[id] {
				t.Fatalf("cell %s closed twice", id)
			}
			retired[id] = true
		case <-deadline.Done():
			t.Fatalf("the host retired %v of cells 1 and 2", retired)
		}
	}
	other, _ := session(t, p, codemode.SessionCellExecutionLimits{})
	if r := run(t, other, execReq(`text("still serving")`, toEnd)); texts(r) != "{still serving};" {
		t.Fatalf("another session after the drop: %+v", r)
	}
}
