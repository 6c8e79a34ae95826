package main_test

import (
	"bufio"
	"context"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/grpc/grpcclient"
)

// BenchmarkStartToAddresses measures codemode-host from process start until it has printed the
// addresses of a WebSocket and a gRPC listener on 127.0.0.1:0 (what a client waits for before it
// connects). The runtime starts concurrently, so this does not include it; the first session waits
// for it. The binary is built by TestMain and run once before timing (wazero's compilation cache
// is then warm), so every iteration is a warm start. Teardown (SIGTERM, exit) is not timed.
func BenchmarkStartToAddresses(b *testing.B) {
	start := func() (*exec.Cmd, error) {
		cmd := exec.Command(bin, "--listen", "ws://127.0.0.1:0", "--listen", "grpc://127.0.0.1:0", "--log-level", "warn")
		out, err := cmd.StdoutPipe()
		if err != nil {
			return nil, err
		}
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		r := bufio.NewReader(out)
		for range 2 {
			line, err := r.ReadString('\n')
			if err != nil || !strings.Contains(line, "127.0.0.1:") {
				_ = cmd.Process.Kill()
				_ = cmd.Wait()
				b.Fatalf("codemode-host printed %q: %v", line, err)
			}
		}
		return cmd, nil
	}
	stop := func(cmd *exec.Cmd) {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		if err := cmd.Wait(); err != nil {
			b.Fatalf("codemode-host after SIGTERM: %v", err)
		}
	}
	cmd, err := start() // warms the page cache and wazero's compilation cache
	if err != nil {
		b.Fatal(err)
	}
	stop(cmd)
	b.ResetTimer()
	for range b.N {
		cmd, err := start()
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		stop(cmd)
		b.StartTimer()
	}
}

// BenchmarkStartToFirstCell measures from process start until a gRPC client has the Result of
// text("hi") in a new session: the addresses, the runtime's start (which the first session waits
// for), a lease and a cell. Teardown is not timed.
func BenchmarkStartToFirstCell(b *testing.B) {
	run := func() {
		cmd := exec.Command(bin, "--listen", "grpc://127.0.0.1:0", "--log-level", "warn")
		out, err := cmd.StdoutPipe()
		if err != nil {
			b.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		line, err := bufio.NewReader(out).ReadString('\n')
		if err != nil {
			b.Fatalf("codemode-host printed %q: %v", line, err)
		}
		p, err := grpcclient.New(strings.TrimSpace(line), grpcclient.Options{})
		if err != nil {
			b.Fatal(err)
		}
		ctx := context.Background()
		s, err := p.CreateSession(ctx, codemode.NoopDelegate{}, codemode.SessionCellExecutionLimits{})
		if err != nil {
			b.Fatal(err)
		}
		cell, err := s.Execute(ctx, codemode.ExecuteRequest{ToolCallID: "call-1", Source: `text("hi")`})
		if err != nil {
			b.Fatal(err)
		}
		if resp, err := cell.InitialResponse(ctx); err != nil || resp.Kind != codemode.Result {
			b.Fatalf("first cell: %+v, %v", resp, err)
		}
		b.StopTimer()
		_ = p.Close()
		_ = cmd.Process.Signal(syscall.SIGTERM)
		if err := cmd.Wait(); err != nil {
			b.Fatalf("codemode-host after SIGTERM: %v", err)
		}
		b.StartTimer()
	}
	run()
	b.ResetTimer()
	for range b.N {
		run()
	}
}
