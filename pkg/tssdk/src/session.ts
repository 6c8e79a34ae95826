// The public client: a code-mode session on a remote CodeModeHost that reconnects to the next
// generation when its lease is lost (the Go client's pkg/grpc/grpcclient session), with the tools the
// caller registers in TypeScript.

import { create } from "@bufbuild/protobuf";
import type { Transport } from "@connectrpc/connect";
import {
  SessionCellExecutionLimitsSchema,
  ToolDefinitionSchema,
  ToolKind,
  type SessionCellExecutionLimits,
  type ToolDefinition,
} from "../../../gen/ts/pb/codex/code_mode/v1/code_mode_pb.js";
import { Binding, DEFAULT_YIELD_TIME_MS, abortReason, type BindingHooks, type NotificationEvent, type ToolCallContext } from "./binding.js";
import { ShuttingDownError } from "./errors.js";
import { newUuid, remoteCellId } from "./ids.js";
import type { RuntimeOutcome, WaitOutcome } from "./outcome.js";
import { toolKey, type EnabledTool, type ToolNameLike } from "./state.js";

/** A JSON value, as tools receive their input and as schemas are written. */
export type JsonValue = null | boolean | number | string | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/**
 * A tool implemented in TypeScript. It gets the cell's input (parsed JSON; `undefined` when the
 * cell called it without an argument) and the call's context, and returns (or resolves to) any
 * JSON-serializable value (`undefined` becomes `null`), which the cell's promise resolves with. A
 * thrown error fails the call: the cell's promise rejects with the error's message.
 */
export type ToolImplementation = (input: JsonValue | undefined, context: ToolCallContext) => unknown;

/** How a registered tool is described to the cell (a `ToolDefinition` on the wire). */
export interface ToolOptions {
  /** The tool's namespace; absent means the default namespace ("functions"). */
  readonly namespace?: string;
  /**
   * The key the cell calls it by, `tools.<key>` after normalization to an identifier; defaults to
   * the tool's name.
   */
  readonly exposedAs?: string;
  /** The description the cell sees in `ALL_TOOLS`. */
  readonly description?: string;
  /** "function" (JSON input, the default) or "freeform" (string input). */
  readonly kind?: "function" | "freeform";
  /** The JSON Schema of the input. */
  readonly inputSchema?: JsonValue;
  /** The JSON Schema of the output. */
  readonly outputSchema?: JsonValue;
}

/** The limits of the session's cells (sent on OpenSession only when one is set). */
export interface CellExecutionLimits {
  /** Caps the effective yield time of execute and wait. */
  readonly maxYieldTimeMs?: number | bigint;
  /** Negotiated and transported; not enforced by the baseline host. */
  readonly maxHeapSizeBytes?: number | bigint;
}

/** Options of {@link openSession}. */
export interface SessionOptions {
  /**
   * The connect-es transport to the host: `createConnectTransport` or `createGrpcWebTransport`
   * from `@connectrpc/connect-web` in browsers, `createConnectTransport` or `createGrpcTransport`
   * from `@connectrpc/connect-node` in Node (gRPC needs `httpVersion: "2"`). Its base URL is the
   * host's `http://ADDR`.
   */
  readonly transport: Transport;
  /** Limits for the session's cells. */
  readonly cellExecutionLimits?: CellExecutionLimits;
  /**
   * Asks the host to truncate every outcome to its request's token budget
   * ({@link ExecuteOptions.maxOutputTokens}, {@link WaitOptions.maxOutputTokens}), in Codex's
   * format (a "Warning: truncated output" header and "…N tokens truncated…" in the middle), which
   * a model reads; Codex 0.169 asks it of a host it spawns
   * (docs/protocol/grpc.md#additions-of-codex-0169). {@link CodeModeSession.serverTruncation} says
   * whether the host agreed; a host that predates it sends outputs whole. Default false: outputs whole.
   */
  readonly serverTruncation?: boolean;
  /** Aborting it closes the session (as {@link CodeModeSession.close}); it also bounds the opening. */
  readonly signal?: AbortSignal;
}

/** Options of {@link CodeModeSession.execute} and {@link CodeModeSession.start}. */
export interface ExecuteOptions {
  /**
   * The exec call's ID (Codex's model call ID), echoed as `callId` on the cell's notifications;
   * a fresh UUID by default.
   */
  readonly toolCallId?: string;
  /** How long the first observation waits before the cell yields (default 10,000 ms). */
  readonly yieldTimeMs?: number;
  /**
   * The outcome's token budget. The host truncates the outcome to it when the session was opened
   * with {@link SessionOptions.serverTruncation} (and the host agreed); otherwise it is only
   * carried, and outputs come whole.
   */
  readonly maxOutputTokens?: number;
  /**
   * Aborting it ends the first observation at once, as if the yield time had passed: the outcome
   * is `yielded` with the output so far, and the cell keeps running (YieldObservation). Before
   * the cell is admitted it takes effect as soon as it is. A host that predates YieldObservation
   * ignores it, and the observation ends at its yield time.
   */
  readonly yieldNow?: AbortSignal;
  /**
   * The registered tools to enable, by name (`"name"` or, for a namespaced tool, the
   * `namespace` and `name` as registered); all registered tools by default.
   */
  readonly tools?: readonly (string | ToolNameLike)[];
  /**
   * Aborting it terminates the cell (once the host admitted it, if that is still to come) and
   * then rejects with the signal's reason: the cell is gone by the time the promise rejects.
   */
  readonly signal?: AbortSignal;
}

/** Options of {@link CodeModeSession.wait}. */
export interface WaitOptions {
  /** How long to wait before the cell yields (default 10,000 ms). */
  readonly yieldTimeMs?: number;
  /** The outcome's token budget, applied by the host when it truncates (see {@link ExecuteOptions.maxOutputTokens}). */
  readonly maxOutputTokens?: number;
  /**
   * Aborting it ends the wait at once, as if the yield time had passed: the outcome is `yielded`
   * with the new output, or the cell's end if it came first; the cell keeps running. Aborted
   * before the call, the wait takes what is there without waiting.
   */
  readonly yieldNow?: AbortSignal;
  /**
   * Aborting it cancels the wait on the host (CancelWait) and rejects with the reason; the cell's
   * next wait is sent only after the cancelled one retired, and no output is lost.
   */
  readonly signal?: AbortSignal;
}

/** A cell the host admitted. */
export interface StartedCell {
  /** The cell's public ID. */
  readonly cellId: string;
  /**
   * The first observation: settles when the cell yields, completes or is terminated. Rejects when
   * the session fails; never rejects unobserved (it is safe to ignore).
   */
  readonly outcome: Promise<RuntimeOutcome>;
  /** Gives up on the first observation: terminates the cell and retires it. */
  abandon(): Promise<void>;
}

/** The events of a session and their payloads. */
export interface SessionEvents {
  /**
   * A cell called `notify(text)`. Listeners may return a promise; the notification counts as
   * handled (and is acknowledged to the host, which then lets the cell complete) when every
   * listener's promise settled.
   */
  notification: NotificationEvent;
  /** A cell closed: its result was observed and its callbacks are over, or its lease was lost. */
  cellClosed: { readonly cellId: string };
  /**
   * The session's lease was lost (host restart, transport failure, protocol violation). Stored
   * values and running cells are gone; the next operation opens the next generation.
   */
  sessionLost: { readonly generation: number; readonly error: Error };
}

/** A listener of event `K`. */
export type SessionListener<K extends keyof SessionEvents> = (event: SessionEvents[K]) => void | Promise<void>;

/** A registered tool. */
interface RegisteredTool {
  readonly toolName: ToolNameLike;
  readonly kind: ToolKind;
  readonly definition: ToolDefinition;
  readonly run: ToolImplementation;
}

/**
 * Opens a code-mode session on the host behind `options.transport`: the OpenSession lease (whose
 * first event must be `opened`) and the one catch-all tool subscription, registered on the host
 * before this resolves.
 */
export async function openSession(options: SessionOptions): Promise<CodeModeSession> {
  const session = new CodeModeSession(options);
  await session.connect(options.signal);
  return session;
}

/**
 * A code-mode session on a remote host. Cells of one session share stored values; sessions are
 * isolated. When the lease is lost the next operation opens a new one, the next generation: its
 * cells are named `"g<N>:<id>"`, and an ID of another generation is refused with
 * {@link StaleGenerationError}.
 */
export class CodeModeSession {
  readonly #transport: Transport;
  readonly #limits: SessionCellExecutionLimits | undefined;
  readonly #serverTruncation: boolean;
  readonly #tools = new Map<string, RegisteredTool>();
  readonly #listeners: { [K in keyof SessionEvents]: Set<SessionListener<K>> } = {
    notification: new Set(),
    cellClosed: new Set(),
    sessionLost: new Set(),
  };
  #current: Binding | undefined;
  #opening: Promise<Binding> | undefined;
  #nextGeneration = 1;
  #closing = false;
  #closed: Promise<void> | undefined;

  /** Use {@link openSession}; a session made with `new` opens its lease on its first operation. */
  constructor(options: SessionOptions) {
    this.#transport = options.transport;
    this.#limits = limitsToProto(options.cellExecutionLimits);
    this.#serverTruncation = options.serverTruncation ?? false;
    options.signal?.addEventListener("abort", () => void this.close().catch(() => {}), { once: true });
  }

  /** The current generation (1 for the first lease, 0 before it opened). */
  get generation(): number {
    return this.#current?.generation ?? 0;
  }

  /** The host's ID of the current lease's session ("" before it opened). */
  get sessionId(): string {
    return this.#current?.id ?? "";
  }

  /** Whether the host confirmed it holds notifications until they are acknowledged. */
  get acknowledgedNotifications(): boolean {
    return this.#current?.acked ?? false;
  }

  /**
   * Whether the host truncates outcomes to their token budgets on the current lease: asked for
   * with {@link SessionOptions.serverTruncation} and confirmed by the host when it opened.
   */
  get serverTruncation(): boolean {
    return this.#current?.serverTruncation ?? false;
  }

  /** Tool calls and notifications in flight on the current lease (at most 1,024 are admitted). */
  get pendingCallbacks(): number {
    return this.#current?.pending ?? 0;
  }

  /** Opens the lease if there is none; {@link openSession} calls it. */
  async connect(signal?: AbortSignal): Promise<void> {
    await this.#binding(signal);
  }

  /**
   * Registers a tool the session's cells can call as `tools.<name>(input)`. Tools registered
   * before an execute are enabled for it (see {@link ExecuteOptions.tools}); a cell keeps the
   * implementation it started with. Returns a function that unregisters the tool.
   *
   * @throws Error if a tool of that name (and namespace) is registered already.
   */
  registerTool(name: string, implementation: ToolImplementation, options: ToolOptions = {}): () => void {
    const toolName: ToolNameLike = options.namespace === undefined ? { name } : { name, namespace: options.namespace };
    const key = toolKey(toolName);
    if (this.#tools.has(key)) {
      throw new Error(`code-mode tool ${name} is already registered`);
    }
    const kind = options.kind === "freeform" ? ToolKind.FREEFORM : ToolKind.FUNCTION;
    const encoder = new TextEncoder();
    const definition = create(ToolDefinitionSchema, {
      name: options.exposedAs ?? name,
      toolName,
      description: options.description ?? "",
      kind,
      ...(options.inputSchema === undefined ? {} : { inputSchemaJson: encoder.encode(JSON.stringify(options.inputSchema)) }),
      ...(options.outputSchema === undefined ? {} : { outputSchemaJson: encoder.encode(JSON.stringify(options.outputSchema)) }),
    });
    const tool: RegisteredTool = { toolName, kind, definition, run: implementation };
    this.#tools.set(key, tool);
    return () => {
      if (this.#tools.get(key) === tool) {
        this.#tools.delete(key);
      }
    };
  }

  /**
   * Subscribes `listener` to event `type`; returns a function that unsubscribes it.
   */
  on<K extends keyof SessionEvents>(type: K, listener: SessionListener<K>): () => void {
    const set = this.#listeners[type] as Set<SessionListener<K>>;
    set.add(listener);
    return () => set.delete(listener);
  }

  /**
   * Starts a cell and resolves once the host admitted it (its ID is known); the first observation
   * is {@link StartedCell.outcome}.
   */
  async start(source: string, options: ExecuteOptions = {}): Promise<StartedCell> {
    const enabled = this.#enabledTools(options.tools);
    const b = await this.#binding(options.signal);
    const cell = await b.execute(
      {
        source,
        toolCallId: options.toolCallId ?? newUuid(),
        definitions: enabled.map((t) => t.definition),
        tools: enabled.map((t): EnabledTool<(input: unknown, context: ToolCallContext) => unknown> => ({
          toolName: t.toolName,
          kind: t.kind,
          tool: (input, context) => t.run(input as JsonValue | undefined, context),
        })),
        ...(options.yieldTimeMs === undefined ? {} : { yieldTimeMs: options.yieldTimeMs }),
        ...(options.maxOutputTokens === undefined ? {} : { maxOutputTokens: options.maxOutputTokens }),
        ...(options.yieldNow === undefined ? {} : { yieldNow: options.yieldNow }),
      },
      options.signal,
    );
    return { cellId: cell.cellId, outcome: cell.outcome, abandon: cell.abandon };
  }

  /**
   * Runs a cell until its first observation: it yields (`yielded`, the cell keeps running; observe
   * it further with {@link wait}), completes (`result`, with `errorText` for a script error) or is
   * terminated (`terminated`). Aborting `options.signal` terminates the cell and rejects.
   */
  async execute(source: string, options: ExecuteOptions = {}): Promise<RuntimeOutcome> {
    const cell = await this.start(source, options);
    const signal = options.signal;
    if (signal === undefined) {
      return cell.outcome;
    }
    let onAbort: () => void = () => {};
    const aborted = new Promise<"aborted">((resolve) => {
      onAbort = () => resolve("aborted");
      if (signal.aborted) {
        resolve("aborted");
      } else {
        signal.addEventListener("abort", onAbort, { once: true });
      }
    });
    try {
      const r = await Promise.race([cell.outcome, aborted]);
      if (r === "aborted") {
        await cell.abandon();
        throw abortReason(signal);
      }
      return r;
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
  }

  /**
   * Observes a cell: new output since the previous observation when it yields again, or its
   * terminal outcome; `missing` for a cell the host does not know.
   *
   * @throws {@link StaleGenerationError} for an ID of a lost generation; {@link RuntimeError} with
   * the runtime's text when it refuses ("exec cell 1 already has an active observer").
   */
  async wait(cellId: string, options: WaitOptions = {}): Promise<WaitOutcome> {
    const b = await this.#binding(options.signal);
    const wire = remoteCellId(b.generation, cellId);
    return b.wait(
      wire,
      {
        yieldTimeMs: options.yieldTimeMs ?? DEFAULT_YIELD_TIME_MS,
        ...(options.maxOutputTokens === undefined ? {} : { maxOutputTokens: options.maxOutputTokens }),
        ...(options.yieldNow === undefined ? {} : { yieldNow: options.yieldNow }),
      },
      options.signal,
    );
  }

  /**
   * Terminates a cell: `terminated` with its buffered output (or `result` if it had completed
   * unobserved), `missing` for a cell the host does not know. It never opens a new lease: after a
   * loss it fails with the loss, and a stale ID fails with {@link StaleGenerationError}.
   * `maxOutputTokens` is the outcome's budget when the host truncates (see
   * {@link ExecuteOptions.maxOutputTokens}).
   */
  async terminate(cellId: string, options: { readonly signal?: AbortSignal; readonly maxOutputTokens?: number } = {}): Promise<WaitOutcome> {
    const b = this.#current;
    if (b === undefined || this.#closing) {
      throw new ShuttingDownError();
    }
    const wire = remoteCellId(b.generation, cellId);
    return b.terminate(wire, options.signal, options.maxOutputTokens);
  }

  /**
   * Closes the session on the host (CloseSession) and locally; every live cell is reported closed.
   * Operations fail with {@link ShuttingDownError} from its start; later calls return the first
   * one's promise.
   */
  close(): Promise<void> {
    this.#closing = true;
    this.#closed ??= (async () => {
      if (this.#opening !== undefined) {
        await this.#opening.catch(() => {});
      }
      await this.#current?.shutdown();
    })();
    return this.#closed;
  }

  /** The live binding, opening the next generation if the current one was lost. */
  #binding(signal: AbortSignal | undefined): Promise<Binding> {
    if (this.#closing) {
      return Promise.reject(new ShuttingDownError());
    }
    const b = this.#current;
    if (b !== undefined && !b.stopped) {
      return Promise.resolve(b);
    }
    this.#opening ??= this.#openNext(signal).finally(() => {
      this.#opening = undefined;
    });
    return this.#opening;
  }

  async #openNext(signal: AbortSignal | undefined): Promise<Binding> {
    const old = this.#current;
    const generation = this.#nextGeneration++;
    if (old !== undefined) {
      await old.shutdown().catch(() => {});
    }
    const b = await Binding.open(this.#transport, this.#hooks(generation), { limits: this.#limits, serverTruncation: this.#serverTruncation }, generation, signal);
    if (this.#closing) {
      await b.shutdown().catch(() => {});
      throw new ShuttingDownError();
    }
    this.#current = b;
    return b;
  }

  #hooks(generation: number): BindingHooks {
    return {
      notify: async (event) => {
        await Promise.allSettled([...this.#listeners.notification].map(async (l) => l(event)));
      },
      cellClosed: (cellId) => this.#emit("cellClosed", { cellId }),
      lost: (error) => this.#emit("sessionLost", { generation, error }),
    };
  }

  #emit<K extends "cellClosed" | "sessionLost">(type: K, event: SessionEvents[K]): void {
    for (const l of [...(this.#listeners[type] as Set<SessionListener<K>>)]) {
      try {
        void Promise.resolve(l(event)).catch(() => {});
      } catch {
        // A listener's failure is the listener's.
      }
    }
  }

  /** The registered tools an execution enables. */
  #enabledTools(names: readonly (string | ToolNameLike)[] | undefined): RegisteredTool[] {
    if (names === undefined) {
      return [...this.#tools.values()];
    }
    return names.map((n) => {
      const name = typeof n === "string" ? { name: n } : n;
      const t = this.#tools.get(toolKey(name));
      if (t === undefined) {
        throw new Error(`code-mode tool ${name.name} is not registered`);
      }
      return t;
    });
  }
}

/** The OpenSession limits; undefined when neither is set (Codex sets the field only then). */
export function limitsToProto(limits: CellExecutionLimits | undefined): SessionCellExecutionLimits | undefined {
  if (limits?.maxYieldTimeMs === undefined && limits?.maxHeapSizeBytes === undefined) {
    return undefined;
  }
  return create(SessionCellExecutionLimitsSchema, {
    ...(limits.maxYieldTimeMs === undefined ? {} : { maxYieldTimeMs: BigInt(limits.maxYieldTimeMs) }),
    ...(limits.maxHeapSizeBytes === undefined ? {} : { maxHeapSizeBytes: BigInt(limits.maxHeapSizeBytes) }),
  });
}
