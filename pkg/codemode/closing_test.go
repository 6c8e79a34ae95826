package codemode_test

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// closingDelegate's CellUsage and CellClosed do what the cell's ID says, and it records what it
// hears, in order.
type closingDelegate struct {
	codemode.NoopDelegate
	heard []string
}

func (d *closingDelegate) act(id codemode.CellID, callback string) {
	d.heard = append(d.heard, callback+" "+string(id))
	switch id {
	case "panic":
		panic("probe")
	case "goexit":
		runtime.Goexit()
	}
}

func (d *closingDelegate) CellUsage(id codemode.CellID, _ codemode.CellUsage) { d.act(id, "usage") }
func (d *closingDelegate) CellClosed(id codemode.CellID)                      { d.act(id, "closed") }
func (d *closingDelegate) ReportFailure(reason string)                        { d.heard = append(d.heard, reason) }

// A closing callback that panics or ends its goroutine is reported as the cell's task failing,
// with the texts every transport reports, and the caller goes on to the next callback.
func TestClosingCallbacksAreContained(t *testing.T) {
	cases := map[codemode.CellID]string{
		"ok": "[usage ok closed ok]",
		"panic": "[usage panic code-mode cell panic task failed: CellUsage panicked: probe " +
			"closed panic code-mode cell panic task failed: CellClosed panicked: probe]",
		"goexit": "[usage goexit code-mode cell goexit task failed: CellUsage ended its goroutine without returning " +
			"closed goexit code-mode cell goexit task failed: CellClosed ended its goroutine without returning]",
	}
	for id, want := range cases {
		d := &closingDelegate{}
		codemode.CallCellUsage(d, id, codemode.CellUsage{})
		codemode.CallCellClosed(d, id)
		if got := fmt.Sprint(d.heard); got != want {
			t.Errorf("cell %s: heard %s, want %s", id, got, want)
		}
	}
}
