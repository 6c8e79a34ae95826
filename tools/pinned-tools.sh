#!/usr/bin/env bash
# Compiles the pinned Go tools of go.tools.mod (buf, staticcheck, protoc-gen-go,
# protoc-gen-connect-go) into the Go build cache, where every later
# `go tool -modfile=go.tools.mod <tool>` finds them ready to run.
#
# On a machine that has never built them this compiles buf's and staticcheck's whole dependency
# graphs: minutes on 2 cores, during which `go tool` prints nothing. So the build happens here,
# announced, one tool at a time, instead of silently inside the first lint or generate.
#
# Whether a build is due is judged by a stamp, not by timing: .cache/pinned-tools.stamp holds a
# key (Go version, build cache directory, hash of go.tools.mod and go.tools.sum) followed by the
# executables `go tool -n` reported. If the key matches and every executable still exists, the
# tools are cached and this script prints nothing. A stale stamp costs at worst an unannounced
# rebuild (the Go build cache decides what is really rebuilt); a missing one costs ~3 s.
# Expects tools/setup.sh to have run (make tools does), so the modules are already downloaded.
set -euo pipefail
cd "$(dirname "$0")/.."

tools=(buf staticcheck protoc-gen-go protoc-gen-connect-go)
stamp=.cache/pinned-tools.stamp
key="$(go env GOVERSION) $(go env GOCACHE) $(cat go.tools.mod go.tools.sum | sha256sum | cut -d' ' -f1)"

# cached reports whether the stamp matches key and names executables that all still exist.
cached() {
  local line
  [ -f "$stamp" ] || return 1
  {
    read -r line && [ "$line" = "$key" ] || return 1
    while read -r line; do
      [ -x "$line" ] || return 1
    done
  } <"$stamp"
}

if cached; then
  exit 0
fi

echo "tools: compiling the pinned tools (${tools[*]}) from go.tools.mod;"
echo "tools: the first time on a machine this takes ~2-8 min (buf and staticcheck are large),"
echo "tools: later runs reuse the Go build cache and skip this step"
mkdir -p .cache
exes=()
for tool in "${tools[@]}"; do
  start=$SECONDS
  exes+=("$(go tool -modfile=go.tools.mod -n "$tool")")
  echo "tools: $tool ready ($((SECONDS - start))s)"
done
printf '%s\n' "$key" "${exes[@]}" >"$stamp"
