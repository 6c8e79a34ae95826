// What every browser test shares: where the repository, the built host and Chromium are, and how
// long a wait may last before it fails a hang (never a measure: every wait ends at its event).
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

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
