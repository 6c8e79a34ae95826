// Where the codemode-host binary of this machine lives: in the platform package npm installed
// beside this one (an optional dependency per platform, of which npm installs the one whose "os"
// and "cpu" match), under vendor/<target triple>/bin/. The target triples and the layout are
// those of Codex's own npm packages, so a Codex user finds codemode's host where they find
// Codex's. tools/npm-pack.sh builds the platform packages from this table.
"use strict";

const { existsSync } = require("node:fs");
const path = require("node:path");

/**
 * The platforms codemode-host is published for, by Node's `process.platform` and `process.arch`:
 * the Go target that builds the binary, the Rust-style target triple of its vendor folder and
 * the name of the platform package's alias.
 */
const PLATFORMS = [
  { platform: "linux", arch: "x64", goos: "linux", goarch: "amd64", triple: "x86_64-unknown-linux-musl" },
  { platform: "linux", arch: "arm64", goos: "linux", goarch: "arm64", triple: "aarch64-unknown-linux-musl" },
  { platform: "darwin", arch: "x64", goos: "darwin", goarch: "amd64", triple: "x86_64-apple-darwin" },
  { platform: "darwin", arch: "arm64", goos: "darwin", goarch: "arm64", triple: "aarch64-apple-darwin" },
  { platform: "win32", arch: "x64", goos: "windows", goarch: "amd64", triple: "x86_64-pc-windows-msvc" },
  { platform: "win32", arch: "arm64", goos: "windows", goarch: "arm64", triple: "aarch64-pc-windows-msvc" },
].map((p) => ({
  ...p,
  /** The platform package's name as the main package's optionalDependencies alias it. */
  packageName: `@codemodehq/codemode-host-${p.platform}-${p.arch}`,
  /** The binary's file name. */
  executable: p.platform === "win32" ? "codemode-host.exe" : "codemode-host",
}));

/** The entry of PLATFORMS for this machine; throws for a platform without a build. */
function currentPlatform(platform = process.platform, arch = process.arch) {
  const found = PLATFORMS.find((p) => p.platform === platform && p.arch === arch);
  if (found === undefined) {
    const supported = PLATFORMS.map((p) => `${p.platform}-${p.arch}`).join(", ");
    throw new Error(
      `codemode-host has no npm build for ${platform}-${arch} (built for ${supported}); ` +
        "build it with Go instead: go install github.com/codemodehq/codemode/services/codemode-host@latest",
    );
  }
  return found;
}

/**
 * The absolute path of this machine's codemode-host binary. Throws an error that says how to
 * repair the installation when the platform package is missing (installed with
 * --omit=optional or --no-optional, or copied from another machine).
 */
function binaryPath() {
  const p = currentPlatform();
  let root;
  try {
    root = path.dirname(require.resolve(`${p.packageName}/package.json`));
  } catch {
    throw new Error(
      `codemode-host: the platform package ${p.packageName} is not installed, so there is no binary to run. ` +
        "npm installs it as an optional dependency of @codemodehq/codemode-host unless optional dependencies are omitted " +
        "(--omit=optional, --no-optional): reinstall with `npm install @codemodehq/codemode-host`.",
    );
  }
  const binary = path.join(root, "vendor", p.triple, "bin", p.executable);
  if (!existsSync(binary)) {
    throw new Error(`codemode-host: ${p.packageName} is installed but has no ${binary}: reinstall with \`npm install @codemodehq/codemode-host\`.`);
  }
  return binary;
}

module.exports = { PLATFORMS, currentPlatform, binaryPath };
