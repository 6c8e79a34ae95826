#!/usr/bin/env bash
# Runs the suites that drive the real Codex (its agent on codemode-host, the conformance suite
# against its own host) once with the pinned @openai/codex and once with the newest release on
# npm, and reports every test whose verdict changed. Codex releases every few days: a new one
# shows up here as a report before the pin in package.json moves.
#   tools/codex-next.sh                 compare the pinned release with npm's newest
#   CODEX_VERSION=0.172.0 tools/codex-next.sh   compare with that release instead
# Exit status: 0 when every verdict is the same, 1 when some changed (the report says which), 2
# when the newest release could not be installed.
set -euo pipefail
cd "$(dirname "$0")/.."

suites='^(TestCodexAgentOnCodemodeHost|TestCodexHostSuiteChild)$'
pinned=$(node -p 'require("./package.json").devDependencies["@openai/codex"]')
newest=${CODEX_VERSION:-$(npm view @openai/codex version)}
dir=.cache/codex-next/$newest
echo "codex-next: pinned @openai/codex $pinned, newest $newest"
if [ ! -f "$dir/node_modules/@openai/codex/package.json" ]; then
  mkdir -p "$dir"
  echo '{"private":true}' >"$dir/package.json"
  npm install --prefix "$dir" --no-audit --no-fund --loglevel=error "@openai/codex@$newest" >/dev/null ||
    { echo "codex-next: could not install @openai/codex@$newest" >&2; exit 2; }
fi

# verdicts MODULES OUT runs the suites with the Codex package under MODULES and writes one
# "VERDICT test" line per test and subtest to OUT. The child suite's own verdicts are read too.
verdicts() {
  local log=$2.log
  CODEMODE_CODEX_NODE_MODULES=$1 CODEMODE_CODEX_HOST_SUITE=1 go test -count=1 -run "$suites" -v \
    ./services/codemode-host >"$log" 2>&1 || true
  sed -nE 's/^ *--- (PASS|FAIL|SKIP): ([^ ]+) .*/\1 \2/p' "$log" | sort -k2 >"$2"
}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
verdicts "$PWD/node_modules" "$work/pinned"
verdicts "$PWD/$dir/node_modules" "$work/newest"
changed=$(join -1 2 -2 2 -a 1 -a 2 -e MISSING -o 0,1.1,2.1 "$work/pinned" "$work/newest" | awk '$2 != $3')
if [ -z "$changed" ]; then
  echo "codex-next: $(wc -l <"$work/pinned") verdicts, none changed from $pinned to $newest"
  exit 0
fi
echo "codex-next: verdicts that changed from $pinned to $newest (test, pinned, newest):"
echo "$changed" | sed 's/^/  /'
echo "codex-next: failures with the newest release:"
grep -E '^\s+[a-z_]+\.go:[0-9]+:' "$work/newest.log" | sed 's/^/  /' | head -50
exit 1
