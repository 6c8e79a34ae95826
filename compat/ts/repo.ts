// Paths of the repository for the compatibility tests, independent of the working directory and
// of where tsc put the compiled test.
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** repoRoot returns the nearest directory above this module that holds go.mod. */
export function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, "go.mod"))) {
      return dir;
    }
    const parent = dirname(dir);
    if (parent === dir) {
      throw new Error("repoRoot: no go.mod above " + fileURLToPath(import.meta.url));
    }
    dir = parent;
  }
}
