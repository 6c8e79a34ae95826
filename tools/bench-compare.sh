#!/usr/bin/env bash
# Compares this tree with an earlier commit on the benchmarks a refactoring could move: cell start,
# tool round trip and Promise.all in process (pkg/jsruntime), over V1 stdio and WebSocket
# (pkg/v1/v1client, the host a second process) and over gRPC and Connect (pkg/grpc/grpcclient).
# Test binaries of both trees run alternately, each from its own package directory, so both see
# the same machine; the table gives each side's median and the median of the per-round ratios
# new/old, which is what compares on a loaded machine.
#
#   COUNT=10 ./tools/bench-compare.sh REV
#   ONLY=v1client COUNT=20 ./tools/bench-compare.sh REV     (only the suites whose package matches)
#
# REV is checked out into a temporary worktree, removed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
rev=${1:?usage: tools/bench-compare.sh REV}
count=${COUNT:-10}
out=$(mktemp -d "${TMPDIR:-/tmp}/bench-compare.XXXXXX")
old="$out/old-tree"
git worktree add -q --detach "$old" "$rev"
trap 'git worktree remove --force "$old"; rm -rf "$out"' EXIT
[ -e node_modules ] && ln -s "$PWD/node_modules" "$old/node_modules"

# Each suite: package directory; benchmark pattern; benchtime.
suites=(
  "pkg/jsruntime;^Benchmark(CellStartWarm|ToolRoundTrip|PromiseAll100)$;2000x"
  "pkg/v1/v1client;^BenchmarkV1$/^(stdio|websocket)$/^(ToolRoundTrip|CellStart)$;200x"
  "pkg/grpc/grpcclient;^Benchmark(ToolRoundTrip|CellStart)$/^(grpc|connect)$;200x"
)
if [ -n "${ONLY:-}" ]; then
  kept=()
  for s in "${suites[@]}"; do [[ ${s%%;*} == *"$ONLY"* ]] && kept+=("$s"); done
  suites=("${kept[@]}")
fi
for s in "${suites[@]}"; do
  pkg=${s%%;*}
  name=$(echo "$pkg" | tr / _)
  echo "== build $pkg at $rev and here" >&2
  (cd "$old" && go test -c -o "$out/$name.old" "./$pkg")
  go test -c -o "$out/$name.new" "./$pkg"
done

: >"$out/runs.txt"
for i in $(seq "$count"); do
  for s in "${suites[@]}"; do
    IFS=';' read -r pkg pattern benchtime <<<"$s"
    name=$(echo "$pkg" | tr / _)
    # Alternate which side goes first: the first run of a round warms the machine's caches.
    sides="old new"
    [ $((i % 2)) -eq 0 ] && sides="new old"
    for side in $sides; do
      dir=$PWD/$pkg
      [ "$side" = old ] && dir=$old/$pkg
      (cd "$dir" && "$out/$name.$side" -test.run '^$' -test.bench "$pattern" -test.benchtime "$benchtime") |
        awk -v side="$side" -v round="$i" '/^Benchmark/ { sub(/-[0-9]+$/, "", $1); print round, side, $1, $3 }' >>"$out/runs.txt"
    done
  done
  echo "== round $i of $count" >&2
done

echo "Command: \`COUNT=$count ./tools/bench-compare.sh $rev\` ($(git rev-parse --short "$rev") vs $(git rev-parse --short HEAD)$(git diff --quiet || echo ' + changes')), $(date -u +%Y-%m-%d), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| benchmark | old median | new median | new/old (median of rounds) |"
echo "|---|---|---|---|"
awk "$(cat tools/bench/median.awk)"'
  { v[$1, $2, $3] = $4; names[$3] = 1; rounds[$1] = 1 }
  END {
    for (n in names) {
      o = ""; w = ""; r = ""
      for (i in rounds) {
        if ((i, "old", n) in v) o = o " " v[i, "old", n]
        if ((i, "new", n) in v) w = w " " v[i, "new", n]
        if ((i, "old", n) in v && (i, "new", n) in v && v[i, "old", n] > 0) r = r " " v[i, "new", n] / v[i, "old", n]
      }
      printf "| %s | %.1f µs | %.1f µs | %.2f |\n", n, median(o) / 1000, median(w) / 1000, median(r)
    }
  }' "$out/runs.txt" | sort
