package grpcclient_test

import (
	"context"
	"strings"
	"testing"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/codemode/codemodetest"
	"github.com/codemodehq/codemode/pkg/grpc/grpcclient"
	"github.com/codemodehq/codemode/pkg/grpc/grpchost"
)

// Codex's code-mode-host/tests/grpc_notifications.rs, against both kinds of host: one that waits
// for the client's acknowledgements (codemode's), and one that does not (Codex's baseline), where
// the client itself holds a Result until the cell's notifications were delivered.

// hostModes are the two notification behaviours of a host.
var hostModes = []struct {
	name string
	opts grpchost.Options
}{
	{"acknowledged", grpchost.Options{}},
	{"baseline", grpchost.Options{BaselineNotifications: true}},
}

// forEachHostMode runs test once per host mode.
func forEachHostMode(t *testing.T, test func(t *testing.T, opts grpchost.Options)) {
	for _, mode := range hostModes {
		t.Run(mode.name, func(t *testing.T) { test(t, mode.opts) })
	}
}

// heldNotifications starts a session whose notifications wait for gate.
func heldNotifications(t *testing.T, opts grpchost.Options) (codemode.Session, *codemodetest.Recorder, *codemodetest.Gate) {
	h := startHostWith(t, "127.0.0.1:0", opts)
	s, rec := session(t, newProvider(t, h.url(), grpcclient.ProtocolGRPC), codemode.SessionCellExecutionLimits{})
	gate := codemodetest.NewGate()
	rec.HandleNotify(gate.Notify())
	return s, rec, gate
}

func TestCompletedCellsDrainPendingNotificationsBeforeCompletion(t *testing.T) {
	forEachHostMode(t, testCompletedCellsDrain)
}

func testCompletedCellsDrain(t *testing.T, opts grpchost.Options) {
	s, rec, gate := heldNotifications(t, opts)
	c, err := s.Execute(ctxT(t), execReq(`notify("pending"); text("done");`, toEnd))
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
	forEachHostMode(t, testCompletedWaitsDrain)
}

func testCompletedWaitsDrain(t *testing.T, opts grpchost.Options) {
	s, rec, gate := heldNotifications(t, opts)
	c, err := s.Execute(ctxT(t), execReq(`yield_control(); notify("pending"); text("done");`, toEnd))
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
		o, _ := s.Wait(context.Background(), codemode.WaitRequest{CellID: c.CellID, YieldTimeMs: toEnd})
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
	forEachHostMode(t, testTerminationCancels)
}

func testTerminationCancels(t *testing.T, opts grpchost.Options) {
	s, rec, _ := heldNotifications(t, opts)
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
	if r := run(t, s, execReq(`notify("🦀".repeat(300000)); text("done");`, toEnd)); texts(r) != "{done};" {
		t.Fatalf("%+v", r)
	}
	notes := rec.Notifications()
	if len(notes) != 1 || notes[0].Text != strings.Repeat("🦀", 300_000) {
		t.Fatalf("the notification was not delivered unchanged (%d notifications)", len(notes))
	}
}
