#!/usr/bin/env bash
# Builds both programs (codemode-host and the codemode CLI) for linux, darwin and windows on amd64
# and arm64, with their SHA-256 checksums:
#
#   tools/dist.sh            into .cache/dist/ (make dist): codemode-host-<goos>-<goarch>[.exe],
#                            codemode-<goos>-<goarch>[.exe] and SHA256SUMS
#   tools/dist.sh --verify   the same, then a second build into a temporary directory that must be
#                            byte-identical (the build is reproducible: same commit, same toolchain,
#                            same bytes)
#   tools/dist.sh --cross    the twelve builds into a temporary directory, removed afterwards: the
#                            `cross` phase of make check, which proves every platform builds
#
# The binaries are static (CGO_ENABLED=0) and built with -trimpath, so nothing of this machine
# (paths, C toolchain) is in them. Their version is the Go build information, as with
# `go install`: in a git checkout the go command stamps the commit, its time, a +dirty mark for
# uncommitted changes and the module version derived from them (`codemode-host --version` prints
# them); the commit's time, not the build's, so two builds of a commit are the same bytes.
set -euo pipefail
cd "$(dirname "$0")/.."

platforms=(linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64)
programs=(codemode-host codemode)

mode=dist
case "${1:-}" in
  "") ;;
  --verify) mode=verify ;;
  --cross) mode=cross ;;
  *)
    echo "usage: tools/dist.sh [--verify|--cross]" >&2
    exit 2
    ;;
esac

# build_all builds every program for every platform into $1 and writes $1/SHA256SUMS.
build_all() {
  local out=$1 vcs=$2 platform goos goarch ext program
  mkdir -p "$out"
  for platform in "${platforms[@]}"; do
    goos=${platform%/*}
    goarch=${platform#*/}
    ext=""
    if [ "$goos" = windows ]; then ext=.exe; fi
    for program in "${programs[@]}"; do
      # -buildvcs on the command line overrides the Makefile's GOFLAGS=-buildvcs=false: a
      # release must say which commit it is. auto stamps in a git checkout and builds anyway
      # from a source archive.
      CGO_ENABLED=0 GOOS=$goos GOARCH=$goarch go build -trimpath -buildvcs="$vcs" -ldflags='-s -w' \
        -o "$out/$program-$goos-$goarch$ext" "./services/$program"
    done
  done
  (cd "$out" && checksum codemode* >SHA256SUMS)
}

# checksum prints the SHA-256 lines of its files as sha256sum does (shasum on macOS).
checksum() {
  if command -v sha256sum >/dev/null; then
    sha256sum "$@"
  else
    shasum -a 256 "$@"
  fi
}

case $mode in
  cross)
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    # No VCS stamping: the phase proves the platforms build, it ships nothing.
    build_all "$tmp" false
    echo "cross: ${#programs[@]} programs × ${#platforms[@]} platforms built: ${platforms[*]}"
    ;;
  dist | verify)
    out=.cache/dist
    rm -rf "$out"
    build_all "$out" auto
    cat "$out/SHA256SUMS"
    echo "dist: $out/ ($("./$out/codemode-host-$(go env GOOS)-$(go env GOARCH)$(go env GOEXE)" --version 2>/dev/null || echo "built for other platforms"))"
    if [ "$mode" = verify ]; then
      tmp=$(mktemp -d)
      trap 'rm -rf "$tmp"' EXIT
      build_all "$tmp" auto
      if ! diff "$out/SHA256SUMS" "$tmp/SHA256SUMS"; then
        echo "dist: a second build differs from the first: the build is not reproducible" >&2
        exit 1
      fi
      echo "dist: a second build is byte-identical (SHA256SUMS equal)"
    fi
    ;;
esac
