#!/usr/bin/env bash
# Runs every fuzz target of the module briefly, one at a time (go test -fuzz accepts a single
# target per package run). Targets are found by their declarations, `func FuzzXxx(` in _test.go
# files, so new ones need no registration here.
#   FUZZTIME=30s tools/fuzz.sh      longer runs (default: 100000 executions per target)
# The default is an execution count, not a duration: with a duration, Go's fuzz coordinator can
# fail a healthy target with "context deadline exceeded" when the deadline lands while a worker is
# still minimizing a newly interesting input (seen in CI on a loaded 2-core machine).
set -euo pipefail
cd "$(dirname "$0")/.."

fuzztime=${FUZZTIME:-100000x}

# "<package dir> <target>" per line, sorted for a stable order.
mapfile -t targets < <(
  find . \( -path ./node_modules -o -path ./.cache -o -path ./.git \) -prune \
    -o -name '*_test.go' -type f -print0 |
    xargs -0 -r grep -H -o -E '^func Fuzz[A-Za-z0-9_]*\(' |
    sed -E 's#^(.*)/[^/]*_test\.go:func (Fuzz[A-Za-z0-9_]*)\($#\1 \2#' |
    LC_ALL=C sort -u
)

if [ "${#targets[@]}" -eq 0 ]; then
  echo "fuzz: no fuzz targets found"
  exit 0
fi

for target in "${targets[@]}"; do
  dir=${target% *}
  name=${target#* }
  echo "fuzz: $name in $dir for $fuzztime"
  go test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" "$dir"
done
