package grpcclient_test

import (
	"context"
	"strings"
	"testing"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/codemode/codemodetest"
	"github.com/codemodehq/codemode/pkg/grpcclient"
)

// Codex's code-mode-host/tests/grpc_notifications.rs.

// heldNotifications starts a session whose notifications wait for gate.
func heldNotifications(t *testing.T) (codemode.Session, *codemodetest.Recorder, *codemodetest.Gate) {
	h := startHost(t, "127.0.0.1:0")
	s, rec := session(t, newProvider(t, h.url(), grpcclient.ProtocolGRPC), codemode.SessionCellExecutionLimits{})
	gate := codemodetest.NewGate()
	rec.HandleNotify(gate.Notify())
	return s, rec, gate
}

func TestCompletedCellsDrainPendingNotificationsBeforeCompletion(t *testing.T) {
	s, rec, gate := heldNotifications(t)
	c, err := s.Execute(ctxT(t), execReq(`notify("pending"); text("done");`, 60_000))
	if err != nil {
		t.Fatal(err)
	}
	notes, err := rec.AwaitNotifications(ctxT(t), 1)
	if err != nil {
		t.Fatal(err)
	}
	initial := make(chan codemode.RuntimeResponse, 1)
	go func() {
		r, _ := c.InitialResponse(context.Background())
		initial <- r
	}()
	gate.Release()
	r := <-initial
	if r.Kind != codemode.Result || texts(r) != "{done};" {
		t.Fatalf("%+v", r)
	}
	select {
	case <-notes[0].Returned():
	default:
		t.Fatal("the Result arrived before its notification was delivered")
	}
}

func TestCompletedWaitsDrainPendingNotificationsBeforeReturning(t *testing.T) {
	s, rec, gate := heldNotifications(t)
	c, err := s.Execute(ctxT(t), execReq(`yield_control(); notify("pending"); text("done");`, 60_000))
	if err != nil {
		t.Fatal(err)
	}
	if r, err := c.InitialResponse(ctxT(t)); err != nil || r.Kind != codemode.Yielded {
		t.Fatalf("%+v, %v", r, err)
	}
	notes, err := rec.AwaitNotifications(ctxT(t), 1)
	if err != nil {
		t.Fatal(err)
	}
	waited := make(chan codemode.WaitOutcome, 1)
	go func() {
		o, _ := s.Wait(context.Background(), codemode.WaitRequest{CellID: c.CellID, YieldTimeMs: 60_000})
		waited <- o
	}()
	gate.Release()
	o := <-waited
	if o.Response.Kind != codemode.Result || texts(o.Response) != "{done};" {
		t.Fatalf("%+v", o)
	}
	select {
	case <-notes[0].Returned():
	default:
		t.Fatal("the wait returned before the notification was delivered")
	}
}

func TestTerminationCancelsPendingNotifications(t *testing.T) {
	s, rec, _ := heldNotifications(t)
	c, err := s.Execute(ctxT(t), execReq(`notify("pending"); await new Promise(() => {});`, 1))
	if err != nil {
		t.Fatal(err)
	}
	notes, err := rec.AwaitNotifications(ctxT(t), 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.InitialResponse(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	if o, err := s.Terminate(ctxT(t), c.CellID); err != nil || o.Response.Kind != codemode.Terminated {
		t.Fatalf("%+v, %v", o, err)
	}
	select {
	case <-notes[0].Cancelled():
	case <-ctxT(t).Done():
		t.Fatal("termination did not cancel the pending notification")
	}
}

func TestOversizedNotificationTextIsDeliveredUnchanged(t *testing.T) {
	h := startHost(t, "127.0.0.1:0")
	s, rec := session(t, newProvider(t, h.url(), grpcclient.ProtocolGRPC), codemode.SessionCellExecutionLimits{})
	if r := run(t, s, execReq(`notify("🦀".repeat(300000)); text("done");`, 60_000)); texts(r) != "{done};" {
		t.Fatalf("%+v", r)
	}
	notes := rec.Notifications()
	if len(notes) != 1 || notes[0].Text != strings.Repeat("🦀", 300_000) {
		t.Fatalf("the notification was not delivered unchanged (%d notifications)", len(notes))
	}
}
