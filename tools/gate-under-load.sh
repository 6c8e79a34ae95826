#!/usr/bin/env bash
# Runs the whole gate (.ci/run, which is `make check`) on fresh clones of HEAD, RUNS times in a row,
# while BUSY busy loops keep the cores saturated. It proves that no test depends on how fast the
# machine is: a test that waits for a deadline instead of an event fails here first.
#
#   tools/gate-under-load.sh [RUNS] [BUSY]     defaults: 5 runs, one busy loop per core
#
# Each run clones the commit HEAD named when the script started into its own directory under
# ${TMPDIR:-/tmp}, so uncommitted changes, and commits made while it runs, are not tested. Stops at the first failed run (its log is kept and named); the busy loops
# end with the script, however it ends.
set -uo pipefail
cd "$(dirname "$0")/.."

runs=${1:-5}
busy=${2:-$(nproc)}
head=$(git rev-parse HEAD)
base=$(mktemp -d "${TMPDIR:-/tmp}/gate-under-load.XXXXXX")

loops=()
stop_loops() {
  for pid in "${loops[@]}"; do kill "$pid" 2>/dev/null; done
  wait 2>/dev/null
}
trap stop_loops EXIT INT TERM
for _ in $(seq "$busy"); do
  sh -c 'while :; do :; done' &
  loops+=("$!")
done

echo "gate-under-load: $runs runs of .ci/run at ${head:0:7} with $busy busy loops; logs in $base"
for i in $(seq "$runs"); do
  dir="$base/run$i"
  git clone -q . "$dir" && git -C "$dir" checkout -q --detach "$head"
  start=$SECONDS
  if (cd "$dir" && CI=true bash .ci/run) >"$dir.log" 2>&1; then
    echo "run $i: passed in $((SECONDS - start))s ($(grep -o 'every phase passed in [0-9ms]*' "$dir.log" | tail -1))"
    rm -rf "$dir"
  else
    echo "run $i: FAILED after $((SECONDS - start))s; log: $dir.log" >&2
    grep -E -- '--- FAIL|^FAIL|FAILED' "$dir.log" | head -20 >&2
    exit 1
  fi
done
echo "gate-under-load: $runs of $runs runs passed at ${head:0:7}"
