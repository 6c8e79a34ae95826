package jsruntime

import (
	"context"
	"reflect"
	"testing"
	"testing/synctest"
	"time"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// The idle table's rules, as plain data: a cell's clock starts when it is first recorded
// unobserved and is not restarted by recording it again; an observation forgets it; expired
// hands each cell out once; a table without a timeout records nothing.
func TestIdleTableRules(t *testing.T) {
	t0 := time.Unix(1000, 0)
	tab := newIdleTable(time.Minute)
	if d, ok := tab.unobserved("1", t0); !ok || !d.Equal(t0.Add(time.Minute)) {
		t.Fatalf("a cell's first record: %v %v", d, ok)
	}
	if _, ok := tab.unobserved("1", t0.Add(30*time.Second)); ok {
		t.Fatal("a second record keeps the first deadline")
	}
	tab.unobserved("2", t0.Add(10*time.Second))
	if next, ok := tab.next(); !ok || !next.Equal(t0.Add(time.Minute)) {
		t.Fatalf("next %v %v", next, ok)
	}
	if got := tab.expired(t0.Add(59 * time.Second)); len(got) != 0 {
		t.Fatalf("expired early: %v", got)
	}
	if got := tab.expired(t0.Add(time.Minute)); !reflect.DeepEqual(got, []codemode.CellID{"1"}) {
		t.Fatalf("expired at its deadline: %v", got)
	}
	if got := tab.expired(t0.Add(time.Hour)); !reflect.DeepEqual(got, []codemode.CellID{"2"}) {
		t.Fatalf("each cell once: %v", got)
	}
	tab.unobserved("3", t0)
	tab.observed("3")
	if _, ok := tab.next(); ok {
		t.Fatal("an observed cell is forgotten")
	}
	never := newIdleTable(0)
	if _, ok := never.unobserved("1", t0); ok || len(never.deadlines) != 0 {
		t.Fatal("no timeout: nothing is recorded")
	}
}

// inIdleBubble is inBubble with a provider whose unobserved cells are reclaimed after after. The
// tests' sleeps are synctest's virtual time: the clock moves only once every goroutine of the bubble
// (the cell's loop included) is durably blocked, so no sleep races the work however slow the machine.
func inIdleBubble(t *testing.T, after time.Duration, f func(t *testing.T, p *Provider)) {
	t.Helper()
	synctest.Test(t, func(t *testing.T) {
		p, err := NewProvider(Options{PoolSize: 1, UnobservedCellTimeout: after})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = p.Close() })
		f(t, p)
	})
}

// A cell that yielded while blocked on a tool, and that nobody waits for again, is terminated
// once the unobserved time ran out: its tool call is cancelled, it is closed exactly once, and a
// later wait gets MissingCell with Codex's text, as for any closed cell. The bubble's clock moves
// only when every goroutine is blocked, so the test waits for the closure, never for a deadline.
func TestAnUnobservedYieldedCellIsReclaimed(t *testing.T) {
	inIdleBubble(t, time.Hour, func(t *testing.T, p *Provider) {
		g := newToolGate()
		d := newRecorder(g.invoke)
		s := newSessionOn(t, p, d, codemode.SessionCellExecutionLimits{})
		c := startCell(t, s, `text("before"); await tools.block(); text("never")`, 10, testTool("block"))
		if r := initialResponse(t, c); r.Kind != codemode.Yielded {
			t.Fatalf("initial %+v", r)
		}
		<-g.started
		start := time.Now()
		if id := <-d.closedC; id != c.CellID {
			t.Fatalf("closed %s", id)
		}
		if waited := time.Since(start); waited != time.Hour {
			t.Errorf("reclaimed after %v unobserved, want the hour", waited)
		}
		if out := waitCell(t, s, c.CellID, 10); !out.Missing || errorTextOf(out.Response) != "exec cell 1 not found" {
			t.Fatalf("wait after the reclaim %+v", out)
		}
		if out, err := s.Terminate(context.Background(), c.CellID); err != nil || !out.Missing {
			t.Fatalf("terminate after the reclaim %+v %v", out, err)
		}
		if err := s.Shutdown(context.Background()); err != nil {
			t.Fatal(err)
		}
		if _, _, closed := d.snapshot(); !reflect.DeepEqual(closed, []codemode.CellID{"1"}) {
			t.Fatalf("closed %v, want the cell once", closed)
		}
	})
}

// Each observation restarts a cell's unobserved time: a cell waited for every 40 minutes under a
// one-hour timeout lives on, and is reclaimed an hour after the last wait ended.
func TestAWaitRestartsTheUnobservedTime(t *testing.T) {
	inIdleBubble(t, time.Hour, func(t *testing.T, p *Provider) {
		g := newToolGate()
		d := newRecorder(g.invoke)
		s := newSessionOn(t, p, d, codemode.SessionCellExecutionLimits{})
		c := startCell(t, s, `await tools.block()`, 10, testTool("block"))
		initialResponse(t, c)
		<-g.started
		for range 3 {
			time.Sleep(40 * time.Minute)
			if out := waitCell(t, s, c.CellID, 10); out.Missing || out.Response.Kind != codemode.Yielded {
				t.Fatalf("a cell observed every 40 minutes: %+v", out)
			}
		}
		last := time.Now()
		<-d.closedC
		if waited := time.Since(last); waited != time.Hour {
			t.Errorf("reclaimed %v after the last wait, want an hour", waited)
		}
	})
}

// A cell observed all along is never reclaimed, however long it runs: here a Wait of two hours
// on a cell whose tool answers after ninety minutes gets the cell's Result.
func TestAnObservedCellIsNotReclaimed(t *testing.T) {
	inIdleBubble(t, time.Hour, func(t *testing.T, p *Provider) {
		g := newToolGate()
		s := newSessionOn(t, p, newRecorder(g.invoke), codemode.SessionCellExecutionLimits{})
		c := startCell(t, s, `const r = await tools.block(); text(r)`, 10, testTool("block"))
		initialResponse(t, c)
		<-g.started
		go func() {
			time.Sleep(90 * time.Minute)
			close(g.release)
		}()
		out := waitCell(t, s, c.CellID, uint64((2 * time.Hour).Milliseconds()))
		if out.Response.Kind != codemode.Result || !reflect.DeepEqual(textsOf(out.Response.ContentItems), []string{"released"}) {
			t.Fatalf("%+v", out)
		}
	})
}

// A cell that completed with nobody to take its Result is closed when its time runs out, and
// what its Result held goes back to the budget.
func TestAnUnclaimedResultIsReclaimed(t *testing.T) {
	inIdleBubble(t, time.Hour, func(t *testing.T, p *Provider) {
		g := newToolGate()
		d := newRecorder(g.invoke)
		s := newSessionOn(t, p, d, codemode.SessionCellExecutionLimits{})
		c := startCell(t, s, `await tools.block(); text("done")`, 10, testTool("block"))
		initialResponse(t, c)
		<-g.started
		close(g.release)
		synctest.Wait() // the cell completed, unobserved
		if state := cellStateOf(s, c.CellID); state != cellCompleted {
			t.Fatalf("state %v, want completed", state)
		}
		<-d.closedC
		if out := waitCell(t, s, c.CellID, 10); !out.Missing {
			t.Fatalf("wait after the reclaim %+v", out)
		}
	})
}

// A negative timeout keeps unobserved cells until their session shuts down.
func TestANegativeTimeoutKeepsUnobservedCells(t *testing.T) {
	inIdleBubble(t, -1, func(t *testing.T, p *Provider) {
		g := newToolGate()
		s := newSessionOn(t, p, newRecorder(g.invoke), codemode.SessionCellExecutionLimits{})
		c := startCell(t, s, `await tools.block()`, 10, testTool("block"))
		initialResponse(t, c)
		<-g.started
		time.Sleep(1000 * time.Hour)
		if out := waitCell(t, s, c.CellID, 10); out.Missing {
			t.Fatalf("%+v", out)
		}
	})
}

// cellStateOf is the state of cell id of s (zero once it is gone).
func cellStateOf(s codemode.Session, id codemode.CellID) cellState {
	ss := s.(*session)
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if c := ss.cells[id]; c != nil {
		return c.life.phase
	}
	return 0
}
