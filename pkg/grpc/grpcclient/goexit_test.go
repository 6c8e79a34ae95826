package grpcclient_test

import (
	"context"
	"encoding/json"
	"runtime"
	"testing"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/grpc/grpcclient"
)

// A delegate that ends its goroutine instead of returning (runtime.Goexit, as t.FailNow in a test
// delegate does) still answers its call, with Codex's text, and the owner is told.
func TestDelegateGoexitFailsOnlyItsCall(t *testing.T) {
	h := startHost(t, "127.0.0.1:0")
	s, rec := session(t, newProvider(t, h.url(), grpcclient.ProtocolGRPC), codemode.SessionCellExecutionLimits{})
	rec.Handle("exit", func(context.Context, codemode.NestedToolCall) (json.RawMessage, error) {
		runtime.Goexit()
		return nil, nil
	})
	r := run(t, s, execReq(`try { await tools.exit({}); } catch (e) { text(String(e)); }`, toEnd, fnTool("exit")))
	const want = "code mode tool task failed: its goroutine ended without returning"
	if texts(r) != "{"+want+"};" {
		t.Fatalf("%+v", r)
	}
	if failures, err := rec.AwaitFailures(ctxT(t), 1); err != nil || len(failures) != 1 || failures[0] != want {
		t.Fatalf("reported failures %q, %v", failures, err)
	}
	if r := run(t, s, execReq(`text("alive")`, toEnd)); texts(r) != "{alive};" {
		t.Fatalf("%+v", r)
	}
}
