#!/usr/bin/env bash
# Builds codemode-host's npm packages in Codex's own pattern and packs them with `npm pack`: one
# platform package per binary (published as a version of @codemodehq/codemode-host itself,
# `0.1.0-linux-x64`, carrying vendor/<target triple>/bin/codemode-host[.exe]) and the main package
# (services/codemode-host/npm: the `codemode-host` command, a JavaScript shim that runs the binary
# of the platform package npm installed, through an optionalDependencies alias per platform).
# services/codemode-host/npm/README.md explains the layout; lib/binary.js holds the platform table
# this script builds from.
#
# Usage: tools/npm-pack.sh [PLATFORM...]
#   PLATFORM as Node names it: linux-x64 linux-arm64 darwin-x64 darwin-arm64 win32-x64 win32-arm64
#   (default: all six).
# Environment:
#   DIST_DIR  binaries to pack as they are, codemode-host-<goos>-<goarch>[.exe] (tools/dist.sh
#             writes them to .cache/dist); a missing one is built. Without DIST_DIR every binary is
#             built now into .cache/npm/bin (CGO_ENABLED=0 go build -trimpath; Go's cache makes an
#             unchanged one quick), so the packages never carry a binary of an older tree.
#   NPM_OUT   where the tarballs go (default .cache/npm; the staged package trees in NPM_OUT/stage).
#   VERSION   the npm version (default: services/codemode-host/npm/package.json's).
# Prints the tarballs' paths, one a line, the main package's first.
set -euo pipefail
cd "$(dirname "$0")/.."

src=services/codemode-host/npm
dist=${DIST_DIR:-${NPM_OUT:-.cache/npm}/bin}
# Absolute, so npm never takes the staged directories for package names.
mkdir -p "${NPM_OUT:-.cache/npm}"
out=$(cd "${NPM_OUT:-.cache/npm}" && pwd)
stage=$out/stage
version=${VERSION:-$(node -p "require('./$src/package.json').version")}

die() {
  echo "npm-pack: $*" >&2
  exit 1
}

# The platforms to pack, one "platform-arch goos goarch" a line, from lib/binary.js's table.
mapfile -t platforms < <(node - "$src/lib/binary.js" "$@" <<'EOF'
const { PLATFORMS } = require(require("node:path").resolve(process.argv[2]));
const wanted = process.argv.slice(3);
const known = PLATFORMS.map((p) => `${p.platform}-${p.arch}`);
for (const w of wanted) {
  if (!known.includes(w)) {
    console.error(`npm-pack: unknown platform ${w}; the platforms are ${known.join(" ")}`);
    process.exit(2);
  }
}
for (const p of PLATFORMS) {
  const name = `${p.platform}-${p.arch}`;
  if (wanted.length === 0 || wanted.includes(name)) {
    console.log(`${name} ${p.goos} ${p.goarch}`);
  }
}
EOF
) || die "no platforms to pack"
[ "${#platforms[@]}" -gt 0 ] || die "no platforms to pack"

# The binaries: DIST_DIR's, else built now.
binaries=()
for line in "${platforms[@]}"; do
  read -r name goos goarch <<<"$line"
  exe=""
  [ "$goos" = windows ] && exe=.exe
  binary=$dist/codemode-host-$goos-$goarch$exe
  if [ -z "${DIST_DIR:-}" ] || [ ! -f "$binary" ]; then
    echo "npm-pack: building $binary (CGO_ENABLED=0 GOOS=$goos GOARCH=$goarch go build -trimpath)" >&2
    mkdir -p "$dist"
    CGO_ENABLED=0 GOOS=$goos GOARCH=$goarch go build -trimpath -o "$binary" ./services/codemode-host ||
      die "building codemode-host for $goos/$goarch failed (see above)"
  fi
  binaries+=("$name=$binary")
done

# Stage the package trees: the main package as services/codemode-host/npm has it, with the
# version and the optional dependencies' aliases set to VERSION; one tree per platform.
rm -rf "$stage"
mkdir -p "$stage"
node - "$src" "$stage" "$version" "${binaries[@]}" <<'EOF'
const fs = require("node:fs");
const path = require("node:path");
const [src, stage, version, ...binaries] = process.argv.slice(2);
const { PLATFORMS } = require(path.resolve(src, "lib", "binary.js"));
const main = JSON.parse(fs.readFileSync(path.join(src, "package.json"), "utf8"));
const write = (file, json) => fs.writeFileSync(file, JSON.stringify(json, null, 2) + "\n");

const mainDir = path.join(stage, "main");
fs.mkdirSync(mainDir, { recursive: true });
for (const entry of [...main.files, "README.md", "LICENSE"]) {
  fs.cpSync(path.join(src, entry), path.join(mainDir, entry), { recursive: true });
}
main.version = version;
main.optionalDependencies = Object.fromEntries(
  PLATFORMS.map((p) => [p.packageName, `npm:${main.name}@${version}-${p.platform}-${p.arch}`]),
);
write(path.join(mainDir, "package.json"), main);

const osNames = { linux: "Linux", darwin: "macOS", win32: "Windows" };
for (const arg of binaries) {
  const [name, binary] = arg.split("=");
  const p = PLATFORMS.find((q) => `${q.platform}-${q.arch}` === name);
  const dir = path.join(stage, name);
  const bin = path.join(dir, "vendor", p.triple, "bin");
  fs.mkdirSync(bin, { recursive: true });
  fs.copyFileSync(binary, path.join(bin, p.executable));
  fs.chmodSync(path.join(bin, p.executable), 0o755);
  fs.copyFileSync(path.join(src, "LICENSE"), path.join(dir, "LICENSE"));
  fs.writeFileSync(
    path.join(dir, "README.md"),
    `# ${main.name} ${version}-${name}\n\n` +
      `The codemode-host binary for ${osNames[p.platform]} ${p.arch} (vendor/${p.triple}/bin/${p.executable}). ` +
      `Install ${main.name}, which depends on this build as ${p.packageName} and runs it; ` +
      `npm installs only the build whose os and cpu match the machine.\n`,
  );
  write(path.join(dir, "package.json"), {
    name: main.name,
    version: `${version}-${name}`,
    description: `codemode-host for ${osNames[p.platform]} ${p.arch}; installed by ${main.name}, not on its own.`,
    license: main.license,
    repository: main.repository,
    os: [p.platform],
    cpu: [p.arch],
    files: ["vendor"],
    engines: main.engines,
    publishConfig: main.publishConfig,
  });
}
EOF

# Pack them. npm prints its notices on stderr: kept in a log, shown when packing fails.
pack() {
  local dir=$1 log=$out/pack.log json
  json=$(npm pack --json --pack-destination "$out" "$dir" 2>"$log") || {
    cat "$log" >&2
    die "npm pack $dir failed"
  }
  node -e 'console.log(require("node:path").join(process.argv[1], JSON.parse(process.argv[2])[0].filename))' "$out" "$json"
}
pack "$stage/main"
for line in "${platforms[@]}"; do
  read -r name _ <<<"$line"
  pack "$stage/$name"
done
