package v1host

import (
	"strings"
	"testing"

	"github.com/codemodehq/codemode/pkg/internal/membudget"
)

// TestABudgetBoundsTheCellsOfAConnection (issue 38.4, ADR 59): under a memory budget a V1 host
// admits as many live cells as the budget holds of CellMemoryBytes, past MaxActiveCells (Codex's
// V1 host has no cell cap), one session of a ServeConn connection may take them all, and the
// next is refused with Codex's text; each cell is charged while it lives and given back when
// its session shuts down.
func TestABudgetBoundsTheCellsOfAConnection(t *testing.T) {
	const admitted = MaxActiveCells + 32
	b := membudget.New(admitted * CellMemoryBytes)
	c := serveRaw(t, New(newProvider(t), WithMemoryBudget(b))).ready()
	c.send(open(1, "s"))
	c.expect(ready(1, "s"))
	for i := range admitted {
		c.send(execute(100+i, "s", `await new Promise(() => {});`))
	}
	for range admitted {
		if got := c.recv(); !strings.Contains(got, `"execution/started"`) {
			t.Fatalf("while filling the budget: %s", got)
		}
	}
	if used := b.Used(); used < admitted*CellMemoryBytes {
		t.Fatalf("%d live cells charge %d bytes, want at least %d", admitted, used, admitted*CellMemoryBytes)
	}
	c.send(execute(999, "s", `text("one too many")`))
	c.expect(errorResponse(999, "code-mode host has too many active cells"))
	c.send(shutdown(2, "s"))
	for {
		if got := c.recv(); strings.Contains(got, `"session/closed"`) {
			break
		}
	}
	if used := b.Used(); used >= CellMemoryBytes {
		t.Fatalf("after the session closed the budget holds %d bytes, want the cells' given back", used)
	}
}

// TestAWebSocketConnectionTakesItsShareUnderABudget: under a budget a WebSocket connection, one
// client among many, takes at most its share of the cells the budget admits (a quarter by
// default) and is refused "code-mode connection has too many active cells" past it, while
// another connection still runs cells.
func TestAWebSocketConnectionTakesItsShareUnderABudget(t *testing.T) {
	b := membudget.New(16 * CellMemoryBytes) // 16 cells, 4 a connection
	addr := listen(t, New(newProvider(t), WithMemoryBudget(b)))
	greedy := dialWS(t, "ws://"+addr+"/")
	greedy.ready(helloLimits)
	greedy.send(open(1, "a"))
	greedy.expect(ready(1, "a"))
	greedy.send(open(2, "b"))
	greedy.expect(ready(2, "b"))
	for i := range 4 {
		greedy.send(execute(100+i, []string{"a", "b"}[i%2], `await new Promise(() => {});`))
		if got, err := greedy.recv(); err != nil || !strings.Contains(got, `"execution/started"`) {
			t.Fatalf("cell %d of the share: %s %v", i+1, got, err)
		}
	}
	greedy.send(execute(200, "b", `text("one too many")`))
	greedy.expect(errorResponse(200, "code-mode connection has too many active cells"))
	other := dialWS(t, "ws://"+addr+"/")
	other.ready(helloLimits)
	other.send(open(1, "a"))
	other.expect(ready(1, "a"))
	other.send(execute(300, "a", `text("served")`))
	for {
		got, err := other.recv()
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(got, `"served"`) {
			break
		}
	}
}
