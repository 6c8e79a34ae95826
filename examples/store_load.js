// Stored values outlive their cell: the first cell computes revenue by region and store()s it;
// a later cell of the same session load()s it without calling a tool. --repeat 2 runs the file
// as two cells of one session:
//   codemode run --repeat 2 --tools examples/tools.json examples/store_load.js
const byRegion = load("revenue_by_region");
if (byRegion === undefined) {
  const { rows } = await tools.csv_query({ path: "data/sales.csv", columns: ["region", "revenue"] });
  const totals = {};
  for (const [region, revenue] of rows) totals[region] = (totals[region] ?? 0) + Number(revenue);
  store("revenue_by_region", totals);
  text(`cell 1 computed and stored ${JSON.stringify(totals)}`);
} else {
  text(`a later cell loaded ${JSON.stringify(byRegion)} without a tool call`);
}
