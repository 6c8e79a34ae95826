#!/usr/bin/env bash
# TypeScript tests: compiles compat/ts/**/*.ts and the SDK (pkg/tssdk: src and test) together with
# the generated gen/ts/** (tsconfig.test.json, output in .cache/ts-test) and runs every compiled
# *.test.js under compat/ts and pkg/tssdk with node's built-in test runner. New *.test.ts files there
# are picked up without changes here. The SDK is type-checked on its own first, with its stricter
# options (pkg/tssdk/tsconfig.json: no Node types in src; pkg/tssdk/test/tsconfig.json), and so is
# the playground page (pkg/playground/web, which esbuild bundles without type-checking). The SDK's
# integration tests spawn the real host binary (services/codemode-host), built here into
# .cache/codemode-host; the routing tests spawn compat/tshost (several hosts behind a sticky front
# that the test controls), built into .cache/tshost.
# Expects `tools/setup.sh` to have run (make test-ts does).
#
# Quiet unless a test fails: the TAP report (~1,600 lines) goes to .cache/ts-test/report.tap and
# only a one-line summary is printed; on failure the whole report is printed. VERBOSE=1 prints it
# always.
set -euo pipefail
cd "$(dirname "$0")/.."

out=.cache/ts-test
rm -rf "$out"
for project in pkg/tssdk/tsconfig.json pkg/tssdk/test/tsconfig.json pkg/playground/web/tsconfig.json; do
  if ! node_modules/.bin/tsc -p "$project"; then
    echo "test-ts: TypeScript check of $project failed" >&2
    exit 1
  fi
done
if ! node_modules/.bin/tsc -p tsconfig.test.json; then
  echo "test-ts: TypeScript compilation failed" >&2
  exit 1
fi

mapfile -t tests < <(find "$out/compat/ts" "$out/pkg/tssdk" -name '*.test.js' | LC_ALL=C sort)
if [ "${#tests[@]}" -eq 0 ]; then
  echo "test-ts: no compat/ts/**/*.test.ts or pkg/tssdk/**/*.test.ts files found" >&2
  exit 1
fi
if ! go build -o .cache/codemode-host ./services/codemode-host || ! go build -o .cache/tshost ./compat/tshost; then
  echo "test-ts: building the host binary (services/codemode-host) or the routing test host (compat/tshost) failed" >&2
  exit 1
fi
report=$out/report.tap
# TAP explicitly: the summary below parses its trailing "# tests N" / "# pass N" lines.
if node --enable-source-maps --test --test-reporter=tap "${tests[@]}" >"$report" 2>&1; then
  status=0
else
  status=$?
fi

# count NAME prints the number on the report's "# NAME N" summary line.
count() { sed -n "s/^# $1 \([0-9][0-9]*\)\$/\1/p" "$report" | tail -n 1; }

if [ "$status" -ne 0 ] || [ "${VERBOSE:-0}" = 1 ]; then
  cat "$report"
fi
if [ "$status" -ne 0 ]; then
  failed=$(count fail)
  echo "test-ts: FAILED: ${failed:-?} of $(count tests) tests failed in ${#tests[@]} files, node exited $status (TAP report above, also in $report)" >&2
  exit "$status"
fi
echo "test-ts: $(count pass) of $(count tests) tests passed in ${#tests[@]} files ($(count skipped) skipped; TAP report in $report)"
