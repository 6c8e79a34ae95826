// What client.mjs and wrapped.mjs share: connecting the MCP TypeScript SDK's client to
// `codemode mcp` by the command line's mode (stdio: spawn the given command; http: the given URL),
// a tool result's texts, and named checks that report a failure and go on.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

/** The mode ("stdio" or "http"), then the command and its arguments or the URL. */
export const [mode, target, ...args] = process.argv.slice(2);

/** Returns a client named name, not yet connected, and its transport for mode. */
export function newClient(name) {
  const transport =
    mode === "stdio"
      ? new StdioClientTransport({ command: target, args, stderr: "inherit" })
      : new StreamableHTTPClientTransport(new URL(target));
  return { client: new Client({ name, version: "1.0.0" }), transport };
}

/** The texts of a tool result joined with "|", the measured wall time normalized. */
export const texts = (result) =>
  result.content
    .filter((c) => c.type === "text")
    .map((c) => c.text)
    .join("|")
    .replace(/Wall time \d+\.\d seconds/, "Wall time X seconds");

let passed = 0;

/** Runs one named check; a failure prints its stack on stderr and makes the exit status 1. */
export async function check(name, fn) {
  try {
    await fn();
    passed++;
  } catch (err) {
    console.error(`${mode}: ${name}: ${err.stack}`);
    process.exitCode = 1;
  }
}

/** Prints the last line the Go test reads: how many checks passed. */
export function report() {
  console.log(`${mode}: ${passed} checks passed`);
}
