#!/usr/bin/env bash
# Scale-out benchmarks (services/codemode-host, the real binary): tool-call round trips and
# throughput of one host directly, one host behind HAProxy and three hosts behind HAProxy
# (deploy/haproxy/haproxy.cfg), and one host's memory per idle session and per live cell.
# tools/bench.sh runs it; alone:
#
#   RTT=3000x STORM=12000x COUNT=3 ./tools/bench-scale.sh
#
# Rows take the median of COUNT runs; ratios are against direct-1host of the same run. Needs
# haproxy (make setup-system installs it).
set -euo pipefail
cd "$(dirname "$0")/.."
out=.cache/bench
mkdir -p "$out"
rtt=${RTT:-3000x}
storm=${STORM:-12000x}
count=${COUNT:-3}

echo "== go test -bench (services/codemode-host): round trip $rtt, throughput $storm, count $count" >&2
{
  go test -run '^$' -bench 'ScaleToolRoundTrip' -benchtime "$rtt" -count "$count" ./services/codemode-host/
  go test -run '^$' -bench 'ScaleToolThroughput' -benchtime "$storm" -count "$count" ./services/codemode-host/
  go test -run '^$' -bench 'HostMemory' -benchtime 1x -count "$count" ./services/codemode-host/
} | tee "$out/scale.txt" >&2

echo
echo "Command: \`./tools/bench-scale.sh\` (RTT=$rtt, STORM=$storm, COUNT=$count, medians), $(date -u +%Y-%m-%d), $(nproc) cores, $(go version | cut -d' ' -f3), $(haproxy -v | head -n 1 | cut -d' ' -f1-3), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo
awk "$(cat tools/bench/median.awk)"'
  /^BenchmarkScaleToolRoundTrip\// { split($1, n, "/"); sub(/-[0-9]+$/, "", n[2]); rtt[n[2]] = rtt[n[2]] " " $3 }
  /^BenchmarkScaleToolThroughput\// { split($1, n, "/"); sub(/-[0-9]+$/, "", n[2]); for (i = 4; i < NF; i++) if ($(i + 1) == "calls/s") cps[n[2]] = cps[n[2]] " " $i }
  /^BenchmarkHostMemory/ { for (i = 4; i < NF; i++) mem[$(i + 1)] = mem[$(i + 1)] " " $i }
  END {
    base_rtt = median(rtt["direct-1host"]); base_cps = median(cps["direct-1host"])
    print "| set-up | tool round trip | vs direct | tool calls/s (60 sessions) | vs direct |"
    print "| --- | --- | --- | --- | --- |"
    split("direct-1host haproxy-1host haproxy-3hosts", rows, " ")
    for (r = 1; r <= 3; r++) {
      k = rows[r]; t = median(rtt[k]); c = median(cps[k])
      printf "| %s | %.1f µs | %.2f× | %.0f | %.2f× |\n", k, t / 1000, t / base_rtt, c, c / base_cps
    }
    printf "\nProxy cost per round trip (haproxy-1host − direct-1host): %.1f µs\n", (median(rtt["haproxy-1host"]) - base_rtt) / 1000
    printf "\n| host memory (VmRSS) | median |\n| --- | --- |\n"
    printf "| started, one warm session | %.1f MiB |\n", median(mem["base-RSS-MiB"])
    printf "| per idle session (500) | %.1f KiB |\n", median(mem["B/idle-session"]) / 1024
    printf "| per live cell (100 yielded cells awaiting) | %.0f KiB |\n", median(mem["B/live-cell"]) / 1024
    printf "| total with 501 idle sessions and 100 live cells | %.1f MiB |\n", median(mem["RSS-MiB"])
  }' "$out/scale.txt"
