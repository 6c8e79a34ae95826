#!/usr/bin/env bash
# Generated code must match the schemas exactly: after tools/generate.sh (make drift runs it
# first), gen/ and fixtures/ must be unchanged, untracked files included. Lists what changed
# without touching the git index.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -n "$(git status --porcelain --untracked-files=all -- gen fixtures)" ]; then
  echo "drift: 'make generate' changed generated files:"
  git status --porcelain --untracked-files=all -- gen fixtures
  git --no-pager diff --stat -- gen fixtures
  echo "drift: commit the regenerated files, or fix the generator/schema that changed them"
  exit 1
fi
echo "drift: gen/ and fixtures/ match the schemas"
