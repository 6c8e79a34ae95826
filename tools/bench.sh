#!/usr/bin/env bash
# make bench: runs the runtime benchmarks and, in the same invocation, the same workloads on a
# Node node:vm baseline, then prints a Markdown table of both with ratios (ours / baseline).
# Paste the table into docs/benchmarks.md together with this command line. Ratios, not absolute
# numbers, are what compare across these noisy shared machines.
#
#   BENCHTIME=2s COUNT=1 ./tools/bench.sh
set -euo pipefail
cd "$(dirname "$0")/.."
out=.cache/bench
mkdir -p "$out"
benchtime=${BENCHTIME:-1s}

echo "== go test -bench (pkg/jsruntime, pkg/exectool), benchtime $benchtime" >&2
go test -run '^$' -bench . -benchmem -benchtime "$benchtime" -count "${COUNT:-1}" \
  ./pkg/jsruntime/ ./pkg/exectool/ | tee "$out/ours.txt" >&2

echo "== node:vm baseline" >&2
ms=$(go run ./tools/bench/report -duration-ms "$benchtime")
BENCHTIME_MS=$ms node --expose-gc tools/bench/nodevm.mjs | tee "$out/node.txt" >&2

echo
echo "Command: \`make bench\` (BENCHTIME=$benchtime), $(date -u +%Y-%m-%d), $(nproc) cores, $(go version | cut -d' ' -f3), node $(node --version)"
echo
go run ./tools/bench/report -ours "$out/ours.txt" -base "$out/node.txt" \
  CellStartWarm=CellStartText \
  ToolRoundTrip=ToolRoundTrip \
  PromiseAll100=PromiseAll100 \
  Loop1e6=Loop1e6 \
  ToolResult1MiB=ToolResult1MiB \
  Memory=Memory@B/idle-session \
  Memory=Memory@B/live-cell
