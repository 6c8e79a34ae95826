package main_test

import (
	"os"
	"strings"
	"testing"

	"github.com/codemodehq/codemode/pkg/v1/v1frame"
)

// TestStalledV1OutputsStayWithinTheMemoryBudget (ADR 59): the same sixteen 48 MiB outputs over V1
// stdio, whose client reads nothing after its session opened. The frames wait in the
// connection's queue (or in a write the pipe blocks), and each is charged to the budget until it
// is written; before, none was, so every cell's output fitted the budget the previous one had
// given back when its frame was made, and the frames piled up unseen. The host stays under its
// budget; once read, each cell's initial response is its whole output or the budget's refusal.
func TestStalledV1OutputsStayWithinTheMemoryBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("runs memory bombs against a host")
	}
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("resident memory is read from /proc")
	}
	h := startHost(t, nil, "--listen", "stdio", "--memory-budget", "512Mi")
	p := &v1Process{t: t, host: h, frames: make(chan frameOrErr, 64)}
	r := v1frame.NewReader(h.stdout)
	read := func() string {
		t.Helper()
		b, err := r.Read()
		if err != nil {
			t.Fatalf("reading a frame: %v; stderr:\n%s", err, h.stderrText())
		}
		return string(b)
	}
	p.send(helloLimits)
	read()
	p.send(openPlain)
	if got := read(); !strings.Contains(got, `"session/ready"`) {
		t.Fatalf("session/open: %s", got)
	}
	rss := watchRSS(t, h.cmd.Process.Pid)
	const cells = 16
	// One after the other: each cell writes its output once the previous one's frame waits.
	for i := range cells {
		p.send(execFrame(10+i, `text("x".repeat(48 << 20))`, "null", 600_000))
		h.awaitStderr("code-mode cell finished")
	}
	t.Logf("all 16 cells finished: resident %d MiB", vmRSS(h.cmd.Process.Pid)>>20)
	checkPeak(t, "16 stalled 48 MiB outputs over V1", rss)

	whole, refused := 0, 0
	for answered := 0; answered < cells; {
		got := read()
		if !strings.Contains(got, `"execute/initialResponse"`) {
			continue
		}
		answered++
		switch {
		case strings.Contains(got, `"error_text":null`) && strings.Count(got, "x") >= 48<<20:
			whole++
		case strings.Contains(got, spentText):
			refused++
		default:
			t.Errorf("an initial response: %.300s", got)
		}
	}
	t.Logf("%d cells delivered 48 MiB, %d were refused by the budget", whole, refused)
	if whole == 0 || refused == 0 {
		t.Errorf("%d cells delivered, %d refused: want some of each", whole, refused)
	}
}
