#!/usr/bin/env bash
# The gRPC transport's benchmarks (pkg/grpc/grpcclient): each workload in process, and over the Go
# client ⇄ host on 127.0.0.1 with gRPC (h2c) and Connect, in one run, printed as a Markdown table
# with ratios to the in-process numbers. tools/bench.sh runs it; alone:
#
#   BENCHTIME=20000x COUNT=3 ./tools/bench-grpc.sh
#
# Rows take the median of COUNT runs. The storm row reports tool calls per second across 100
# sessions and the CPU per call (client, host and runtime share this process), which does not
# depend on what else loads the machine.
set -euo pipefail
cd "$(dirname "$0")/.."
out=.cache/bench
mkdir -p "$out"
benchtime=${BENCHTIME:-20000x}
count=${COUNT:-3}

echo "== go test -bench (pkg/grpc/grpcclient), benchtime $benchtime, count $count" >&2
go test -run '^$' -bench 'ToolRoundTrip|CellStart|ToolStorm100Sessions' -benchtime "$benchtime" -count "$count" \
  ./pkg/grpc/grpcclient/ | tee "$out/grpc.txt" >&2

echo
echo "Command: \`./tools/bench-grpc.sh\` (BENCHTIME=$benchtime, COUNT=$count, medians), $(date -u +%Y-%m-%d), $(nproc) cores, $(go version | cut -d' ' -f3), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo
awk "$(cat tools/bench/median.awk)"'
  function us(ns) { return sprintf("%.1f µs", ns / 1000) }
  /^Benchmark/ {
    split($1, name, "/"); sub(/^Benchmark/, "", name[1]); sub(/-[0-9]+$/, "", name[2])
    key = name[1] SUBSEP name[2]
    ns[key] = ns[key] " " $3
    for (i = 5; i < NF; i += 2) if ($(i + 1) == "calls/s") cps[key] = cps[key] " " $i; else if ($(i + 1) == "cpu-µs/call") cpu[key] = cpu[key] " " $i
    rows[name[1]] = 1
  }
  END {
    print "| workload | in process | gRPC (h2c) | gRPC / in process | Connect | Connect / in process |"
    print "| --- | --- | --- | --- | --- | --- |"
    split("ToolRoundTrip CellStart", order, " ")
    for (k = 1; k <= 2; k++) {
      w = order[k]; if (!(w in rows)) continue
      base = median(ns[w, "inprocess"]); g = median(ns[w, "grpc"]); c = median(ns[w, "connect"])
      printf "| %s | %s | %s (+%s) | %.2f× | %s (+%s) | %.2f× |\n", w, us(base), us(g), us(g - base), g / base, us(c), us(c - base), c / base
    }
    w = "ToolStorm100Sessions"
    if (w in rows) {
      base = median(cps[w, "inprocess"]); g = median(cps[w, "grpc"]); c = median(cps[w, "connect"])
      printf "| %s (calls/s) | %.0f | %.0f | %.2f× | %.0f | %.2f× |\n", w, base, g, g / base, c, c / base
      base = median(cpu[w, "inprocess"]); g = median(cpu[w, "grpc"]); c = median(cpu[w, "connect"])
      printf "| %s (CPU µs/call) | %.1f | %.1f | %.2f× | %.1f | %.2f× |\n", w, base, g, g / base, c, c / base
    }
  }
' "$out/grpc.txt"
