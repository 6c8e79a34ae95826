#!/usr/bin/env bash
# Installs what the project needs on a fresh clone with only Go and Node: the Go modules of the
# product (go.mod) and of the pinned tools (go.tools.mod: buf, protoc-gen-go,
# protoc-gen-connect-go, staticcheck, run as `go tool -modfile=go.tools.mod <tool>`), and the node
# packages of package-lock.json. Compiling the tools is a separate, announced step
# (tools/pinned-tools.sh, make tools), so `make run` does not wait for it.
#
# Go versions: the product needs go.mod's `go` line, the tools go.tools.mod's, which is higher
# (buf's minimum). The go command does not switch toolchains for -modfile, whatever GOTOOLCHAIN
# says, so an older Go fails later with "go.tools.mod requires go >= …"; this script says so first.
#
# Idempotent and quiet: `npm ci` runs only when node_modules is missing or older than
# package.json / package-lock.json (tracked by a stamp file inside node_modules), and
# `go mod download` prints nothing when the module cache is warm.
set -euo pipefail
cd "$(dirname "$0")/.."

die() {
  echo "setup: $*" >&2
  exit 1
}

# at_least HAVE NEED reports whether Go version HAVE (1.26.8) is NEED (1.26.7) or newer.
at_least() { [ "$(printf '%s\n' "$2" "$1" | sort -V | head -n 1)" = "$2" ]; }

command -v go >/dev/null || die "go is not on PATH (go.tools.mod needs Go $(sed -n 's/^go //p' go.tools.mod) or newer)"
command -v node >/dev/null || die "node is not on PATH (Node 20 or newer is needed)"
command -v npm >/dev/null || die "npm is not on PATH"

go_have=$(go env GOVERSION)
go_have=${go_have#go}
for modfile in go.mod go.tools.mod; do
  go_need=$(sed -n 's/^go //p' "$modfile")
  at_least "$go_have" "$go_need" ||
    die "Go $go_have is too old: $modfile needs Go $go_need or newer (go.tools.mod holds the pinned tools, see docs/decisions.md)"
done

node_major=$(node -p 'process.versions.node.split(".")[0]')
[ "$node_major" -ge 20 ] || die "Node $(node --version) is too old; 20 or newer is needed"

go mod download
go mod download -modfile=go.tools.mod

stamp=node_modules/.codemode-setup-stamp
if [ ! -f "$stamp" ] || [ package-lock.json -nt "$stamp" ] || [ package.json -nt "$stamp" ]; then
  echo "setup: installing node packages (npm ci)"
  # --loglevel=error: protoc-gen-es and connect-node declare node>=22 but run on Node 20
  # (measured); their EBADENGINE warnings would otherwise be printed on every install.
  npm ci --no-audit --no-fund --loglevel=error
  touch "$stamp"
fi
