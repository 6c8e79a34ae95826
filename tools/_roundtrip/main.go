// Command _roundtrip splits the awaited tool round trips in a V1 host process's execution trace into
// their steps, by the goroutines' state transitions: the reader woken by the poller, its read, the
// answer handed to the cell's loop, the loop running, the tool call handed to the cell's sender,
// the loop parking, the sender's write, and the wait until the next answer (the client and the
// kernel). It prints each step's quartiles. The directory starts with "_" so that ./... leaves it
// out: it needs golang.org/x/exp/trace, a pinned tool dependency (go.tools.mod), not a module one.
//
//	cd pkg/v1/v1client && CODEMODE_V1_TEST_HOST_TRACE=/tmp/host.trace \
//	  go test -run '^$' -bench 'BenchmarkV1/stdio/ToolRoundTrip' -benchtime 100x
//	go run -modfile=go.tools.mod ./tools/_roundtrip /tmp/host.trace
package main

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"golang.org/x/exp/trace"
)

// steps are the moments of one round trip, in order.
var steps = []string{"wake", "readDone", "cellReady", "cellRun", "senderReady", "cellPark", "senderRun", "writeStart", "writeEnd", "nextWake"}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: _roundtrip HOST_TRACE")
		os.Exit(2)
	}
	rows, err := split(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	report(rows)
}

// split reads the trace and returns the moments of each complete round trip.
func split(path string) ([]map[string]trace.Time, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r, err := trace.NewReader(f)
	if err != nil {
		return nil, err
	}
	var s splitter
	s.reader, s.cell, s.sender = trace.NoGoroutine, trace.NoGoroutine, trace.NoGoroutine
	for {
		ev, err := r.ReadEvent()
		if err == io.EOF {
			return s.rows, nil
		}
		if err != nil {
			return s.rows, nil // a trace cut off by the process's end: keep what was read
		}
		if ev.Kind() == trace.EventStateTransition && ev.StateTransition().Resource.Kind == trace.ResourceGoroutine {
			s.observe(ev)
		}
	}
}

// splitter follows the reader, the cell's loop and the cell's sender, learnt from the calls they
// make when they hand work on.
type splitter struct {
	reader, cell, sender trace.GoID
	cur                  map[string]trace.Time
	rows                 []map[string]trace.Time
}

func (s *splitter) observe(ev trace.Event) {
	st := ev.StateTransition()
	g := st.Resource.Goroutine()
	from, to := st.Goroutine()
	t := ev.Time()
	mark := func(step string) {
		if _, seen := s.cur[step]; s.cur != nil && !seen {
			s.cur[step] = t
		}
	}
	switch {
	case from == trace.GoWaiting && to == trace.GoRunnable && ev.Goroutine() == trace.NoGoroutine && (g == s.reader || s.reader == trace.NoGoroutine):
		if s.cur != nil && s.cur["writeEnd"] != 0 {
			s.cur["nextWake"] = t
			s.rows = append(s.rows, s.cur)
		}
		s.cur = map[string]trace.Time{"wake": t}
	case from == trace.GoSyscall && to == trace.GoRunning && g == s.reader:
		mark("readDone")
	case to == trace.GoRunnable && calls(ev.Stack(), "sendResultWithoutBlocking"):
		s.reader, s.cell = ev.Goroutine(), g
		mark("cellReady")
	case from == trace.GoRunnable && to == trace.GoRunning && g == s.cell:
		mark("cellRun")
	case to == trace.GoRunnable && calls(ev.Stack(), "routeTable).update"):
		s.sender = g
		mark("senderReady")
	case from == trace.GoRunning && to == trace.GoWaiting && g == s.cell:
		mark("cellPark")
	case from == trace.GoRunning && to == trace.GoSyscall && g == s.sender && calls(st.Stack, "syscall.write"):
		mark("writeStart")
	case from == trace.GoSyscall && to == trace.GoRunning && g == s.sender:
		mark("writeEnd")
	case to == trace.GoRunning && g == s.sender:
		mark("senderRun")
	}
}

// calls reports whether a frame of st is in a function whose name contains name.
func calls(st trace.Stack, name string) bool {
	for f := range st.Frames() {
		if strings.Contains(f.Func, name) {
			return true
		}
	}
	return false
}

// report prints the quartiles of every step and of the whole round trip.
func report(rows []map[string]trace.Time) {
	fmt.Printf("%d round trips\n", len(rows))
	for i := 1; i < len(steps); i++ {
		var ds []float64
		for _, row := range rows {
			if a, b := row[steps[i-1]], row[steps[i]]; a != 0 && b != 0 {
				ds = append(ds, float64(b-a)/1e3)
			}
		}
		printQuartiles(steps[i-1]+" → "+steps[i], ds)
	}
	var whole []float64
	for _, row := range rows {
		whole = append(whole, float64(row["nextWake"]-row["wake"])/1e3)
	}
	printQuartiles("whole round trip", whole)
}

func printQuartiles(name string, ds []float64) {
	if len(ds) == 0 {
		return
	}
	sort.Float64s(ds)
	q := func(p float64) float64 { return ds[int(p*float64(len(ds)-1))] }
	fmt.Printf("%-26s n=%5d  p25 %6.1f  p50 %6.1f  p75 %6.1f  p90 %6.1f µs\n", name, len(ds), q(.25), q(.5), q(.75), q(.9))
}
