// Drives `codemode mcp --tools M` with the MCP TypeScript SDK's client, where M names an MCP
// server (examples/tools/mcp_notes over stdio, with notes a.txt = "alpha" and b.txt = "beta"):
// MCP in both directions at once, the client's cells calling a wrapped MCP server's tools. The
// Go test TestMCPWrappedServerWithTheTypeScriptClient runs it over both transports:
//
//   node wrapped.mjs stdio CODEMODE_BINARY mcp --tools M
//   node wrapped.mjs http http://127.0.0.1:PORT/mcp
//
// Each check that fails prints its stack on stderr and makes the exit status 1; the last line on
// stdout counts the checks that passed.
import assert from "node:assert/strict";
import { check, newClient, report, texts } from "./harness.mjs";

const { client, transport } = newClient("codemode-mcp-wrapped-test");
await client.connect(transport);

await check("exec's description declares the wrapped server's tools", async () => {
  const { tools } = await client.listTools();
  assert.deepEqual(
    tools.map((t) => t.name),
    ["exec", "wait"],
  );
  for (const tool of ["list_notes", "read_note", "bar_chart"]) {
    assert.match(tools[0].description, new RegExp(`declare const tools: \\{ mcp__notes__${tool}\\(`));
  }
  assert.match(tools[0].description, /CallToolResult/);
});

await check("one cell calls a wrapped MCP tool three times with Promise.all", async () => {
  const result = await client.callTool({
    name: "exec",
    arguments: {
      code: 'const r = await Promise.all(["a.txt", "b.txt", "a.txt"].map((name) => tools.mcp__notes__read_note({ name })));\ntext(r.map((x) => x.content[0].text.trim()).join(","));',
    },
  });
  assert.equal(texts(result), "Script completed\nWall time X seconds\nOutput:\n|alpha,beta,alpha");
  assert.ok(!result.isError);
});

await check("a yielded cell that calls a wrapped tool, then wait", async () => {
  const first = await client.callTool({
    name: "exec",
    arguments: {
      code: 'text("before"); yield_control();\nconst { structuredContent } = await tools.mcp__notes__list_notes();\ntext(structuredContent.notes.map((n) => `${n.name}:${n.words}`).join(","));',
    },
  });
  const match = /^Script running with cell ID (\S+)\n/.exec(texts(first));
  assert.ok(match, texts(first));
  const second = await client.callTool({ name: "wait", arguments: { cell_id: match[1], yield_time_ms: 600000 } });
  assert.equal(texts(second), "Script completed\nWall time X seconds\nOutput:\n|a.txt:1,b.txt:1");
});

await check("a wrapped tool's isError result rejects the cell's promise with its text", async () => {
  const result = await client.callTool({
    name: "exec",
    arguments: { code: 'try { await tools.mcp__notes__read_note({ name: "missing.txt" }); } catch (e) { text("caught: " + e); }' },
  });
  assert.match(texts(result), /^Script completed\nWall time X seconds\nOutput:\n\|caught: .*missing\.txt/);
});

await client.close();
report();
