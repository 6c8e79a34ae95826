#!/usr/bin/env bash
# codemode-host against Codex's own host (the pinned codex-code-mode-host, V8): issue 26's workloads
# through one Go client (pkg/v1/v1client) driving both as process hosts on V1 stdio, the way Codex
# spawns a host, in one run (BenchmarkAgainstCodexHost in services/codemode-host), printed as a
# Markdown table of medians and ratios codemode / Codex. The compute rows (Loop1e6, JSON20kObjects)
# also show the floor: the same scripts on the pinned qjs module as it ships, with no codemode code
# (BenchmarkPlainQJS in pkg/jsruntime/internal/engine), run between the comparison's runs. A row a
# host skipped (LiveCells1000RSS on a host that refuses the 1,000th live cell) shows "—".
# tools/bench.sh runs it; alone:
#
#   COUNT=5 ./tools/bench-codex.sh
#
# A candidate build joins the same alternation as a third host (CODEMODE_BENCH_CANDIDATE, its path;
# CODEMODE_BENCH_CANDIDATE_ENV, K=V pairs for its environment) and gets two more columns:
#
#   go build -o /tmp/candidate ./services/codemode-host   # on the changed tree
#   CODEMODE_BENCH_CANDIDATE=/tmp/candidate ./tools/bench-codex.sh
set -euo pipefail
cd "$(dirname "$0")/.."
out=.cache/bench
mkdir -p "$out"
count=${COUNT:-3}

# REPORT_ONLY=1 prints the table of the last run's results again.
if [ -z "${REPORT_ONLY:-}" ]; then
  # Codex's host comes from node_modules: without it the benchmark skips and the table is empty.
  ./tools/setup.sh >&2
  echo "== go test -bench AgainstCodexHost (services/codemode-host), count $count" >&2
  go test -c -o "$out/codemode-host.test" ./services/codemode-host
  go test -c -o "$out/engine.test" ./pkg/jsruntime/internal/engine
  : >"$out/codex.txt"
  # A row that fails (its message goes to stderr) leaves the rest of the run and the table standing.
  for i in $(seq "$count"); do
    (cd services/codemode-host && "../../$out/codemode-host.test" -test.run '^$' -test.bench 'BenchmarkAgainstCodexHost' -test.benchtime 1s || true) |
      grep -E '^Benchmark|^ +[a-z_]+_test\.go|FAIL' | tee -a "$out/codex.txt" >&2
    (cd pkg/jsruntime/internal/engine && "../../../../$out/engine.test" -test.run '^$' -test.bench 'BenchmarkPlainQJS' -test.benchtime 1s || true) |
      grep -E '^Benchmark|^ +[a-z_]+_test\.go|FAIL' | tee -a "$out/codex.txt" >&2
  done
fi

codex_version=$(node -p 'require("./node_modules/@openai/codex/package.json").version' 2>/dev/null || echo "?")
echo
echo "Command: \`./tools/bench-codex.sh\` (COUNT=$count, medians), $(date -u +%Y-%m-%d), $(nproc) cores, $(go version | cut -d' ' -f3), Codex $codex_version, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo
awk "$(cat tools/bench/median.awk)"'
  function show(v, unit) {
    if (v == "") return "—"
    if (unit == "B/live-cell") return sprintf("%.0f KiB", v / 1024)
    if (v >= 1e6) return sprintf("%.1f ms", v / 1e6)
    return sprintf("%.0f µs", v / 1e3)
  }
  /FAIL/ { next }
  /^BenchmarkAgainstCodexHost\// {
    split($1, p, "/"); w = p[2]; h = p[3]; sub(/^host=/, "", h); sub(/-[0-9]+$/, "", h)
    unit = "ns/op"; v = $3
    for (i = 5; i < NF; i += 2) if ($(i + 1) == "ns/call" || $(i + 1) == "ns/cell" || $(i + 1) == "B/live-cell") { v = $i; unit = $(i + 1) }
    vals[w, h] = vals[w, h] " " v; units[w] = unit
    if (!(w in seen)) { seen[w] = 1; order[++n] = w }
  }
  /^BenchmarkPlainQJS\// { split($1, p, "/"); w = p[2]; sub(/-[0-9]+$/, "", w); floor[w] = floor[w] " " $3 }
  END {
    for (k = 1; k <= n; k++) if ((order[k], "candidate") in vals) cand = 1
    if (cand) {
      print "| workload | Codex | codemode | codemode / Codex | candidate | candidate / Codex | plain qjs.wasm floor / Codex |"
      print "|---|---|---|---|---|---|---|"
    } else {
      print "| workload | Codex | codemode | codemode / Codex | plain qjs.wasm floor / Codex |"
      print "|---|---|---|---|---|"
    }
    for (k = 1; k <= n; k++) {
      w = order[k]; c = median(vals[w, "codex"]); m = median(vals[w, "codemode"])
      f = (w in floor) ? sprintf("%.2f× (%s)", median(floor[w]) / c, show(median(floor[w]), "ns/op")) : ""
      x = ""
      if (cand) {
        d = median(vals[w, "candidate"])
        x = sprintf(" %s | %s |", show(d, units[w]), (c > 0 && d != "" ? sprintf("%.2f×", d / c) : "—"))
      }
      printf "| %s | %s | %s | %s |%s %s |\n", w, show(c, units[w]), show(m, units[w]), (c > 0 && m != "" ? sprintf("%.2f×", m / c) : "—"), x, f
    }
  }
' "$out/codex.txt"
