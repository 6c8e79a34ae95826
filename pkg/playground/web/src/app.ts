// The codemode playground: a page served by the host (pkg/playground) that opens a session with
// @codemode/sdk over connect-web's Connect transport to its own origin, offers the tools below
// (implemented here, in the page) and runs the cell in the editor. Built by tools/generate.sh
// (esbuild) into gen/playground/app.js.
import { createConnectTransport } from "@connectrpc/connect-web";
import { openSession, type CodeModeSession, type JsonValue, type ToolCallContext, type WaitOutcome } from "@codemode/sdk";

/** The element matching selector; the page's HTML has every one. */
function $<T extends HTMLElement>(selector: string): T {
  const element = document.querySelector<T>(selector);
  if (element === null) {
    throw new Error(`playground: ${selector} is missing from the page`);
  }
  return element;
}

const ui = {
  connection: $<HTMLSpanElement>("#connection"),
  example: $<HTMLSelectElement>("#example"),
  yieldMs: $<HTMLInputElement>("#yield-ms"),
  source: $<HTMLTextAreaElement>("#source"),
  run: $<HTMLButtonElement>("#run"),
  wait: $<HTMLButtonElement>("#wait"),
  terminate: $<HTMLButtonElement>("#terminate"),
  cell: $<HTMLElement>("#cell"),
  state: $<HTMLElement>("#state"),
  tools: $<HTMLUListElement>("#tools"),
  output: $<HTMLPreElement>("#output"),
  calls: $<HTMLTableSectionElement>("#calls tbody"),
  notifications: $<HTMLOListElement>("#notifications"),
  bench: $<HTMLButtonElement>("#bench"),
  benchN: $<HTMLInputElement>("#bench-n"),
  benchResult: $<HTMLPreElement>("#bench-result"),
};

/** Resolves after ms, or rejects with the signal's reason when the call is cancelled first. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}

/** The input of a function tool: a JSON object (the host checked it against the schema). */
type Input = { readonly [key: string]: JsonValue | undefined };
const object = (input: JsonValue | undefined): Input => (typeof input === "object" && input !== null && !Array.isArray(input) ? (input as Input) : {});

/** A tool this page implements. */
interface PageTool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JsonValue;
  run(input: Input, context: ToolCallContext): Promise<JsonValue> | JsonValue;
}

const num = { type: "number" };
const tools: readonly PageTool[] = [
  {
    name: "add",
    description: "Adds two numbers: { a, b } → { sum }.",
    inputSchema: { type: "object", properties: { a: num, b: num }, required: ["a", "b"] },
    run: ({ a, b }) => ({ sum: Number(a) + Number(b) }),
  },
  {
    name: "upper",
    description: "Upper-cases a text: { text } → string.",
    inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    run: ({ text }) => String(text).toUpperCase(),
  },
  {
    name: "fail",
    description: "Always throws: the cell's promise rejects with { message }.",
    inputSchema: { type: "object", properties: { message: { type: "string" } } },
    run: ({ message }) => {
      throw new Error(typeof message === "string" ? message : "fail always fails");
    },
  },
  {
    name: "slow",
    description: "Waits { ms } milliseconds (cancelled with its cell) → { waited }.",
    inputSchema: { type: "object", properties: { ms: num }, required: ["ms"] },
    run: async ({ ms }, context) => {
      await sleep(Number(ms), context.signal);
      return { waited: Number(ms) };
    },
  },
  {
    name: "echo",
    description: "Returns its input unchanged.",
    inputSchema: { type: "object" },
    run: (input) => input as JsonValue,
  },
];

const examples: ReadonlyMap<string, string> = new Map([
  [
    "Promise.all and a tool that throws",
    `notify("adding three pairs");
const sums = await Promise.all([[1, 2], [3, 4], [5, 6]].map(([a, b]) => tools.add({ a, b })));
text("sums: " + sums.map((r) => r.sum).join(" "));
text(await tools.upper({ text: "shout" }));
try {
  await tools.fail({ message: "no luck" });
} catch (e) {
  text("fail rejected: " + e);
}`,
  ],
  [
    "Yield, then Wait",
    `text("first part");
yield_control();
const r = await tools.slow({ ms: 300 });
text("second part, after " + r.waited + " ms");`,
  ],
  [
    "Endless loop (Terminate it)",
    `text("spinning");
while (true) {}`,
  ],
  [
    "Notifications",
    `for (const word of ["one", "two", "three"]) notify(word);
text(ALL_TOOLS.map((t) => t.name).join(", "));`,
  ],
  ["A script error", `text("before the error");\nthrow new Error("boom");`],
]);

/** The state of the current cell, shown in #state. */
type CellState = "idle" | "starting" | "running" | "yielded" | "completed" | "failed" | "terminated" | "missing" | "error";

let session: CodeModeSession | undefined;
let cellId: string | undefined;
let state: CellState = "idle";
/** An execute or wait is in flight for the current cell. */
let observing = false;
const finished = new Set<string>();
let callCount = 0;

function setState(next: CellState): void {
  state = next;
  ui.state.textContent = next;
  ui.state.dataset["state"] = next;
  const live = cellId !== undefined && !finished.has(cellId);
  ui.run.disabled = session === undefined || live || observing;
  ui.wait.disabled = !live || state !== "yielded" || observing;
  ui.terminate.disabled = !live;
  ui.bench.disabled = ui.run.disabled;
}

function print(line: string): void {
  ui.output.textContent += line + "\n";
  ui.output.scrollTop = ui.output.scrollHeight;
}

/** Shows an observation of a cell (as Codex shows it to the model) and moves the state on. */
function observe(o: WaitOutcome): void {
  if (finished.has(o.cellId)) {
    return; // a terminate and the cell's pending observation both report its end; show it once
  }
  const ms = (Number(o.hostDurationNs) / 1e6).toFixed(1);
  const headline: Record<WaitOutcome["kind"], string> = {
    yielded: `Script running with cell ID ${o.cellId}`,
    result: o.kind === "result" && o.errorText !== undefined ? "Script failed" : "Script completed",
    terminated: "Script terminated",
    missing: `Cell ${o.cellId} is gone`,
  };
  print(`── cell ${o.cellId}: ${headline[o.kind]} (host ${ms} ms)`);
  for (const item of o.contentItems) {
    print(item.type === "input_text" ? item.text : `[${item.type}]`);
  }
  if ((o.kind === "result" || o.kind === "missing") && o.errorText !== undefined) {
    print(o.errorText);
  }
  if (o.kind !== "yielded") {
    finished.add(o.cellId);
  }
  if (o.cellId === cellId) {
    const next: Record<WaitOutcome["kind"], CellState> = {
      yielded: "yielded",
      result: o.kind === "result" && o.errorText !== undefined ? "failed" : "completed",
      terminated: "terminated",
      missing: "missing",
    };
    setState(next[o.kind]);
  }
}

/** Runs fn as the cell's observation: the buttons reflect it, errors are printed. */
async function observeWith(fn: () => Promise<WaitOutcome>): Promise<void> {
  observing = true;
  setState(state);
  try {
    const o = await fn();
    observing = false;
    observe(o);
  } catch (e) {
    observing = false;
    print(`error: ${(e as Error).message}`);
    setState("error");
  }
}

const yieldTimeMs = (): number => Math.max(0, Number(ui.yieldMs.value) || 0);

async function run(): Promise<void> {
  if (session === undefined) {
    return;
  }
  const s = session;
  cellId = undefined;
  ui.cell.textContent = "–";
  setState("starting");
  await observeWith(async () => {
    const started = await s.start(ui.source.value, { yieldTimeMs: yieldTimeMs() });
    cellId = started.cellId;
    ui.cell.textContent = started.cellId;
    setState("running");
    return started.outcome;
  });
}

async function wait(): Promise<void> {
  const s = session;
  const id = cellId;
  if (s === undefined || id === undefined) {
    return;
  }
  setState("running");
  await observeWith(() => s.wait(id, { yieldTimeMs: yieldTimeMs() }));
}

async function terminate(): Promise<void> {
  const id = cellId;
  if (session === undefined || id === undefined) {
    return;
  }
  ui.terminate.disabled = true;
  try {
    observe(await session.terminate(id));
  } catch (e) {
    print(`error: ${(e as Error).message}`);
  }
}

/** Wraps a page tool so that every call is logged in #calls with its input, result and time. */
function logged(tool: PageTool) {
  return async (input: JsonValue | undefined, context: ToolCallContext): Promise<JsonValue> => {
    const row = ui.calls.insertRow();
    callCount += 1;
    const cells = [String(callCount), context.cellId, tool.name, JSON.stringify(input ?? null), "…", ""].map((text) => {
      const td = row.insertCell();
      td.textContent = text;
      return td;
    });
    row.dataset["tool"] = tool.name;
    row.dataset["status"] = "pending";
    const begin = performance.now();
    const done = (status: string, text: string): void => {
      row.dataset["status"] = status;
      cells[4]!.textContent = text;
      cells[5]!.textContent = (performance.now() - begin).toFixed(1);
    };
    try {
      const result = await tool.run(object(input), context);
      done("ok", JSON.stringify(result));
      return result;
    } catch (e) {
      done(context.signal.aborted ? "cancelled" : "error", `threw: ${(e as Error).message ?? String(e)}`);
      throw e;
    }
  };
}

/** When the measurement's cell called tools.ping, by performance.now(). */
let pings: number[] = [];

/**
 * Measures a tool round trip as the page sees it: a cell awaits N calls of tools.ping (a tool of
 * this page that returns at once, not logged), and the time between consecutive calls arriving
 * here is one round trip: the result over CompleteToolCall to the host, into the cell, the next
 * call back on the subscription stream.
 */
async function bench(): Promise<void> {
  const s = session;
  const n = Math.max(2, Math.floor(Number(ui.benchN.value) || 0));
  if (s === undefined) {
    return;
  }
  pings = [];
  ui.benchResult.dataset["state"] = "running";
  ui.benchResult.textContent = `running ${n} calls…`;
  ui.run.disabled = ui.bench.disabled = true;
  try {
    const o = await s.execute(`for (let i = 0; i < ${n}; i++) await tools.ping();`, { tools: ["ping"], yieldTimeMs: 600_000 });
    if (o.kind !== "result" || o.errorText !== undefined || pings.length !== n) {
      throw new Error(`the cell ended with ${o.kind} after ${pings.length} of ${n} calls`);
    }
    const gaps = pings.slice(1).map((t, i) => (t - pings[i]!) * 1000).sort((a, b) => a - b);
    const at = (q: number): number => gaps[Math.min(gaps.length - 1, Math.floor(q * gaps.length))]!;
    const mean = gaps.reduce((a, b) => a + b, 0) / gaps.length;
    ui.benchResult.textContent = `${gaps.length} round trips: median ${at(0.5).toFixed(0)} µs, mean ${mean.toFixed(0)} µs, p90 ${at(0.9).toFixed(0)} µs, min ${at(0).toFixed(0)} µs`;
    ui.benchResult.dataset["state"] = "done";
  } catch (e) {
    ui.benchResult.textContent = `error: ${(e as Error).message}`;
    ui.benchResult.dataset["state"] = "error";
  }
  setState(state);
}

async function connect(): Promise<void> {
  const transport = createConnectTransport({ baseUrl: location.origin, useBinaryFormat: true });
  try {
    const s = await openSession({ transport });
    for (const tool of tools) {
      s.registerTool(tool.name, logged(tool), { description: tool.description, inputSchema: tool.inputSchema });
    }
    s.registerTool(
      "ping",
      () => {
        pings.push(performance.now());
        return null;
      },
      { description: "Returns null at once (for the round-trip measurement; not logged).", inputSchema: {} },
    );
    s.on("notification", (n) => {
      const li = document.createElement("li");
      li.textContent = `cell ${n.cellId}: ${n.text}`;
      ui.notifications.append(li);
    });
    s.on("sessionLost", (e) => {
      ui.connection.textContent = `session lost (${e.error.message}); the next run reconnects`;
      ui.connection.dataset["state"] = "lost";
    });
    session = s;
    ui.connection.textContent = `connected to ${location.host}`;
    ui.connection.dataset["state"] = "connected";
  } catch (e) {
    ui.connection.textContent = `cannot open a session: ${(e as Error).message}`;
    ui.connection.dataset["state"] = "failed";
  }
  setState(state);
}

for (const tool of tools) {
  const li = document.createElement("li");
  const name = document.createElement("code");
  name.textContent = `tools.${tool.name}`;
  li.append(name, ` — ${tool.description}`);
  ui.tools.append(li);
}
for (const name of examples.keys()) {
  ui.example.add(new Option(name, name));
}
ui.example.addEventListener("change", () => {
  ui.source.value = examples.get(ui.example.value) ?? "";
});
ui.source.value = examples.values().next().value ?? "";
ui.run.addEventListener("click", () => void run());
ui.wait.addEventListener("click", () => void wait());
ui.terminate.addEventListener("click", () => void terminate());
ui.bench.addEventListener("click", () => void bench());
void connect();
