#!/usr/bin/env bash
# Installs what the project needs on a fresh clone with only Go and Node: the Go modules (the
# pinned tools buf, protoc-gen-go, protoc-gen-connect-go and staticcheck are go.mod tool
# directives, so they come with them) and the node packages of package-lock.json.
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

command -v go >/dev/null || die "go is not on PATH (go.mod needs $(sed -n 's/^go //p' go.mod))"
command -v node >/dev/null || die "node is not on PATH (Node 20 or newer is needed)"
command -v npm >/dev/null || die "npm is not on PATH"
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
