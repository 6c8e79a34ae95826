#!/usr/bin/env bash
# MCP servers as tool sources (pkg/toolsources/mcptools): a cell making 100 calls of a stdio MCP server's tool
# (BenchmarkMCPCellHundredCalls: awaited one by one, and all at once with Promise.all) against the
# same 100 calls made by the MCP Go SDK's client directly, with no cell in between
# (BenchmarkMCPClientHundredCalls: one by one, and from 100 goroutines), in one run, printed as a
# Markdown table with ratios. The server is the test binary serving MCP on stdio: a real process
# over real pipes. tools/bench.sh runs it; alone:
#
#   BENCHTIME=50x COUNT=3 ./tools/bench-mcp-tools.sh
#
# Rows take the median of COUNT runs.
set -euo pipefail
cd "$(dirname "$0")/.."
out=.cache/bench
mkdir -p "$out"
benchtime=${BENCHTIME:-50x}
count=${COUNT:-3}

echo "== go test -bench (pkg/toolsources/mcptools), benchtime $benchtime, count $count" >&2
go test -run '^$' -bench 'MCPCellHundredCalls|MCPClientHundredCalls' -benchtime "$benchtime" -count "$count" \
  ./pkg/toolsources/mcptools/ | tee "$out/mcp-tools.txt" >&2

echo
echo "Command: \`./tools/bench-mcp-tools.sh\` (BENCHTIME=$benchtime, COUNT=$count, medians), $(date -u +%Y-%m-%d), $(nproc) cores, $(go version | cut -d' ' -f3), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo
awk "$(cat tools/bench/median.awk)"'
  function ms(ns) { return sprintf("%.1f ms (%.0f µs/call)", ns / 1e6, ns / 1e5) }
  /^BenchmarkMCP/ {
    split($1, name, "/"); sub(/^Benchmark/, "", name[1]); sub(/-[0-9]+$/, "", name[2])
    ns[name[1] SUBSEP name[2]] = ns[name[1] SUBSEP name[2]] " " $3
  }
  END {
    print "| 100 calls of a stdio MCP tool | cell (pkg/toolsources/mcptools) | MCP Go SDK client directly | cell / client |"
    print "| --- | --- | --- | --- |"
    c = median(ns["MCPCellHundredCalls", "sequential"]); d = median(ns["MCPClientHundredCalls", "sequential"])
    printf "| one by one (`await` in a loop / sequential calls) | %s | %s | %.2f× |\n", ms(c), ms(d), c / d
    c = median(ns["MCPCellHundredCalls", "promise_all"]); d = median(ns["MCPClientHundredCalls", "concurrent"])
    printf "| all at once (`Promise.all` / 100 goroutines) | %s | %s | %.2f× |\n", ms(c), ms(d), c / d
  }
' "$out/mcp-tools.txt"
