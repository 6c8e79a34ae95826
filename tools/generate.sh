#!/usr/bin/env bash
# Regenerates everything derived from schemas/: the buf outputs (gen/go/pb, gen/ts/pb), the gRPC
# fixtures (fixtures/grpc) and, once it exists, the JSON Schema generator's outputs; and the built
# browser playground (gen/playground, from pkg/playground/web and the SDK). Deterministic:
# running it twice leaves an identical tree (make drift relies on that). Expects tools/setup.sh
# to have run (make generate does).
set -euo pipefail
cd "$(dirname "$0")/.."

# Proto -> Go (protoc-gen-go, connect-go v2) and TypeScript (protoc-gen-es); see buf.gen.yaml.
go tool -modfile=go.tools.mod buf generate

# The Go programs below import gen/go/pb, so they run after buf.
go run ./generators/grpcfixtures

# The JSON Schema generator (V1 wire types, lanes, fixtures), written separately; it runs once its
# package has Go files (an empty directory is work in progress, not a generator).
if [ -d generators/cmd/wiregen ] && compgen -G 'generators/cmd/wiregen/*.go' >/dev/null; then
  go run ./generators/cmd/wiregen
  # The same generator, unchanged, for Codex's exec-server protocol (JSON-RPC-lite envelope and
  # the methods of docs/protocol/exec-server.md#methods): the dialect is not V1-specific.
  go run ./generators/cmd/wiregen -schemas schemas/jsonschema/execserver -out gen/go/execserverwire \
    -package execserverwire -fixtures fixtures/execserver -protocol exec-server -fuzz-all
fi

# The TypeScript generator for the same V1 schemas (types, strict decoders, lanes).
if [ -d generators/cmd/tsgen ] && compgen -G 'generators/cmd/tsgen/*.go' >/dev/null; then
  go run ./generators/cmd/tsgen
  go run ./generators/cmd/tsgen -schemas schemas/jsonschema/execserver -out gen/ts/execserver \
    -protocol exec-server -schema-path schemas/jsonschema/execserver
fi

# QuickJS module for pkg/jsruntime: the pinned qjs module's own qjs.wasm, transformed (larger
# stack, exported stack pointer, hardened function-proxy factory, interrupt polls, a stack guard).
# go list reads go.mod's pin.
qjs_dir=$(go list -m -f '{{.Dir}}' github.com/fastschema/qjs)
qjs_version=$(go list -m -f '{{.Version}}' github.com/fastschema/qjs)
go run ./generators/cmd/qjswasm -source "$qjs_dir/qjs.wasm" -version "$qjs_version"

# The browser playground (pkg/playground/web: TypeScript and CSS) bundled by esbuild into
# gen/playground, with the embed.go that pkg/playground serves it from.
node pkg/playground/web/build.mjs

# Generated Go must be gofmt-clean whatever the generators emit.
mapfile -t generated_go < <(find gen -name '*.go' -type f | LC_ALL=C sort)
if [ "${#generated_go[@]}" -gt 0 ]; then
  gofmt -w "${generated_go[@]}"
fi
