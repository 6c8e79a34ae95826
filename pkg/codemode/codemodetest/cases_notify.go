package codemodetest

import (
	"sort"
	"testing"
	"time"
)

// notificationCases cover notify() through Delegate.Notify (spec §1.4 completion, §4.2 notify).
func notificationCases() []testCase {
	return []testCase{
		{"notifications_carry_the_exec_call_id_and_precede_the_result", testNotificationsPrecedeResult},
		{"notify_rejects_blank_text", testNotifyRejectsBlank},
	}
}

// Completion drains outstanding notifications before the Result is published: the delegate holds
// the first notification for a while, and both must have returned before the Result reaches the
// test. (Holding only until the first arrives lets a session deliver notifications one by one.)
func testNotificationsPrecedeResult(t *testing.T, h *harness) {
	f := h.session()
	gate := NewGate()
	f.rec.HandleNotify(gate.Notify())
	go func() {
		ctx, cancel := bg()
		defer cancel()
		if _, err := f.rec.AwaitNotifications(ctx, 1); err == nil {
			time.Sleep(200 * time.Millisecond)
		}
		gate.Release()
	}()
	c := f.execute(`notify("first"); notify({ k: 1 }); text("done");`, withCallID("call-notify-7"))
	checkResult(t, "result", f.initial(c), c.CellID, texts("done")...)
	received := f.rec.Mark("result received")
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
