#!/usr/bin/env node
// The codemode-host command of the npm package: runs this machine's codemode-host binary (from
// the platform package, lib/binary.js) with the same arguments, standard streams and
// environment, and exits as it does.
"use strict";

const { spawn } = require("node:child_process");
const { binaryPath } = require("../lib/binary.js");

let binary;
try {
  binary = binaryPath();
} catch (e) {
  process.stderr.write(`${e.message}\n`);
  process.exit(1);
}
const args = process.argv.slice(2);

// Replace Node where it can (Node 22.15 and newer, not on Windows): the binary then is this
// process, so signals, the exit status and the process group are the binary's own, with no
// Node in between. Node ignores SIGPIPE and SIGXFSZ, and ignored signals survive execve; a
// listener makes execve give the binary their default dispositions.
if (process.platform !== "win32" && typeof process.execve === "function") {
  process.on("SIGPIPE", () => {});
  process.on("SIGXFSZ", () => {});
  process.execve(binary, [binary, ...args], process.env);
}

// Elsewhere a child process, and the signals that end a process passed on to it, once each: the
// host drains on the first SIGINT or SIGTERM and exits at once on a second. A terminal's Ctrl-C
// (and a Windows console's Ctrl-C or close) reaches the whole foreground group, the host
// included, so a SIGINT is passed on only when no standard stream is a terminal; on Windows,
// where child.kill() would end the host without its drain, nothing is passed on.
const child = spawn(binary, args, { stdio: "inherit" });
const inTerminal = process.stdin.isTTY === true || process.stdout.isTTY === true || process.stderr.isTTY === true;
const forwarded = process.platform === "win32" ? [] : ["SIGTERM", "SIGHUP", "SIGQUIT", ...(inTerminal ? [] : ["SIGINT"])];
const forward = (signal) => {
  if (child.exitCode === null && child.signalCode === null) {
    child.kill(signal);
  }
};
for (const signal of forwarded) {
  process.on(signal, forward);
}
// A terminal's SIGINT is the host's to act on (it reached it too); this process waits for it.
if (inTerminal || process.platform === "win32") {
  process.on("SIGINT", () => {});
}
child.on("error", (e) => {
  process.stderr.write(`codemode-host: could not start ${binary}: ${e.message}\n`);
  process.exit(1);
});
child.on("exit", (code, signal) => {
  if (signal !== null) {
    // End as the binary ended, so a caller sees the same signal.
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code ?? 1);
});
