#!/usr/bin/env bash
# The browser test: the playground (served by the real host binary) driven in headless Chromium
# with playwright-core. Needs chromium (make setup-system installs Debian's; without it this fails
# and says so, it never skips), builds
# ./services/codemode-host into .cache/codemode-host, compiles compat/browser (tsc, output in
# .cache/browser-test) and runs it with node's test runner. Screenshots land in .cache/browser/.
# Expects tools/setup.sh to have run (make test-browser does); the page is gen/playground as
# committed (make drift checks it matches its sources).
set -euo pipefail
cd "$(dirname "$0")/.."

chromium=${CHROMIUM:-/usr/bin/chromium}
if [ ! -x "$chromium" ]; then
  echo "test-browser: $chromium is missing: run make setup-system (or set CHROMIUM=/path/to/chromium)" >&2
  exit 1
fi
if ! go build -o .cache/codemode-host ./services/codemode-host; then
  echo "test-browser: building the host (./services/codemode-host) failed" >&2
  exit 1
fi
rm -rf .cache/browser-test
if ! node_modules/.bin/tsc -p compat/browser/tsconfig.json; then
  echo "test-browser: TypeScript compilation of compat/browser failed" >&2
  exit 1
fi
mkdir -p .cache/browser
mapfile -t tests < <(find .cache/browser-test/compat/browser -name '*.test.js' | LC_ALL=C sort)
if [ "${#tests[@]}" -eq 0 ]; then
  echo "test-browser: no compat/browser/*.test.ts files found" >&2
  exit 1
fi
node --enable-source-maps --test --test-reporter=spec "${tests[@]}"
echo "test-browser: screenshots in .cache/browser/"
