// The codemode playground: a page served by the host (pkg/playground) that opens a session with
// @codemode/sdk over connect-web's Connect transport to its own origin, offers the tools below
// (implemented here, in the page) and runs the cell in the editor. Built by tools/generate.sh
// (esbuild) into gen/playground/app.js.
import { javascript } from "@codemirror/lang-javascript";
import { EditorView, basicSetup } from "codemirror";
import { transform } from "sucrase";
import { createConnectTransport, createGrpcWebTransport } from "@connectrpc/connect-web";
import { openSession, type CodeModeSession, type JsonValue, type SessionOptions, type ToolCallContext, type WaitOutcome } from "@codemode/sdk";
import { checkInput } from "./inputcheck";

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
  protocol: $<HTMLSelectElement>("#protocol"),
  example: $<HTMLSelectElement>("#example"),
  yieldMs: $<HTMLInputElement>("#yield-ms"),
  source: $<HTMLDivElement>("#source"),
  run: $<HTMLButtonElement>("#run"),
  wait: $<HTMLButtonElement>("#wait"),
  terminate: $<HTMLButtonElement>("#terminate"),
  cell: $<HTMLElement>("#cell"),
  state: $<HTMLElement>("#state"),
  tools: $<HTMLUListElement>("#tools"),
  hostTools: $<HTMLUListElement>("#host-tools"),
  hostToolsState: $<HTMLParagraphElement>("#host-tools-state"),
  callsNote: $<HTMLParagraphElement>("#calls-note"),
  descriptionNote: $<HTMLParagraphElement>("#description-note"),
  output: $<HTMLPreElement>("#output"),
  calls: $<HTMLTableSectionElement>("#calls tbody"),
  notifications: $<HTMLOListElement>("#notifications"),
  bench: $<HTMLButtonElement>("#bench"),
  benchN: $<HTMLInputElement>("#bench-n"),
  benchResult: $<HTMLPreElement>("#bench-result"),
  description: $<HTMLPreElement>("#description"),
  newToolName: $<HTMLInputElement>("#new-tool-name"),
  newToolDescription: $<HTMLInputElement>("#new-tool-description"),
  newToolSchema: $<HTMLTextAreaElement>("#new-tool-schema"),
  newToolCode: $<HTMLDivElement>("#new-tool-code"),
  addTool: $<HTMLButtonElement>("#add-tool"),
  addToolStatus: $<HTMLSpanElement>("#add-tool-status"),
};

/** A CodeMirror 6 editor for JavaScript (or TypeScript) in a shadow root of host (see the cell's editor). */
function javascriptEditor(host: HTMLElement, label: string, doc = "", typescript = false): EditorView {
  return new EditorView({
    root: host.attachShadow({ mode: "open" }),
    parent: host.shadowRoot!,
    doc,
    extensions: [
      basicSetup,
      javascript({ typescript }),
      EditorView.contentAttributes.of({ "aria-label": label }),
      EditorView.theme({
        "&": { height: "100%", fontSize: "13px" },
        ".cm-scroller": { fontFamily: "ui-monospace, monospace", lineHeight: "1.45" },
      }),
    ],
  });
}

/**
 * The cell's editor: CodeMirror 6 with JavaScript highlighting, in a shadow root of #source.
 * Inside a shadow root CodeMirror installs its styles as constructed style sheets, which the
 * page's content security policy (style-src 'self', no inline styles) allows; in the document
 * itself it would add <style> elements, which the policy blocks.
 */
const editor = javascriptEditor(ui.source, "cell source");

/** The editor of the user's own tool's code. */
const toolEditor = javascriptEditor(
  ui.newToolCode,
  "the code of your tool",
  `async ({ text }: { text: string }, { signal }: { signal: AbortSignal }): Promise<{ words: number }> => {
  const words: string[] = String(text).split(/\\s+/).filter(Boolean);
  return { words: words.length };
}`,
  true,
);

/** The cell's source, as the editor holds it. */
const sourceText = (): string => editor.state.doc.toString();

/** Replaces the editor's text. */
function setSource(text: string): void {
  editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: text } });
}

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

/** The input of a function tool: a JSON object (the tool checked it against its schema). */
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
  ui.addTool.disabled = session === undefined;
}

function print(line: string): void {
  ui.output.textContent += line + "\n";
  ui.output.scrollTop = ui.output.scrollHeight;
}

/**
 * Shows an observation of a cell in the text a model reads (docs/protocol/javascript.md#tool-output),
 * so the page shows what a model would see, and moves the state on.
 */
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
    setState(state); // the buttons, even when o repeats an end already shown (a terminate's answer came first)
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
    const started = await s.start(sourceText(), { yieldTimeMs: yieldTimeMs() });
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
      checkInput(tool.name, tool.inputSchema, input);
      const result = await tool.run(object(input), context);
      done("ok", JSON.stringify(result));
      return result;
    } catch (e) {
      done(context.signal.aborted ? "cancelled" : "error", `threw: ${(e as Error).message ?? String(e)}`);
      throw e;
    }
  };
}

/** A tool the user wrote in the page, registered with the session while it is listed. */
interface UserTool extends PageTool {
  readonly worker: Worker;
  unregister?: () => void;
}

const userTools = new Map<string, UserTool>();

/** The page's tools: the built-in ones, then the user's own. */
const allTools = (): PageTool[] => [...tools, ...userTools.values()];

/**
 * The source of the Web Worker that runs a user's tool: the user's function expression, and a
 * loop that runs one call per message ({id, input}) with a signal that a {cancel: id} message
 * aborts, and answers {id, result} or {id, error}. "ready" is posted once the code evaluated.
 */
function workerSource(code: string): string {
  return `"use strict";
const tool = (
${code}
);
if (typeof tool !== "function") {
  throw new TypeError("the code is not a function expression, but " + typeof tool);
}
const running = new Map();
onmessage = async ({ data }) => {
  if (data.cancel !== undefined) {
    running.get(data.cancel)?.abort(new Error("the cell no longer needs this call"));
    return;
  }
  const controller = new AbortController();
  running.set(data.id, controller);
  try {
    const result = await tool(data.input, { signal: controller.signal });
    postMessage({ id: data.id, result: JSON.parse(JSON.stringify(result ?? null)) });
  } catch (e) {
    postMessage({ id: data.id, error: e instanceof Error ? e.message : String(e) });
  } finally {
    running.delete(data.id);
  }
};
postMessage("ready");
`;
}

/**
 * The JavaScript of a tool written in TypeScript (or JavaScript): sucrase strips the types, as a
 * compiler would, without checking them. A syntax error says where.
 */
function toJavaScript(code: string): string {
  try {
    return transform(code, { transforms: ["typescript"] }).code.trim().replace(/;+$/, "");
  } catch (e) {
    throw new Error(`SyntaxError: ${(e as Error).message}`);
  }
}

/** Starts a worker for code and resolves once its code evaluated, or rejects with its error. */
function startWorker(code: string): Promise<Worker> {
  const url = URL.createObjectURL(new Blob([workerSource(code)], { type: "text/javascript" }));
  const worker = new Worker(url, { name: "codemode user tool" });
  URL.revokeObjectURL(url);
  return new Promise((resolve, reject) => {
    worker.onmessage = (e: MessageEvent) => {
      if (e.data === "ready") {
        worker.onmessage = null;
        worker.onerror = null;
        resolve(worker);
      }
    };
    worker.onerror = (e: ErrorEvent) => {
      e.preventDefault();
      worker.terminate();
      reject(new Error(e.message || "the code does not evaluate"));
    };
  });
}

let workerCalls = 0;

/** Runs one call of a user's tool in its worker; an aborted call is cancelled there too. */
function callWorker(worker: Worker, input: Input, signal: AbortSignal): Promise<JsonValue> {
  const id = ++workerCalls;
  return new Promise((resolve, reject) => {
    const cleanup = (): void => {
      worker.removeEventListener("message", onMessage);
      signal.removeEventListener("abort", onAbort);
    };
    const onMessage = (e: MessageEvent): void => {
      const data = e.data as { id: number; result?: JsonValue; error?: string };
      if (data.id !== id) {
        return;
      }
      cleanup();
      if (data.error !== undefined) {
        reject(new Error(data.error));
      } else {
        resolve(data.result ?? null);
      }
    };
    const onAbort = (): void => {
      cleanup();
      worker.postMessage({ cancel: id });
      reject(signal.reason);
    };
    worker.addEventListener("message", onMessage);
    signal.addEventListener("abort", onAbort, { once: true });
    worker.postMessage({ id, input });
  });
}

/** A tool name a cell can call as tools.<name>: an identifier that no tool of the page has. */
function checkToolName(name: string): void {
  if (!/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name)) {
    throw new Error(`"${name}" is not a JavaScript identifier`);
  }
  if (name === "ping" || allTools().some((t) => t.name === name)) {
    throw new Error(`the page already has a tool named ${name}`);
  }
  if (hostHas(name)) {
    throw new Error(`the host has a tool named ${name}`);
  }
}

/** The input schema typed in the page: a JSON object. */
function parseSchema(text: string): JsonValue {
  let schema: JsonValue;
  try {
    schema = JSON.parse(text) as JsonValue;
  } catch (e) {
    throw new Error(`the input schema is not JSON: ${(e as Error).message}`);
  }
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) {
    throw new Error("the input schema must be a JSON object");
  }
  return schema;
}

/** A tool of the host's own (its manifest, codemode-host --tools), as cells see it in ALL_TOOLS. */
interface HostTool {
  readonly name: string;
  readonly description: string;
}

/** The host's tools; undefined until the host has been asked (probeHostTools). */
let hostTools: readonly HostTool[] | undefined;
/** Why the host's tools are unknown, when asking failed. */
let hostToolsError: string | undefined;

/** The cell that asks: ALL_TOOLS, in a cell given none of the page's tools, is the host's tools. */
const hostToolsProbe = "text(JSON.stringify(ALL_TOOLS.map(({ name, description }) => ({ name, description }))));";

/**
 * Asks the host which tools it adds to every cell. The protocol does not list them, but a cell
 * sees them: a cell run in a session of its own, with none of the page's tools enabled, reads
 * ALL_TOOLS (each tool's name and description). The host runs these tools itself, on its machine;
 * their calls never reach the page.
 */
async function probeHostTools(transport: SessionOptions["transport"]): Promise<readonly HostTool[]> {
  const probe = await openSession({ transport });
  try {
    const o = await probe.execute(hostToolsProbe, { tools: [], yieldTimeMs: 600_000 });
    const item = o.contentItems[0];
    if (o.kind !== "result" || o.errorText !== undefined || item?.type !== "input_text") {
      throw new Error(`the cell that reads ALL_TOOLS ended with ${o.kind}${o.kind === "result" && o.errorText !== undefined ? `: ${o.errorText}` : ""}`);
    }
    return JSON.parse(item.text) as HostTool[];
  } finally {
    await probe.close().catch(() => {});
  }
}

/** Whether the host has a tool named name: the page's tool of that name is then not offered. */
const hostHas = (name: string): boolean => hostTools?.some((t) => t.name === name) ?? false;

/** The page's tools a cell is offered: those whose name the host does not use. */
const offeredTools = (): PageTool[] => allTools().filter((t) => !hostHas(t.name));

/**
 * Lists the host's tools in #host-tools, labelled as run by the host, and says in the call log
 * and beside the description what the page cannot see of them.
 */
function listHostTools(): void {
  ui.hostTools.replaceChildren();
  const known = hostTools ?? [];
  const state = hostToolsError !== undefined ? "error" : hostTools === undefined ? "asking" : known.length === 0 ? "none" : "listed";
  ui.hostToolsState.dataset["state"] = state;
  ui.hostToolsState.textContent = {
    asking: "asking the host…",
    error: `cannot ask the host for its tools: ${hostToolsError}`,
    none: "none: the host was started without a tool manifest (--tools FILE), so cells have only the page's tools.",
    listed: "Every cell of every session is offered these tools too. The host runs them on its own machine; a tool of the page with the same name is not offered.",
  }[state];
  for (const tool of known) {
    const li = document.createElement("li");
    const name = document.createElement("code");
    name.textContent = `tools.${tool.name}`;
    const badge = document.createElement("span");
    badge.className = "by-host";
    badge.textContent = "run by the host";
    li.append(name, badge, ` — ${tool.description}`);
    ui.hostTools.append(li);
  }
  const names = known.map((t) => `tools.${t.name}`).join(", ");
  ui.callsNote.hidden = ui.descriptionNote.hidden = known.length === 0;
  ui.callsNote.textContent = `Calls of the host's tools (${names}) run on the host, which does not report them to the page: this log lists the page's tools only.`;
  ui.descriptionNote.textContent = `A model is also shown the host's tools (${names}), with TypeScript declarations from their schemas; the host does not send those schemas to the page, so this description covers the page's tools.`;
}

/** Registers a page tool with the session, its calls logged. */
function register(s: CodeModeSession, tool: PageTool): () => void {
  return s.registerTool(tool.name, logged(tool), { description: tool.description, inputSchema: tool.inputSchema });
}

/** Adds the tool written in the "Your own tool" form: checked, started in its worker, registered. */
async function addUserTool(): Promise<void> {
  const status = (state: string, text: string): void => {
    ui.addToolStatus.dataset["state"] = state;
    ui.addToolStatus.textContent = text;
  };
  ui.addTool.disabled = true;
  try {
    const name = ui.newToolName.value.trim();
    checkToolName(name);
    const inputSchema = parseSchema(ui.newToolSchema.value);
    const worker = await startWorker(toJavaScript(toolEditor.state.doc.toString()));
    const tool: UserTool = {
      name,
      description: ui.newToolDescription.value.trim(),
      inputSchema,
      worker,
      run: (input, context) => callWorker(worker, input, context.signal),
    };
    userTools.set(name, tool);
    if (session !== undefined) {
      tool.unregister = register(session, tool);
    }
    listTools();
    void showDescription();
    status("done", `added tools.${name}`);
  } catch (e) {
    status("error", (e as Error).message);
  }
  ui.addTool.disabled = session === undefined;
}

/** Removes a user's tool: unregistered, its worker stopped. */
function removeUserTool(name: string): void {
  const tool = userTools.get(name);
  if (tool === undefined) {
    return;
  }
  userTools.delete(name);
  tool.unregister?.();
  tool.worker.terminate();
  listTools();
  void showDescription();
}

/** Lists the page's tools in #tools, each user's tool with a Remove button. */
function listTools(): void {
  ui.tools.replaceChildren();
  for (const tool of allTools()) {
    const li = document.createElement("li");
    const name = document.createElement("code");
    name.textContent = `tools.${tool.name}`;
    li.append(name, ` — ${tool.description}`);
    if (hostHas(tool.name)) {
      li.dataset["shadowed"] = "";
      const note = document.createElement("em");
      note.textContent = ` (not offered: cells get the host's tools.${tool.name})`;
      li.append(note);
    }
    if (userTools.has(tool.name)) {
      const remove = document.createElement("button");
      remove.textContent = "Remove";
      remove.addEventListener("click", () => removeUserTool(tool.name));
      li.append(remove);
    }
    ui.tools.append(li);
  }
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

/**
 * Shows the exec tool's description for this page's tools, as a model would be shown it: the host
 * renders it (POST /exec-description), since the rendering lives in Go.
 */
async function showDescription(): Promise<void> {
  const described = offeredTools().map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema }));
  try {
    const response = await fetch("/exec-description", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ tools: described }),
    });
    const text = await response.text();
    if (!response.ok) {
      throw new Error(text.trim());
    }
    ui.description.textContent = text;
    ui.description.dataset["state"] = "done";
  } catch (e) {
    ui.description.textContent = `cannot render the description: ${(e as Error).message}`;
    ui.description.dataset["state"] = "error";
  }
}

/** The protocols the page can speak to its host, both over the browser's fetch (HTTP/1.1 here). */
const protocols = {
  connect: { name: "Connect", transport: () => createConnectTransport({ baseUrl: location.origin, useBinaryFormat: true }) },
  "grpc-web": { name: "gRPC-Web", transport: () => createGrpcWebTransport({ baseUrl: location.origin }) },
} as const;

/** The protocol chosen in #protocol. */
const protocol = (): (typeof protocols)[keyof typeof protocols] => (ui.protocol.value === "grpc-web" ? protocols["grpc-web"] : protocols.connect);

/** Closes the current session (its cells end with it) and opens one over the chosen protocol. */
async function reconnect(): Promise<void> {
  const old = session;
  session = undefined;
  cellId = undefined;
  finished.clear(); // a new session numbers its cells from 1 again
  ui.cell.textContent = "–";
  ui.connection.textContent = "connecting…";
  ui.connection.dataset["state"] = "connecting";
  setState("idle");
  for (const tool of userTools.values()) {
    delete tool.unregister; // the old session's registration ends with it; connect registers again
  }
  await old?.close().catch(() => {});
  await connect();
}

async function connect(): Promise<void> {
  const p = protocol();
  const transport = p.transport();
  if (hostTools === undefined) {
    try {
      hostTools = await probeHostTools(transport);
      hostToolsError = undefined;
    } catch (e) {
      hostToolsError = (e as Error).message;
    }
    listHostTools();
    listTools();
  }
  try {
    const s = await openSession({ transport });
    for (const tool of tools.filter((t) => !hostHas(t.name))) {
      register(s, tool);
    }
    for (const tool of userTools.values()) {
      tool.unregister = register(s, tool);
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
    void showDescription();
    ui.connection.textContent = `connected to ${location.host} over ${p.name}`;
    ui.connection.dataset["state"] = "connected";
  } catch (e) {
    ui.connection.textContent = `cannot open a session: ${(e as Error).message}`;
    ui.connection.dataset["state"] = "failed";
  }
  setState(state);
}

listTools();
for (const name of examples.keys()) {
  ui.example.add(new Option(name, name));
}
ui.example.addEventListener("change", () => {
  setSource(examples.get(ui.example.value) ?? "");
});
setSource(examples.values().next().value ?? "");
ui.run.addEventListener("click", () => void run());
ui.wait.addEventListener("click", () => void wait());
ui.terminate.addEventListener("click", () => void terminate());
ui.bench.addEventListener("click", () => void bench());
ui.addTool.addEventListener("click", () => void addUserTool());
ui.protocol.addEventListener("change", () => void reconnect());
void connect();
