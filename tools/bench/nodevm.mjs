// Baseline for `make bench`: the same cell workloads as pkg/jsruntime's benchmarks, run in Node's
// node:vm (V8 contexts) — the closest thing on this machine to Codex's V8 isolates. Prints Go
// benchmark lines ("BenchmarkName N ns/op") so tools/bench/report can pair them with ours.
import vm from "node:vm";
import { performance } from "node:perf_hooks";

const minTimeMs = Number(process.env.BENCHTIME_MS ?? 1000);

// newCell builds a fresh context with the helpers a workload needs. Tool calls settle on a later
// macrotask (setImmediate), as a real host's would after crossing to the tool owner.
function newCell(toolResult = () => ({ ok: true })) {
  const out = [];
  const sandbox = {
    text: (v) => { out.push(typeof v === "string" ? v : JSON.stringify(v)); },
    tools: {
      echo: (input) => {
        const args = input === undefined ? undefined : JSON.parse(JSON.stringify(input));
        return new Promise((resolve) => setImmediate(() => resolve(toolResult(args))));
      },
    },
  };
  return { ctx: vm.createContext(sandbox), out };
}

async function measure(name, op) {
  // Warm up, then run until minTimeMs has passed; report the mean.
  for (let i = 0; i < 3; i++) await op();
  let n = 0;
  const start = performance.now();
  while (performance.now() - start < minTimeMs) {
    await op();
    n++;
  }
  const ns = ((performance.now() - start) * 1e6) / n;
  console.log(`Benchmark${name} ${n} ${ns.toFixed(0)} ns/op`);
}

function runCell(source, toolResult) {
  const { ctx } = newCell(toolResult);
  return vm.runInContext(`(async () => { ${source} })()`, ctx);
}

const oneMiB = JSON.stringify({ data: "x".repeat(1 << 20) });

await measure("CellStartText", () => runCell(`text("hi")`));
await measure("ToolRoundTrip", (() => {
  const { ctx } = newCell();
  const fn = vm.runInContext(`async () => { await tools.echo({ n: 1 }); }`, ctx);
  return fn;
})());
await measure("PromiseAll100", () => runCell(
  `await Promise.all(Array.from({ length: 100 }, (_, i) => tools.echo({ i })));`));
await measure("Loop1e6", () => runCell(`let s = 0; for (let i = 0; i < 1e6; i++) s += i; text(s);`));
await measure("ToolResult1MiB", () => runCell(
  `const r = await tools.echo(); if (r.data.length !== 1048576) throw new Error("bad length");`,
  () => JSON.parse(oneMiB)));

// Memory: heap per idle context (an idle session) and per context whose cell is blocked on a
// tool call that never settles (a live cell), as our BenchmarkMemory reports them.
function heapUsed() {
  globalThis.gc?.();
  globalThis.gc?.();
  return process.memoryUsage().heapUsed;
}
const n = 200;
let base = heapUsed();
const idle = [];
for (let i = 0; i < n; i++) idle.push(newCell().ctx);
const perSession = (heapUsed() - base) / n;
base = heapUsed();
const live = [];
for (let i = 0; i < n; i++) {
  const { ctx } = newCell();
  ctx.tools.wait = () => new Promise(() => {});
  live.push(ctx, vm.runInContext(`(async () => { text("x"); await tools.wait(); })()`, ctx));
}
const perCell = (heapUsed() - base) / n;
console.log(`BenchmarkMemory 1 0 ns/op ${perSession.toFixed(0)} B/idle-session ${perCell.toFixed(0)} B/live-cell`);
