#!/usr/bin/env node
// Prints the absolute path of this machine's codemode-host binary, for the commands that need
// the binary itself rather than this package's JavaScript command, such as
// `codemode codex install --host "$(npx codemode-host-path)"`.
"use strict";

const { binaryPath } = require("../lib/binary.js");

try {
  process.stdout.write(`${binaryPath()}\n`);
} catch (e) {
  process.stderr.write(`${e.message}\n`);
  process.exit(1);
}
