package codemode_test

import (
	"context"
	"testing"
	"time"

	"github.com/codemodehq/codemode/pkg/codemode"
)

func TestStartedCellAbandonsOnCancelledContext(t *testing.T) {
	abandoned := make(chan struct{}, 2)
	c := codemode.NewStartedCell("1", make(chan codemode.InitialResult), func() { abandoned <- struct{}{} })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if _, err := c.InitialResponse(ctx); err != context.DeadlineExceeded {
		t.Fatalf("err = %v", err)
	}
	c.Abandon()
	if len(abandoned) != 1 {
		t.Fatalf("abandon ran %d times, want 1", len(abandoned))
	}
}

func TestStartedCellClosedChannelIsRuntimeEnded(t *testing.T) {
	ch := make(chan codemode.InitialResult)
	close(ch)
	c := codemode.NewStartedCell("1", ch, nil)
	if _, err := c.InitialResponse(context.Background()); err == nil || err.Error() != "exec runtime ended unexpectedly" {
		t.Fatalf("err = %v", err)
	}
}

func TestStartedCellDeliveredResponseIsNotAbandoned(t *testing.T) {
	ch := make(chan codemode.InitialResult, 1)
	ch <- codemode.InitialResult{Response: codemode.RuntimeResponse{Kind: codemode.Result, CellID: "1"}}
	called := false
	c := codemode.NewStartedCell("1", ch, func() { called = true })
	r, err := c.InitialResponse(context.Background())
	if err != nil || r.Kind != codemode.Result {
		t.Fatalf("%v %v", r, err)
	}
	c.Abandon()
	if called {
		t.Fatal("abandon ran after the response was received")
	}
	if r2, _ := c.InitialResponse(context.Background()); r2.CellID != "1" {
		t.Fatal("second InitialResponse lost the response")
	}
}
