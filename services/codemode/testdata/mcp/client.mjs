// Drives `codemode mcp` with the MCP TypeScript SDK's client (@modelcontextprotocol/sdk), an
// implementation independent of the Go SDK the server is built on. The Go test
// TestMCPWithTheTypeScriptClient runs it over both transports:
//
//   node client.mjs stdio CODEMODE_BINARY mcp     # spawns the server, MCP over its stdin/stdout
//   node client.mjs http http://127.0.0.1:PORT/mcp  # streamable HTTP
//
// The server must offer the demo tools (echo, upper: codemode mcp without --tools). Each check
// that fails prints its stack on stderr and makes the exit status 1; the last line on stdout
// counts the checks that passed.
import assert from "node:assert/strict";
import { check, mode, newClient, report, texts } from "./harness.mjs";
import { ProgressNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

const { client, transport } = newClient("codemode-mcp-test");
await client.connect(transport);

// Progress notifications as they arrive. The SDK's own routing (callTool's onprogress) runs a
// notification's handler a microtask later, after it has handled a response that came in the
// same read and dropped the request's progress handler: a fast cell's notifications, sent just
// before its result, would be reported as "unknown token". So the request names its own
// progressToken and this handler collects every notification.
const progress = [];
client.setNotificationHandler(ProgressNotificationSchema, (n) => progress.push(n.params));

await check("tools/list shows exec and wait described for MCP clients", async () => {
  const { tools } = await client.listTools();
  assert.deepEqual(
    tools.map((t) => t.name),
    ["exec", "wait"],
  );
  assert.match(tools[0].description, /the QuickJS-ng engine compiled to WebAssembly/);
  assert.match(tools[0].description, /as an MCP progress notification \(`notifications\/progress`/);
  assert.doesNotMatch(tools[0].description, /V8|exec_command|custom_tool_call_output/);
  assert.match(tools[0].description, /declare const tools: \{ echo\(/);
  assert.match(tools[0].description, /declare const tools: \{ upper\(input: string\)/);
  assert.deepEqual(tools[0].inputSchema.required, ["code"]);
  assert.match(tools[1].description, /^Waits on a cell that `exec` left running/);
  assert.match(tools[1].description, /Cells belong to the MCP session whose `exec` started them/);
  assert.deepEqual(Object.keys(tools[1].inputSchema.properties).sort(), [
    "cell_id",
    "max_tokens",
    "terminate",
    "yield_time_ms",
  ]);
});

await check("one cell calls a tool three times with Promise.all, with progress", async () => {
  progress.length = 0;
  const token = `promise-all-${mode}`;
  const result = await client.callTool(
    {
      name: "exec",
      arguments: {
        code: "const r = await Promise.all([1, 2, 3].map((n) => tools.echo({ n })));\ntext(r.map((x) => x.n).join(','));",
      },
      _meta: { progressToken: token },
    },
  );
  assert.equal(texts(result), "Script completed\nWall time X seconds\nOutput:\n|1,2,3");
  assert.ok(!result.isError);
  assert.deepEqual(
    progress.map((p) => [p.progressToken, p.progress, p.message]),
    [
      [token, 1, "tool echo returned"],
      [token, 2, "tool echo returned"],
      [token, 3, "tool echo returned"],
    ],
  );
});

await check("a cell that yields, then wait", async () => {
  const first = await client.callTool({
    name: "exec",
    arguments: { code: 'text("before"); yield_control(); text(await tools.upper("after"));' },
  });
  const match = /^Script running with cell ID (\S+)\n/.exec(texts(first));
  assert.ok(match, texts(first));
  assert.equal(texts(first), `Script running with cell ID ${match[1]}\nWall time X seconds\nOutput:\n|before`);
  const second = await client.callTool({ name: "wait", arguments: { cell_id: match[1], yield_time_ms: 600000 } });
  assert.equal(texts(second), "Script completed\nWall time X seconds\nOutput:\n|AFTER");
});

await check("a wait for a cell this session never started says cells are per session", async () => {
  const result = await client.callTool({ name: "wait", arguments: { cell_id: "99" } });
  assert.match(
    texts(result),
    /^Script failed\n[^]*\|Script error:\nexec cell 99 not found in this MCP session: cells belong to the MCP session whose exec started them, /,
  );
  assert.equal(result.isError, true);
});

await check("a failed script is an error result with Codex's text", async () => {
  const result = await client.callTool({ name: "exec", arguments: { code: 'throw "boom"' } });
  assert.equal(texts(result), "Script failed\nWall time X seconds\nOutput:\n|Script error:\nboom");
  assert.equal(result.isError, true);
});

await check("images are MCP image content", async () => {
  const result = await client.callTool({
    name: "exec",
    arguments: { code: 'image("data:image/png;base64,iVBORw0KGgo=")' },
  });
  assert.deepEqual(result.content[1], {
    type: "image",
    data: "iVBORw0KGgo=",
    mimeType: "image/png",
    _meta: { "codex/imageDetail": "high" },
  });
});

await client.close();
report();
