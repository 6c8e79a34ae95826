package grpcclient

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// A Result from a host that does not wait for acknowledgements is held until the cell's
// notifications were delivered and its closure arrived; from one that does, it is handed over at
// once; a Terminated cancels the notifications.
func TestResultWaitsForNotificationsUnlessTheHostAcknowledges(t *testing.T) {
	for _, acked := range []bool{false, true} {
		synctest.Test(t, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			b := &binding{ctx: ctx, st: newState(ctx), acked: acked}
			mustOK(t, "begin", b.st.beginExecution(stateRequest("execution")))
			mustOK(t, "admit", b.st.admitExecution("execution", "cell"))
			note := wantAdmission(t, "notification", must[callback](t, "")(b.st.admitNotification(stateNotification("execution", 1))), nil, admitted)
			settled := make(chan bool, 1)
			go func() { settled <- b.settle(ctx, codemode.RuntimeResponse{Kind: codemode.Result, CellID: "cell"}) }()
			synctest.Wait()
			if acked {
				if len(settled) == 0 || !<-settled {
					t.Fatal("a Result of an acknowledging host was held")
				}
				return
			}
			if len(settled) > 0 {
				t.Fatal("a Result was handed over before its notification was delivered")
			}
			b.st.finishNotification("execution")
			synctest.Wait()
			if len(settled) > 0 {
				t.Fatal("a Result was handed over before the cell's closure")
			}
			must[codemode.CellID](t, "closure")(b.st.closeCell(closure("execution", 0)))
			if !<-settled || note.ctx.Err() == nil {
				t.Fatal("the closure must settle the Result")
			}
		})
	}
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		b := &binding{ctx: ctx, st: newState(ctx)}
		mustOK(t, "begin", b.st.beginExecution(stateRequest("execution")))
		mustOK(t, "admit", b.st.admitExecution("execution", "cell"))
		note := wantAdmission(t, "notification", must[callback](t, "")(b.st.admitNotification(stateNotification("execution", 1))), nil, admitted)
		if !b.settle(ctx, codemode.RuntimeResponse{Kind: codemode.Terminated, CellID: "cell"}) || note.ctx.Err() == nil {
			t.Fatal("a Terminated must cancel the notifications without waiting")
		}
	})
}
