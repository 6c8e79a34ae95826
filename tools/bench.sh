#!/usr/bin/env bash
# make bench: runs the runtime benchmarks and, in the same invocation, the same workloads on a
# Node node:vm baseline, then prints a Markdown table of both with ratios (ours / baseline).
# Paste the table into docs/benchmarks.md together with this command line. Ratios, not absolute
# numbers, are what compare across these noisy shared machines.
#
#   BENCHTIME=2s COUNT=1 ./tools/bench.sh
#   BEFORE=<commit> ./tools/bench.sh    # also runs the table's benchmarks at <commit> (a temporary
#                                       # worktree) and adds "before" and "now / before" columns
#
# Then codemode-host against Codex's own host (tools/bench-codex.sh), the V1 transports (tools/bench-v1.sh), the gRPC transport (tools/bench-grpc.sh), the MCP
# server (tools/bench-mcp-server.sh) and the MCP tool sources (tools/bench-mcp-tools.sh) tables.
#
# The sustained benchmarks (100 concurrent sessions; 1,000 idle sessions and 100 live cells)
# report process RSS, so they run in a go test process of their own.
set -euo pipefail
cd "$(dirname "$0")/.."
out=.cache/bench
mkdir -p "$out"
benchtime=${BENCHTIME:-1s}

# The rows of the table: OurName=BaselineName[@unit]; "-" means no node:vm counterpart.
pairs=(
  CellStartWarm=CellStartText
  CellStartSustained=CellStartText
  ToolRoundTrip=ToolRoundTrip
  PromiseAll100=PromiseAll100
  Loop1e6=Loop1e6
  ToolResult1MiB=ToolResult1MiB
  WasmCrossing=-
  EngineTurn=-
  TerminateWhileTrue=-
  Memory=Memory@B/idle-session
  Memory=Memory@B/live-cell
  Sustained100Sessions=-@calls/s
  Sustained100Sessions=-@p50-µs
  Sustained100Sessions=-@p99-µs
  Sustained100Sessions=-@peak-RSS-MiB
  IdleAndLiveSessions=-@RSS-MiB
)

# bench_regexp is the -bench pattern of the table's own rows.
bench_regexp() {
  local names=() p
  for p in "${pairs[@]}"; do names+=("${p%%=*}"); done
  printf '^Benchmark(%s)$' "$(printf '%s\n' "${names[@]}" | sort -u | paste -sd'|')"
}

echo "== go test -bench (pkg/jsruntime, pkg/modeltool), benchtime $benchtime" >&2
go test -run '^$' -bench . -skip 'Sustained100Sessions|IdleAndLiveSessions' -benchmem -benchtime "$benchtime" -count "${COUNT:-1}" \
  ./pkg/jsruntime/ ./pkg/jsruntime/internal/engine/ ./pkg/modeltool/ | tee "$out/ours.txt" >&2
echo "== sustained (own process: RSS)" >&2
go test -run '^$' -bench 'Sustained100Sessions' -benchtime 50000x ./pkg/jsruntime/ | tee -a "$out/ours.txt" >&2
go test -run '^$' -bench 'IdleAndLiveSessions' -benchtime 1x ./pkg/jsruntime/ | tee -a "$out/ours.txt" >&2

before_flag=()
if [ -n "${BEFORE:-}" ]; then
  echo "== the same benchmarks at $BEFORE (temporary worktree)" >&2
  tree="$out/before"
  git worktree remove --force "$tree" 2>/dev/null || true
  git worktree add --detach "$tree" "$BEFORE" >&2
  (cd "$tree" && go test -run '^$' -bench "$(bench_regexp)" -benchmem -benchtime "$benchtime" ./pkg/jsruntime/) | tee "$out/before.txt" >&2 || true
  git worktree remove --force "$tree"
  before_flag=(-before "$out/before.txt")
fi

echo "== node:vm baseline" >&2
ms=$(go run ./tools/bench/report -duration-ms "$benchtime")
BENCHTIME_MS=$ms node --expose-gc tools/bench/nodevm.mjs | tee "$out/node.txt" >&2

echo
echo "Command: \`make bench\` (BENCHTIME=$benchtime${BEFORE:+, BEFORE=$BEFORE}), $(date -u +%Y-%m-%d), $(nproc) cores, $(go version | cut -d' ' -f3), node $(node --version)"
echo
go run ./tools/bench/report -ours "$out/ours.txt" -base "$out/node.txt" "${before_flag[@]}" "${pairs[@]}"

echo
echo "== codemode-host against Codex's own host (V8), both process hosts on V1 stdio" >&2
./tools/bench-codex.sh

echo
echo "== V1 transports (pkg/v1/v1client ⇄ a pkg/v1/v1host process) vs in process and the machine's floor" >&2
./tools/bench-v1.sh

echo
echo "== gRPC transport (pkg/grpc/grpcclient ⇄ pkg/grpc/grpchost on 127.0.0.1) vs in process" >&2
./tools/bench-grpc.sh

echo
echo "== MCP server (pkg/mcpserver): 100 tool calls one exec each vs one Promise.all" >&2
./tools/bench-mcp-server.sh

echo
echo "== MCP servers as tool sources (pkg/toolsources/mcptools) vs the MCP Go SDK client directly" >&2
./tools/bench-mcp-tools.sh

echo
echo "== scale-out: the host binary directly and behind HAProxy, host memory" >&2
./tools/bench-scale.sh

echo
echo "== exec-server codec (pkg/execserver/execrpc): refusing the heap-amplification message vs encoding/json" >&2
go test -run '^$' -bench RejectHeapAmplification -benchtime 10x -count 3 ./pkg/execserver/execrpc | grep '^Benchmark'
