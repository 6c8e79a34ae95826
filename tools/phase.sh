#!/usr/bin/env bash
# Runs one phase of the gate, framed so that `make check` reads as a list of steps with timings:
#
#   ==> lint: gofmt, go vet, staticcheck, buf lint, buf format
#   ... whatever the phase prints ...
#       lint: ok (41s)                 or, on stderr:  ==> lint: FAILED after 41s (exit 1)
#
#   tools/phase.sh NAME 'what it does' COMMAND [ARG...]
#
# Exits with COMMAND's status. The Makefile calls it for every phase; nothing else needs to.
set -uo pipefail

if [ "$#" -lt 3 ]; then
  echo "usage: tools/phase.sh NAME DESCRIPTION COMMAND [ARG...]" >&2
  exit 2
fi
name=$1
what=$2
shift 2

# duration prints seconds as 41s or 3m05s.
duration() {
  if [ "$1" -lt 60 ]; then
    printf '%ds' "$1"
  else
    printf '%dm%02ds' "$(($1 / 60))" "$(($1 % 60))"
  fi
}

echo "==> $name: $what"
start=$SECONDS
"$@"
status=$?
took=$(duration $((SECONDS - start)))
if [ "$status" -eq 0 ]; then
  echo "    $name: ok ($took)"
else
  echo "==> $name: FAILED after $took (exit $status)" >&2
fi
exit "$status"
