#!/usr/bin/env bash
# The MCP server's benchmark (pkg/mcpserver): the same 100 tool calls made by an MCP client
# one by one (100 exec calls, one cell and one call each) and in one exec whose cell makes them
# with Promise.all, in one run, printed as a Markdown table with the ratio to the Promise.all
# row. tools/bench.sh runs it; alone:
#
#   BENCHTIME=20x COUNT=3 ./tools/bench-mcp-server.sh
#
# Rows take the median of COUNT runs.
set -euo pipefail
cd "$(dirname "$0")/.."
out=.cache/bench
mkdir -p "$out"
benchtime=${BENCHTIME:-20x}
count=${COUNT:-3}

echo "== go test -bench MCP100Calls (pkg/mcpserver), benchtime $benchtime, count $count" >&2
go test -run '^$' -bench 'MCP100Calls' -benchtime "$benchtime" -count "$count" ./pkg/mcpserver/ | tee "$out/mcp-server.txt" >&2

echo
echo "Command: \`./tools/bench-mcp-server.sh\` (BENCHTIME=$benchtime, COUNT=$count, medians), $(date -u +%Y-%m-%d), $(nproc) cores, $(go version | cut -d' ' -f3), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo
awk "$(cat tools/bench/median.awk)"'
  /^BenchmarkMCP100Calls\// {
    split($1, name, "/"); sub(/-[0-9]+$/, "", name[2])
    ns[name[2]] = ns[name[2]] " " $3
  }
  END {
    base = median(ns["promise-all"]); one = median(ns["one-by-one"])
    print "| 100 tool calls from an MCP client | time | per call | / Promise.all |"
    print "| --- | --- | --- | --- |"
    printf "| one exec, Promise.all of 100 calls (baseline) | %.1f ms | %.1f µs | 1.00× |\n", base / 1e6, base / 1e5
    printf "| 100 exec calls of one call each | %.1f ms | %.1f µs | %.1f× |\n", one / 1e6, one / 1e5, one / base
  }
' "$out/mcp-server.txt"
