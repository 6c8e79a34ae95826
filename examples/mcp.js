// An MCP server as a tool source. examples/mcp.json names one stdio MCP server,
// examples/tools/mcp_notes (built on the official MCP Go SDK, run with `go run`: the first start
// compiles it); its tools are tools.mcp__notes__<tool>, and each promise resolves with the MCP
// CallToolResult: structuredContent when the tool has one, content blocks always.
//   codemode run --tools examples/mcp.json examples/mcp.js
const { structuredContent: { notes } } = await tools.mcp__notes__list_notes();
const texts = await Promise.all(notes.map((n) => tools.mcp__notes__read_note({ name: n.name })));
notes.forEach((n, i) => text(`${n.name}: ${n.words} words, first line: ${texts[i].content[0].text.split("\n")[0]}`));

const chart = await tools.mcp__notes__bar_chart({ values: notes.map((n) => n.words) });
image(chart.content[0]); // an MCP image block, as Codex's image() accepts it

try {
  await tools.mcp__notes__read_note({ name: "missing.txt" });
} catch (err) {
  text(`caught: ${err}`); // an isError result rejects the promise with its text
}
