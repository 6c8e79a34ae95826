// Nested tool calls: `codemode run` serves two demo tools, `echo` (a function tool that returns its
// input object) and `upper` (a freeform tool that upper-cases a string).
//   codemode run examples/tools.js
const results = await Promise.all([1, 2, 3].map((n) => tools.echo({ n, square: n * n })));
text(results.map((r) => `${r.n}² = ${r.square}`).join("\n"));
text(await tools.upper("tool results come back as JSON"));

try {
  await tools.echo("not an object"); // rejected before the tool runs: input_schema says object
} catch (err) {
  text(`rejected: ${err}`);
}
notify("notifications go to the tool owner at once (printed on stderr here)");
