#!/usr/bin/env bash
# The V1 transports' benchmarks (pkg/v1/v1client ⇄ pkg/v1/v1host, the host a second process): cell start
# and tool round trip in process, over stdio, WebSocket and dual WebSocket, and the floor of this
# machine (BenchmarkV1Floor: a bare frame echo between two processes over a pipe and over TCP on
# 127.0.0.1, with a cell's worth of work between round trips), in one run, printed as a Markdown
# table. tools/bench.sh runs it; alone:
#
#   COUNT=8 ./tools/bench-v1.sh
#
# Rows take the median of COUNT runs; "added" is transport minus in process of the same run (then
# the median), "over the floor" is added minus the floor's round trip of the same run.
set -euo pipefail
cd "$(dirname "$0")/.."
out=.cache/bench
mkdir -p "$out"
count=${COUNT:-5}

echo "== go test -bench (pkg/v1/v1client), count $count" >&2
go test -c -o "$out/v1client.test" ./pkg/v1/v1client
: >"$out/v1.txt"
for i in $(seq "$count"); do
  echo "== run $i" >>"$out/v1.txt"
  (cd pkg/v1/v1client && "../../../$out/v1client.test" -test.run '^$' -test.bench 'BenchmarkV1(Floor)?/' -test.benchtime 1s) |
    grep '^Benchmark' | tee -a "$out/v1.txt" >&2
done

echo
echo "Command: \`./tools/bench-v1.sh\` (COUNT=$count, medians), $(date -u +%Y-%m-%d), $(nproc) cores, $(go version | cut -d' ' -f3), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo
awk "$(cat tools/bench/median.awk)"'
  function flush() {
    if (!run) return
    for (w in seen) {
      for (t in transports) if ((w, t) in v && (w, "inprocess") in v) added[w, t] = added[w, t] " " (v[w, t] - v[w, "inprocess"])
      for (t in transports) if ((w, t) in v) all[w, t] = all[w, t] " " v[w, t]
      if ((w, "inprocess") in v) all[w, "inprocess"] = all[w, "inprocess"] " " v[w, "inprocess"]
    }
    if (("ToolRoundTrip", "stdio") in v && "pipe" in fl) over["stdio"] = over["stdio"] " " (v["ToolRoundTrip", "stdio"] - v["ToolRoundTrip", "inprocess"] - fl["pipe"])
    for (t in wsTransports) if (("ToolRoundTrip", t) in v && "tcp" in fl) over[t] = over[t] " " (v["ToolRoundTrip", t] - v["ToolRoundTrip", "inprocess"] - fl["tcp"])
    for (f in fl) floors[f] = floors[f] " " fl[f]
    delete v; delete fl
  }
  BEGIN { transports["stdio"]; transports["websocket"]; transports["dualwebsocket"]; wsTransports["websocket"]; wsTransports["dualwebsocket"] }
  /^== run/ { flush(); run = 1; next }
  /^BenchmarkV1Floor\// {
    split($1, name, "/"); sub(/-[0-9]+$/, "", name[2])
    fl[name[2]] = $5 * 1000; next
  }
  /^BenchmarkV1\// {
    split($1, name, "/"); sub(/-[0-9]+$/, "", name[3])
    w = name[3]; seen[w] = 1
    v[w, name[2]] = (w == "ToolRoundTrip") ? $5 * 1000 : $3
  }
  END {
    flush()
    print "| workload | in process | stdio (added) | WebSocket (added) | dual WebSocket (added) |"
    print "| --- | --- | --- | --- | --- |"
    split("CellStart ToolRoundTrip", order, " ")
    for (k = 1; k <= 2; k++) {
      w = order[k]
      printf "| %s | %.1f µs |", w, median(all[w, "inprocess"]) / 1000
      split("stdio websocket dualwebsocket", ts, " ")
      for (j = 1; j <= 3; j++) printf " %.1f µs (+%.1f) |", median(all[w, ts[j]]) / 1000, median(added[w, ts[j]]) / 1000
      print ""
    }
    printf "| floor: bare echo round trip | — | pipe %.1f µs | TCP %.1f µs | TCP |\n", median(floors["pipe"]) / 1000, median(floors["tcp"]) / 1000
    printf "| ToolRoundTrip added over the floor | — | %+.1f µs | %+.1f µs | %+.1f µs |\n", median(over["stdio"]) / 1000, median(over["websocket"]) / 1000, median(over["dualwebsocket"]) / 1000
  }
' "$out/v1.txt"
