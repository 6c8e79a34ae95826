// Real tools, called concurrently. Each tool of examples/tools.json is a small Go program
// (examples/tools/<name>/main.go) that the manifest runs with `go run`: the first call of each
// compiles it (seconds), later calls reuse Go's build cache.
//   codemode run --tools examples/tools.json examples/promise_all.js
const { files } = await tools.find_files({ root: "data" });
const texts = files.filter((path) => !path.endsWith(".csv"));
const counts = await Promise.all(texts.map(async (path) => ({ path, ...(await tools.word_count({ path, top: 3 })) })));
for (const c of counts) {
  text(`${c.path}: ${c.lines} lines, ${c.words} words; most frequent: ${c.top.map((t) => `${t.word} ×${t.count}`).join(", ")}`);
}

const best = await tools.csv_query({
  path: "data/sales.csv", where: { product: "lamp" }, columns: ["month", "region", "units"],
  sort_by: "units", descending: true, limit: 3,
});
text(`best lamp months (of ${best.matched}):`);
text(best.rows.map(([month, region, units]) => `  ${month} ${region}: ${units} units`).join("\n"));
