package jsruntime_test

import (
	"context"
	"strings"
	"testing"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/jsruntime"
	"github.com/codemodehq/codemode/pkg/jsruntime/internal/engine"
)

// watchResets reports the reset of every engine p's pool takes back while the test runs.
func watchResets(t *testing.T, p *jsruntime.Provider) <-chan engine.ResetReport {
	t.Helper()
	seen := make(chan engine.ResetReport, 64)
	t.Cleanup(p.ObserveResets(func(r engine.ResetReport) { seen <- r }))
	return seen
}

// TestResetRestoresTheImage proves the reuse of runtimes: after a cell that changed everything a
// script can reach — globals, intrinsics' prototypes, the heap far beyond its starting size, the
// stack, timers and tool calls left pending — the engine's whole memory equals the image taken
// when it was prepared, byte for byte, and its stack pointer is back at the top. The next cell on
// it sees none of the changes.
func TestResetRestoresTheImage(t *testing.T) {
	p, err := jsruntime.NewProvider(jsruntime.Options{PoolSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	seen := watchResets(t, p)
	s, err := p.CreateSession(context.Background(), jsruntime.NewRecorder(nil), codemode.SessionCellExecutionLimits{})
	if err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{
		`globalThis.leak = 1; Object.prototype.polluted = "yes"; Array.prototype.push = () => 0;
		 JSON.parse = () => "hijacked"; Math.random = () => 4; store("k", {a: 1});
		 function deep(n) { return n === 0 ? 0 : 1 + deep(n - 1) } text(deep(3000));
		 const big = []; for (let i = 0; i < 200; i++) big.push("x".repeat(100000) + i);
		 setTimeout(() => {}, 1e9); tools.slow(); text(big.length);`,
		`function g() { return g() } g()`, // a trap: the stack pointer is left deep
	} {
		r := jsruntime.ExecuteCell(t, s, src, jsruntime.TestTool("slow"))
		if r.Kind != codemode.Result {
			t.Fatalf("%s: %+v", src, r)
		}
		v := <-seen
		if !v.Reusable || v.ImageDiff != nil {
			t.Fatalf("after %.40q (%s %q): reusable=%v image: %v", src, jsruntime.ErrorTextOf(r), jsruntime.TextsOf(r.ContentItems), v.Reusable, v.ImageDiff)
		}
	}
	r := jsruntime.ExecuteCell(t, s, `text([typeof leak, ({}).polluted, [].push(1), JSON.parse("1"), typeof Math.random()].join())`)
	if got := strings.Join(jsruntime.TextsOf(r.ContentItems), ""); r.ErrorText != nil || got != "undefined,,1,1,number" {
		t.Fatalf("the next cell saw the changes: %s %q", jsruntime.ErrorTextOf(r), got)
	}
	<-seen
}

// TestMathRandomDiffersBetweenCells checks that Math.random is seeded for each cell: every cell
// starts from the same memory image, QuickJS's own generator state included.
func TestMathRandomDiffersBetweenCells(t *testing.T) {
	s := jsruntime.NewTestSession(t, nil, codemode.SessionCellExecutionLimits{})
	seen := map[string]bool{}
	for range 5 {
		r := jsruntime.ExecuteCell(t, s, `text(Math.random() + "," + Math.random())`)
		got := strings.Join(jsruntime.TextsOf(r.ContentItems), "")
		if r.ErrorText != nil || seen[got] {
			t.Fatalf("repeated or failed: %s %q", jsruntime.ErrorTextOf(r), got)
		}
		seen[got] = true
	}
}

// TestDeepRecursionDropsGrownCallStacks checks that a reused engine does not keep the call stacks
// wazero grew for a deep recursion: the functions that ran cell code are resolved afresh.
func TestDeepRecursionDropsGrownCallStacks(t *testing.T) {
	p, err := jsruntime.NewProvider(jsruntime.Options{PoolSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	kept := make(chan int, 4)
	t.Cleanup(p.ObserveResets(func(r engine.ResetReport) {
		if r.Reusable {
			kept <- r.ExportsKept
		}
	}))
	s, err := p.CreateSession(context.Background(), nil, codemode.SessionCellExecutionLimits{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		src  string
		shed bool
	}{
		{`text(1)`, false},
		{`function f(n) { return n === 0 ? 0 : 1 + f(n - 1) } text(f(5000))`, true},
	} {
		started, err := s.Execute(context.Background(), codemode.ExecuteRequest{Source: c.src})
		if err != nil {
			t.Fatal(err)
		}
		r, err := started.InitialResponse(context.Background())
		if err != nil {
			t.Fatalf("%s: %v", c.src, err)
		}
		// A yield at the default deadline is not the result: the cell is followed to its end.
		if r = jsruntime.FollowCell(t, s, r); r.ErrorText != nil {
			t.Fatalf("%s: %+v", c.src, r)
		}
		if got := <-kept; (got == 0) != c.shed {
			t.Errorf("%s: %d resolved instances kept, want them shed: %v", c.src, got, c.shed)
		}
	}
}
