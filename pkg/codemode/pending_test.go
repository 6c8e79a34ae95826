package codemode_test

import (
	"context"
	"errors"
	"testing"

	"github.com/codemodehq/codemode/pkg/codemode"
)

func TestPendingOutcomesNameTheirCell(t *testing.T) {
	p := codemode.PendingOutcome(codemode.PendingFrontier{CellID: "3", PendingToolCallIDs: []string{"tool-1"}})
	if p.Completed || p.CellID() != "3" {
		t.Fatalf("pending outcome %+v names cell %q", p, p.CellID())
	}
	c := codemode.CompletedOutcome(codemode.RuntimeResponse{Kind: codemode.Result, CellID: "4"})
	if !c.Completed || c.CellID() != "4" {
		t.Fatalf("completed outcome %+v names cell %q", c, c.CellID())
	}
	live := codemode.LivePendingCell(p)
	if live.Missing || live.Outcome.CellID() != "3" {
		t.Fatalf("live outcome %+v", live)
	}
}

func TestMissingPendingCellOutcomeCarriesTheMissingCellResponse(t *testing.T) {
	o := codemode.MissingPendingCellOutcome("9")
	r := o.Outcome.Response
	if !o.Missing || !o.Outcome.Completed || r.Kind != codemode.Result || r.CellID != "9" || *r.ErrorText != "exec cell 9 not found" {
		t.Fatalf("missing outcome %+v", o)
	}
}

func TestUnobservedCellErrorWrapsTheContextError(t *testing.T) {
	var err error = &codemode.UnobservedCellError{CellID: "2", Err: context.Canceled}
	if !errors.Is(err, context.Canceled) {
		t.Fatal("errors.Is does not see the context error")
	}
	var u *codemode.UnobservedCellError
	if !errors.As(err, &u) || u.CellID != "2" {
		t.Fatalf("errors.As: %v", err)
	}
	if got := err.Error(); got != "exec cell 2 keeps running unobserved: context canceled" {
		t.Fatalf("text %q", got)
	}
}

// The texts are Codex's; owners match on them.
func TestFailureTextsArePinned(t *testing.T) {
	for got, want := range map[string]string{
		codemode.FailureToolTaskPanicked:              "code mode tool task panicked",
		codemode.FailureNotificationTaskPanicked:      "code mode notification task panicked",
		codemode.FailureRuntimePanicked:               "code-mode V8 runtime thread panicked",
		codemode.FailureRuntimeEnded:                  "code-mode V8 runtime thread ended unexpectedly",
		codemode.ToolTaskFailure("x"):                 "code mode tool task failed: x",
		codemode.NotificationTaskFailure("x"):         "code mode notification task failed: x",
		codemode.CellTaskFailure("1", "panic: probe"): "code-mode cell 1 task failed: panic: probe",
	} {
		if got != want {
			t.Errorf("%q, want %q", got, want)
		}
	}
}
