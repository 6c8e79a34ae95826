package main

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMCPHasTheHostsMemoryBudget (ADR 59): codemode mcp takes --memory-budget as codemode-host
// does; before, it had no budget at all. A cell that grows its heap without end under
// --memory-budget 64Mi (cells share 48 MiB of it) fails with the budget's text long before its
// own 512 MiB cap, and the server answers the next cell.
func TestMCPHasTheHostsMemoryBudget(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), mcpWaitLimit)
	defer cancel()
	p := startMCPOverStdio(t, ctx, "--memory-budget", "64Mi")
	t.Cleanup(func() {
		_ = p.stdin.Close()
		_ = p.cmd.Wait()
	})
	client := p.client
	exec := func(code string) string {
		t.Helper()
		res, err := client.CallTool(ctx, &mcp.CallToolParams{Name: "exec", Arguments: map[string]any{"code": code, "yield_time_ms": 600000}})
		if err != nil {
			t.Fatalf("exec: %v", err)
		}
		var out strings.Builder
		for _, c := range res.Content {
			if text, ok := c.(*mcp.TextContent); ok {
				out.WriteString(text.Text)
			}
		}
		return out.String()
	}
	const spent = "the code-mode host's memory budget of 50331648 bytes"
	if got := exec(`const a = []; for (let i = 0; ; i++) a.push("x".repeat(1 << 20) + i)`); !strings.Contains(got, spent) {
		t.Fatalf("a heap bomb under a 64Mi budget: %.500q, want %q", got, spent)
	}
	if got := exec(`text("after")`); !strings.Contains(got, "after") {
		t.Fatalf("the next cell: %.500q", got)
	}
}

// TestServeRefusesAWrongMemoryBudget: codemode serve reads --memory-budget as codemode-host
// does (a wrong value is a wrong invocation).
func TestServeRefusesAWrongMemoryBudget(t *testing.T) {
	var stdout, stderr strings.Builder
	code := serveWith([]string{"--memory-budget", "1Mi"}, strings.NewReader(""), &stdout, &stderr, nil)
	if code != exitUsage || !strings.Contains(stderr.String(), "--memory-budget must be at least 67108864 bytes (64Mi)") {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
}
