#!/usr/bin/env bash
# TypeScript compatibility tests: compiles compat/ts/**/*.ts together with the generated
# gen/ts/** (tsconfig.test.json, output in .cache/ts-test) and runs every compiled *.test.js
# under compat/ts with node's built-in test runner. New compat/ts/*.test.ts files are picked up
# without changes here. Expects `tools/setup.sh` to have run (make test-ts does).
set -euo pipefail
cd "$(dirname "$0")/.."

out=.cache/ts-test
rm -rf "$out"
if ! node_modules/.bin/tsc -p tsconfig.test.json; then
  echo "test-ts: TypeScript compilation failed" >&2
  exit 1
fi

mapfile -t tests < <(find "$out/compat/ts" -name '*.test.js' | LC_ALL=C sort)
if [ "${#tests[@]}" -eq 0 ]; then
  echo "test-ts: no compat/ts/**/*.test.ts files found" >&2
  exit 1
fi
node --enable-source-maps --test "${tests[@]}"
