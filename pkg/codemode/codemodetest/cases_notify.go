package codemodetest

import (
	"context"
	"sort"
	"testing"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// notificationCases cover notify() through the delegate's notifications (docs/protocol/javascript.md#completion, docs/protocol/javascript.md#notify).
func notificationCases() []testCase {
	return []testCase{
		{"notifications_carry_the_exec_call_id_and_precede_the_result", testNotificationsPrecedeResult},
		{"notify_rejects_blank_text", testNotifyRejectsBlank},
	}
}

// Completion drains outstanding notifications before the Result is published. The delegate holds
// the second notification until the test has seen it arrive; the Result must not arrive before
// it returned. A background reader marks the Result's arrival in the Recorder's log, so the order
// is read from the log, not from the clock.
func testNotificationsPrecedeResult(t *testing.T, h *harness) {
	f := h.session()
	hold := NewGate()
	f.rec.HandleNotify(func(ctx context.Context, _ string, _ codemode.CellID, text string) error {
		if text == "first" {
			return nil
		}
		return hold.Notify()(ctx, "", "", text)
	})
	c := f.execute(`notify("first"); notify({ k: 1 }); text("done");`, withCallID("call-notify-7"))
	initial := startInitial(c)
	arrived := make(chan uint64, 1)
	go func() {
		<-initial.done
		arrived <- f.rec.Mark("result received")
	}()
	ctx, cancel := bg()
	defer cancel()
	if _, err := f.rec.AwaitNotifications(ctx, 2); err != nil {
		t.Fatal(err)
	}
	h.settle()
	hold.Release()
	f.awaitClosed(initial.done, "the initial response")
	if initial.err != nil {
		t.Fatalf("initial response: %v", initial.err)
	}
	checkResult(t, "result", initial.response, c.CellID, texts("done")...)
	received := <-arrived
	notes := f.rec.Notifications()
	if len(notes) != 2 {
		t.Fatalf("recorded %d notifications, want 2; events %v", len(notes), f.rec.Events())
	}
	var got []string
	for _, n := range notes {
		if n.CallID != "call-notify-7" || n.CellID != c.CellID {
			t.Errorf("notification %q has call id %q and cell %q, want %q and %q", n.Text, n.CallID, n.CellID, "call-notify-7", c.CellID)
		}
		if seq := n.ReturnSeq(); seq == 0 || seq > received {
			t.Errorf("notification %q was not acknowledged before the Result arrived; events %v", n.Text, f.rec.Events())
		}
		got = append(got, n.Text)
	}
	sort.Strings(got)
	if got[0] != "first" || got[1] != `{"k":1}` {
		t.Fatalf("notification texts %q, want first and {\"k\":1}", got)
	}
}

func testNotifyRejectsBlank(t *testing.T, h *harness) {
	f := h.session()
	r := f.run(`for (const v of ["", "   ", "\n\t"]) { try { notify(v); text("accepted"); } catch (e) { text(typeof e + ": " + e); } }`)
	msg := "string: notify expects non-empty text"
	checkResult(t, "result", r, "1", texts(msg, msg, msg)...)
	if n := len(f.rec.Notifications()); n != 0 {
		t.Fatalf("blank notify reached the delegate %d times", n)
	}
}
