package grpchost_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	pb "github.com/codemodehq/codemode/gen/go/pb/codex/code_mode/v1"
	"github.com/codemodehq/codemode/pkg/grpc/grpchost"
	"github.com/codemodehq/codemode/pkg/internal/membudget"
)

// TestAStalledWaitResponseIsCharged (ADR 59): a Wait whose client does not read its 32 MiB
// response holds it while the write is blocked; the host's budget is charged for it (three times
// its size, as an Execute outcome being sent) until it was written, and given back afterwards.
// Before, a Wait's response was charged nowhere: connect writes it after the handler returned.
// The client is a raw Connect request on its own TCP connection, which reads nothing until the
// charge is seen.
func TestAStalledWaitResponseIsCharged(t *testing.T) {
	b := membudget.New(1 << 30)
	srv := startServer(t, newJSProvider(t), grpchost.Options{MemoryBudget: b})
	l := srv.openSession(t, nil)
	e := srv.execute(t, request(l.id, "run-1", `yield_control(); text("x".repeat(32 << 20))`))
	if o := e.outcome(t); o.GetYielded() == nil {
		t.Fatalf("the initial outcome %v, want the yield", o)
	}
	const held = 3 * (32 << 20)
	body, err := proto.Marshal(&pb.WaitRequest{SessionId: l.id, CellId: e.cell, WaitId: "wait-1", YieldTimeMs: 600_000})
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", strings.TrimPrefix(srv.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /codex.code_mode.v1.CodeModeHost/Wait HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/proto\r\nConnect-Protocol-Version: 1\r\nContent-Length: %d\r\n\r\n", len(body))
	if _, err := conn.Write(body); err != nil {
		t.Fatal(err)
	}
	awaitUsed(t, b, "while the response waits to be read", func(used int64) bool { return used >= held })
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(resp.Body)
	var w pb.WaitResponse
	if err != nil || proto.Unmarshal(data, &w) != nil || len(w.GetLiveCell().GetContentItems()) != 1 {
		t.Fatalf("the Wait's response: %d bytes, %v", len(data), err)
	}
	awaitUsed(t, b, "once the response was read", func(used int64) bool { return used < held })
}

// awaitUsed waits until the budget's use satisfies ok: for the host to take or give back its
// charge, an event, however long it takes (testTimeout bounds a hang).
func awaitUsed(t *testing.T, b *membudget.Budget, when string, ok func(int64) bool) {
	t.Helper()
	deadline := time.Now().Add(testTimeout)
	for !ok(b.Used()) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: the budget holds %d bytes", when, b.Used())
		}
		time.Sleep(time.Millisecond)
	}
}
