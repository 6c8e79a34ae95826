#!/usr/bin/env bash
# Static checks; exits non-zero if any finds something. Runs every check, then reports which failed.
#   gofmt -l         hand-written Go (gen/ is gofmt'ed by tools/generate.sh)
#   go vet           the whole module
#   staticcheck      the whole module (it skips most checks in files marked "Code generated")
#   buf lint         schemas/proto against buf.yaml (STANDARD, with documented exceptions)
#   buf format       schemas/proto must be buf-formatted (fix: go tool -modfile=go.tools.mod buf format -w)
set -uo pipefail
cd "$(dirname "$0")/.."

failed=()

unformatted=$(find . \( -path ./gen -o -path ./node_modules -o -path ./.cache -o -path ./.git \) -prune \
  -o -name '*.go' -type f -print0 | xargs -0 -r gofmt -l)
if [ -n "$unformatted" ]; then
  echo "lint: gofmt would change these files (fix: gofmt -w <file>):"
  echo "$unformatted" | sed 's/^/  /'
  failed+=(gofmt)
fi

go vet ./... || failed+=("go vet")
go tool -modfile=go.tools.mod staticcheck ./... || failed+=(staticcheck)
go tool -modfile=go.tools.mod buf lint || failed+=("buf lint")
if ! go tool -modfile=go.tools.mod buf format -d --exit-code; then
  echo "lint: schemas/proto is not buf-formatted (fix: go tool -modfile=go.tools.mod buf format -w)"
  failed+=("buf format")
fi

if [ "${#failed[@]}" -gt 0 ]; then
  printf 'lint: FAILED: %s\n' "$(IFS=,; echo "${failed[*]}" | sed 's/,/, /g')" >&2
  exit 1
fi
