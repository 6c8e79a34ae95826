#!/usr/bin/env bash
# The npm packages as their users get them, installed from their `npm pack` tarballs into a fresh
# directory outside the repository (so nothing resolves from the repository's node_modules):
#
#   1. the host package (services/codemode-host/npm, packed by tools/npm-pack.sh for this machine's
#      platform from a binary built here): the main tarball and this platform's tarball installed
#      with no registry at all (--offline; the platform tarball explicitly, since its
#      optional-dependency alias would otherwise be fetched); its README's commands run:
#      `npx codemode-host --help` and `npx codemode-host-path` (the binary built here, byte for
#      byte); without the platform package the command says how to reinstall and exits 1;
#   2. the TypeScript SDK (pkg/tssdk, `npm pack`, which builds it): its tarball installed with its
#      peer dependencies at the repository's pinned versions (--prefer-offline: npm's cache, the
#      registry only for what it lacks); a TypeScript file importing it, and the README's browser
#      example, type-check against the declarations its `exports` name;
#   3. the SDK README's Node example, taken from pkg/tssdk/README.md, run against the host started
#      through the installed `codemode-host` command, printing exactly the output the README shows;
#      the host then stops on SIGTERM (passed on by the command) and exits 0.
#
# Expects `tools/setup.sh` to have run (make test-packages does). Quiet: one line per step.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

die() {
  if [ -s "${work:-}/host.log" ]; then
    echo "test-packages: the installed codemode-host's log:" >&2
    cat "$work/host.log" >&2
  fi
  echo "test-packages: FAILED: $*" >&2
  exit 1
}

work=$(mktemp -d "${TMPDIR:-/tmp}/codemode-packages.XXXXXX")
case "$work/" in
"$root"/*) die "the scratch directory $work is inside the repository; set TMPDIR to a directory outside it" ;;
esac
host_pid=""
cleanup() {
  if [ -n "$host_pid" ]; then
    kill "$host_pid" 2>/dev/null || true
    wait "$host_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

# npm's notices go to a log, printed when a command fails.
log=$work/npm.log
quiet() {
  local status=0
  "$@" >>"$log" 2>&1 || status=$?
  if [ "$status" -ne 0 ]; then
    cat "$log" >&2
    die "$* exited $status (output above)"
  fi
}

# in_readme FILE TEXT fails unless FILE contains TEXT: the commands run here are the README's.
in_readme() {
  grep -qF -- "$2" "$1" || die "$1 no longer shows \`$2\`, which this test runs: update the two together"
}

# 1. The host package.
platform=$(node -p 'process.platform + "-" + process.arch')
goos=$(go env GOOS)
goarch=$(go env GOARCH)
exe=""
[ "$goos" = windows ] && exe=.exe
binary=$work/dist/codemode-host-$goos-$goarch$exe
mkdir -p "$work/dist"
CGO_ENABLED=0 go build -trimpath -o "$binary" ./services/codemode-host || die "building codemode-host failed"
mapfile -t tarballs < <(DIST_DIR=$work/dist NPM_OUT=$work/npm ./tools/npm-pack.sh "$platform")
[ "${#tarballs[@]}" -eq 2 ] || die "tools/npm-pack.sh $platform packed ${#tarballs[@]} tarballs, not the main and the $platform one"
main_tgz=${tarballs[0]}
platform_tgz=${tarballs[1]}

host_readme=services/codemode-host/npm/README.md
mkdir -p "$work/host"
cd "$work/host"
echo '{ "private": true }' >package.json
quiet npm install --offline --no-audit --no-fund "$main_tgz" "@codemodehq/codemode-host-$platform@file:$platform_tgz"
in_readme "$root/$host_readme" "npx codemode-host --help"
help=$(npx --no-install codemode-host --help) || die "npx codemode-host --help exited $?"
[[ $help == "usage: codemode-host "* ]] || die "npx codemode-host --help printed ${help:0:200}"
in_readme "$root/$host_readme" "npx codemode-host-path"
installed=$(npx --no-install codemode-host-path) || die "npx codemode-host-path exited $?"
case "$installed" in
"$work/host/node_modules/@codemodehq/codemode-host-$platform/vendor/"*/bin/codemode-host$exe) ;;
*) die "npx codemode-host-path printed $installed, not the binary in the platform package's vendor/<target triple>/bin/" ;;
esac
cmp -s "$installed" "$binary" || die "$installed is not the binary that was packed ($binary)"
echo "test-packages: host: $(basename "$main_tgz") + $(basename "$platform_tgz") installed offline; codemode-host --help and codemode-host-path run the packed binary"

# Without its platform package (optional dependencies omitted) the command says how to repair.
mkdir -p "$work/host-alone"
cd "$work/host-alone"
echo '{ "private": true }' >package.json
quiet npm install --offline --no-audit --no-fund --omit=optional "$main_tgz"
if alone=$(npx --no-install codemode-host --help 2>&1); then
  die "codemode-host without its platform package exited 0: $alone"
fi
[[ $alone == *"@codemodehq/codemode-host-$platform is not installed"*"npm install @codemodehq/codemode-host"* ]] ||
  die "codemode-host without its platform package said: $alone"
echo "test-packages: host: without its platform package, codemode-host exits 1 and says how to reinstall"

# 2. The SDK.
cd "$root/pkg/tssdk"
sdk_json=$(npm pack --json --pack-destination "$work/npm" 2>>"$log") || {
  cat "$log" >&2
  die "npm pack of pkg/tssdk failed"
}
sdk_tgz=$work/npm/$(node -e 'console.log(JSON.parse(process.argv[1])[0].filename)' "$sdk_json")
# The peer dependencies at the versions the repository pins (package.json), so npm's cache has them.
peers=$(node -e '
  const d = require(process.argv[1]).devDependencies;
  console.log(["@bufbuild/protobuf", "@connectrpc/connect", "@connectrpc/connect-node", "@connectrpc/connect-web"].map((n) => `${n}@${d[n]}`).join(" "));
' "$root/package.json")
mkdir -p "$work/sdk"
cd "$work/sdk"
echo '{ "private": true }' >package.json
# shellcheck disable=SC2086 # peers is a list of package specs
quiet npm install --prefer-offline --no-audit --no-fund "$sdk_tgz" $peers
cat >check.ts <<'EOF'
import { openSession, pb, type CodeModeSession, type SessionOptions, type WaitOutcome } from "@codemodehq/sdk";

export const open: (options: SessionOptions) => Promise<CodeModeSession> = openSession;
export const kinds = (o: WaitOutcome): string => o.kind;
export const truncation: pb.OutputTruncation = pb.OutputTruncation.SERVER;
EOF
# The README's browser example, as a module (.mts: it awaits at the top level).
node - "$root/pkg/tssdk/README.md" page.mts <<'EOF'
const fs = require("node:fs");
const [readme, page] = process.argv.slice(2);
const section = fs.readFileSync(readme, "utf8").split(/^## Browser example$/m)[1]?.split(/^## /m)[0];
const code = section?.match(/^```ts\n([\s\S]*?)^```$/m)?.[1];
if (code === undefined) {
  console.error(`test-packages: ${readme} has no "## Browser example" section with a ts block`);
  process.exit(1);
}
fs.writeFileSync(page, code);
EOF
"$root/node_modules/.bin/tsc" --noEmit --strict --module nodenext --moduleResolution nodenext --target es2022 --lib es2022,dom --types "" check.ts page.mts ||
  die "a TypeScript file importing the installed @codemodehq/sdk, or the README's browser example, does not type-check (above)"
echo "test-packages: sdk: $(basename "$sdk_tgz") installed with $peers; its declarations and the README's browser example type-check"

# 3. The SDK README's Node example against the host installed in step 1.
node - "$root/pkg/tssdk/README.md" example.mjs expected.txt <<'EOF'
const fs = require("node:fs");
const [readme, example, expected] = process.argv.slice(2);
const text = fs.readFileSync(readme, "utf8");
const section = text.split(/^## Node example$/m)[1]?.split(/^## /m)[0];
const code = section?.match(/^```js\n([\s\S]*?)^```$/m)?.[1];
const output = section?.split(/^It prints:$/m)[1]?.match(/^```text\n([\s\S]*?)^```$/m)?.[1];
if (code === undefined || output === undefined) {
  console.error(`test-packages: ${readme} has no "## Node example" section with a js block and, after "It prints:", a text block`);
  process.exit(1);
}
fs.writeFileSync(example, code);
fs.writeFileSync(expected, output);
EOF
mkfifo "$work/host.out"
# Its log (the example's refused tool call is a warning) is shown only when a step fails.
"$work/host/node_modules/.bin/codemode-host" --listen grpc://127.0.0.1:0 --log-level warn >"$work/host.out" 2>"$work/host.log" &
host_pid=$!
# Held open until the end: the host's stdout must not lose its reader.
exec 3<"$work/host.out"
# The guard only fails a host that never prints its address.
read -r -t 120 url <&3 || die "the installed codemode-host printed no address"
[[ $url =~ ^http://127\.0\.0\.1:[0-9]+$ ]] || die "the installed codemode-host printed $url, not http://127.0.0.1:PORT"
node example.mjs "$url" >actual.txt 2>&1 || {
  cat actual.txt >&2
  die "the SDK README's Node example exited $? against the installed host (output above)"
}
diff -u expected.txt actual.txt >&2 || die "the SDK README's Node example printed other lines than its README shows (diff above: - README, + printed)"
kill -TERM "$host_pid"
status=0
wait "$host_pid" || status=$?
host_pid=""
exec 3<&-
[ "$status" -eq 0 ] || die "the installed codemode-host exited $status on SIGTERM, not 0 (the drain)"
echo "test-packages: sdk: the README's Node example printed what the README shows, against the host installed from npm, which drained on SIGTERM"
