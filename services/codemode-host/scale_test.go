package main_test

import (
	"context"
	"encoding/json"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/v1/v1client"
)

// liveCells is how many cells TestAThousandLiveCellsOverV1Stdio keeps blocked on tools: Codex's V1
// host ran this many on one process (issue 38).
const liveCells = 1000

// blockedTools answers no tool call until its cell ends, and counts the calls that arrived.
type blockedTools struct {
	codemode.DiscardReports
	arrived atomic.Int64
	all     chan struct{}
	once    sync.Once
}

func (d *blockedTools) InvokeTool(ctx context.Context, _ codemode.NestedToolCall) (json.RawMessage, error) {
	if d.arrived.Add(1) == liveCells {
		d.once.Do(func() { close(d.all) })
	}
	<-ctx.Done()
	return nil, ctx.Err()
}

func (*blockedTools) Notify(context.Context, string, codemode.CellID, string) error { return nil }
func (*blockedTools) CellClosed(codemode.CellID)                                    {}

// TestAThousandLiveCellsOverV1Stdio (issue 38.4, ADR 59): one codemode-host process serves 1,000
// live cells, each blocked on a tool call its client never answers, in one session of one V1 stdio
// connection: Codex's V1 host runs that many, so a client written against it must not be refused
// at the 129th as it was before ("code-mode host has too many active cells", a cap Codex applies
// to its gRPC host only). Under --memory-budget 2Gi the host admits 1,536 cells (1.5 GiB at 1 MiB
// each). The host's resident memory is logged. The executes are kept at most 64 in flight (the
// host answers at most 256 requests at once).
func TestAThousandLiveCellsOverV1Stdio(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 1,000 cells on a host")
	}
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("resident memory is read from /proc")
	}
	p := v1client.NewProcessProvider(v1client.Command{Path: bin, Args: []string{"--listen", "stdio", "--memory-budget", "2Gi", "--log-level", "warn"}}, v1client.Options{})
	t.Cleanup(func() { _ = p.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	d := &blockedTools{all: make(chan struct{})}
	s, err := p.CreateSession(ctx, codemode.FromBlocking(d), codemode.SessionCellExecutionLimits{})
	if err != nil {
		t.Fatal(err)
	}
	pid := hostPID(t, bin)
	before := vmRSS(pid)
	start := time.Now()
	var wg sync.WaitGroup
	inFlight := make(chan struct{}, 64)
	errs := make(chan error, liveCells)
	for range liveCells {
		inFlight <- struct{}{}
		wg.Go(func() {
			defer func() { <-inFlight }()
			yield := uint64(1)
			started, err := s.Execute(ctx, codemode.ExecuteRequest{ToolCallID: "live", Source: `await tools.block({})`, EnabledTools: benchTools, YieldTimeMs: &yield})
			if err != nil {
				errs <- err
				return
			}
			if r, err := started.InitialResponse(ctx); err != nil || r.Kind != codemode.Yielded {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("a live cell: %v", err)
	}
	select {
	case <-d.all:
	case <-ctx.Done():
		t.Fatalf("%d of %d tool calls arrived", d.arrived.Load(), liveCells)
	}
	started := time.Since(start)
	after := vmRSS(pid)
	t.Logf("%d live cells blocked on tools, started in %v: the host's resident memory is %.0f MiB (%.0f MiB before them, %.0f KiB a cell)",
		liveCells, started.Round(time.Millisecond), float64(after)/(1<<20), float64(before)/(1<<20), float64(after-before)/liveCells/1024)
	if err := s.Shutdown(ctx); err != nil {
		t.Fatalf("shutting the session of %d live cells down: %v", liveCells, err)
	}
}
