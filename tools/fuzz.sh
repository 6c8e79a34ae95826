#!/usr/bin/env bash
# Runs every fuzz target of the module briefly, one at a time (go test -fuzz accepts a single
# target per package run). Targets are found by their declarations, `func FuzzXxx(` in _test.go
# files, so new ones need no registration here.
#   FUZZTIME=30s tools/fuzz.sh      longer runs (default: 100000 executions per target)
# The default is an execution count, not a duration: with a duration, Go's fuzz coordinator can
# fail a healthy target with "context deadline exceeded" when the deadline lands while a worker is
# still minimizing a newly interesting input (seen in CI on a loaded 2-core machine).
#
# One line per target unless it fails: go test's progress lines (~6 per target) go to
# .cache/fuzz/<target>.log and are printed only on failure, together with where go test saved the
# failing input. VERBOSE=1 prints them always.
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

logs=.cache/fuzz
mkdir -p "$logs"
for target in "${targets[@]}"; do
  dir=${target% *}
  name=${target#* }
  log=$logs/$name.log
  start=$SECONDS
  if go test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" "$dir" >"$log" 2>&1; then
    [ "${VERBOSE:-0}" = 1 ] && cat "$log"
    echo "fuzz: $name in $dir: ok, $fuzztime ($((SECONDS - start))s)"
  else
    cat "$log"
    echo "fuzz: $name in $dir FAILED (output above; go test keeps the failing input under $dir/testdata/fuzz/$name)" >&2
    exit 1
  fi
done
echo "fuzz: ${#targets[@]} targets passed"
