// What every browser test shares: where the repository, the built host and Chromium are, and how
// long a wait may last before it fails a hang (never a measure: every wait ends at its event).
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type Page } from "playwright-core";

/** The nearest directory above this module that holds go.mod. */
function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, "go.mod"))) {
    const parent = dirname(dir);
    if (parent === dir) {
      throw new Error("no go.mod above " + fileURLToPath(import.meta.url));
    }
    dir = parent;
  }
  return dir;
}

/** The repository's root directory. */
export const root = repoRoot();
/** The codemode-host binary tools/test-browser.sh built (or $CODEMODE_HOST). */
export const hostBinary = process.env["CODEMODE_HOST"] ?? join(root, ".cache", "codemode-host");
/** Debian's Chromium, which make setup-system installs (or $CHROMIUM). */
export const chromiumPath = process.env["CHROMIUM"] ?? "/usr/bin/chromium";
/** Where screenshots and measurements go. */
export const artifacts = join(root, ".cache", "browser");
/** Generous: two shared cores under load; every wait ends as soon as its event happens. */
export const patience = 120_000;

/** The hosts startHost started; stopHosts ends them. */
const started: ChildProcess[] = [];

/**
 * Starts codemode-host with a gRPC listener on a free port (and args) and resolves with the
 * http://ADDR it prints; stopHosts ends it.
 */
export async function startHost(...args: string[]): Promise<string> {
  assert.ok(existsSync(hostBinary), `${hostBinary} is missing: run tools/test-browser.sh (it builds ./services/codemode-host)`);
  const host = spawn(hostBinary, ["--log-level", "warn", "--listen", "grpc://127.0.0.1:0", ...args], { stdio: ["ignore", "pipe", "inherit"] });
  started.push(host);
  for await (const line of createInterface({ input: host.stdout! })) {
    if (line.startsWith("http://")) {
      return line.trim();
    }
  }
  throw new Error(`the host exited (${host.exitCode}) without printing its address`);
}

/** Ends every host startHost started with SIGTERM and waits for each to exit (it drains). */
export async function stopHosts(): Promise<void> {
  for (const host of started.splice(0)) {
    if (host.exitCode === null) {
      const exited = new Promise((resolve) => host.once("exit", resolve));
      host.kill("SIGTERM");
      await exited;
    }
  }
}

/** Launches headless Chromium with extra command-line flags. */
export async function launchChromium(...flags: string[]): Promise<Browser> {
  assert.ok(existsSync(chromiumPath), `${chromiumPath} is missing: run tools/browser-setup.sh`);
  // --no-sandbox: Chromium refuses to start its sandbox as root, which this machine and CI are.
  return chromium.launch({ executablePath: chromiumPath, headless: true, args: ["--no-sandbox", "--disable-dev-shm-usage", ...flags] });
}

/**
 * Opens a page whose waits last at most patience, and collects into errors every uncaught page
 * error and console error (a test asserts the list stays empty).
 */
export async function openPage(browser: Browser, viewport: { width: number; height: number }, errors: string[]): Promise<Page> {
  const page = await browser.newPage({ viewport });
  page.setDefaultTimeout(patience);
  page.on("pageerror", (e) => errors.push(`page error: ${e.message}`));
  page.on("console", (m) => {
    if (m.type() === "error") {
      errors.push(`console error: ${m.text()}`);
    }
  });
  return page;
}
