// One lease on the host (the Go client's pkg/grpc/grpcclient binding): a session of the host, the
// streams that carry its callbacks, and the client's bookkeeping. When the lease is lost the
// binding stops for good; the reconnecting session (session.ts) opens the next generation.

import { create, toBinary } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, type Client, type Transport } from "@connectrpc/connect";
import {
  CodeModeHost,
  CompleteToolCallRequestSchema,
  ExecuteRequestSchema,
  OutputTruncation,
  type CompleteToolCallRequest,
  type ExecuteEvent,
  type Notification,
  type SessionCellExecutionLimits,
  type SessionEvent,
  type ToolCall,
  type ToolDefinition,
  type WaitResponse,
  type YieldObservationRequest,
} from "../../../gen/ts/pb/codex/code_mode/v1/code_mode_pb.js";
import {
  errorText,
  RequestError,
  RuntimeError,
  SESSION_STOPPED_TEXT,
  SessionResetError,
  ShuttingDownError,
  TimeoutError,
} from "./errors.js";
import { checkHostIdentifier, newUuid, publicCellId } from "./ids.js";
import {
  runtimeOutcomeFromProto,
  waitOutcomeFromProto,
  withPublicCellId,
  type RuntimeOutcome,
  type WaitOutcome,
} from "./outcome.js";
import { MAX_PENDING_CALLBACKS, SessionState, type EnabledTool, type ToolNameLike } from "./state.js";

/**
 * The OpenSession request header by which a client asks the host to hold a notification's
 * delivery until AcknowledgeNotification (value "true"); a host that does so answers with the same
 * header. The Go client's opt-in (docs/decisions.md, "Notification acknowledgements").
 */
export const ACKNOWLEDGEMENTS_HEADER = "X-Code-Mode-Notification-Acks";

/**
 * Per-session routing (docs/protocol/grpc.md#routing): the host names itself in this OpenSession response header, and
 * every later request of the session carries the value, so an L7 proxy keeps the session on its
 * host.
 */
export const ROUTE_HEADER = "X-Code-Mode-Route";

/**
 * "true" on a failure for a session the answering host does not hold while the request carried
 * another host's route: the session was reset ({@link SessionResetError}).
 */
export const ROUTE_LOST_HEADER = "X-Code-Mode-Route-Lost";

/** OpenSession attempts refused with UNAVAILABLE or RESOURCE_EXHAUSTED are retried, this many in all. */
export const MAX_OPEN_ATTEMPTS = 5;

/** The largest message either side sends or accepts (64 MiB). */
export const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

/** Each request's allowance for the transport (Codex's `TRANSPORT_TIMEOUT`). */
export const TRANSPORT_TIMEOUT_MS = 60_000;

/** An execution's yield time when the caller gives none (Codex's `DEFAULT_EXEC_YIELD_TIME_MS`). */
export const DEFAULT_YIELD_TIME_MS = 10_000;

/** The longest delay setTimeout takes; a longer allowance means no deadline in practice. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** What a tool call's implementation gets besides its input. */
export interface ToolCallContext {
  /** Aborted when the host cancels the call, its cell closes or the session's lease ends. */
  readonly signal: AbortSignal;
  /** The public ID of the calling cell. */
  readonly cellId: string;
  /** The tool's name as the cell called it. */
  readonly toolName: ToolNameLike;
  /** The runtime's ID of the call within its cell ("tool-1", "tool-2", …). */
  readonly runtimeToolCallId: string;
  /** The host's ID of this invocation (a UUID). */
  readonly invocationId: string;
  /** The client's ID of the execution that started the cell. */
  readonly executionId: string;
  /** The call's sequence number within its execution (from 1). */
  readonly sequence: bigint;
  /** The W3C trace parent the host passed on, if any. */
  readonly traceparent?: string;
}

/** A tool as the binding runs it: parsed input in, any JSON-serializable value (or a promise of one) out. */
export type ToolRunner = (input: unknown, context: ToolCallContext) => unknown;

/** A notification a cell sent with `notify(…)`. */
export interface NotificationEvent {
  /** The host's ID of the notification (a UUID). */
  readonly notificationId: string;
  /** The exec call ID the cell was started with (`ExecuteOptions.toolCallId`). */
  readonly callId: string;
  /** The public ID of the cell. */
  readonly cellId: string;
  /** The text. */
  readonly text: string;
  /** Aborted when the cell is terminated or the session's lease ends. */
  readonly signal: AbortSignal;
}

/** How a binding tells its session what happened. */
export interface BindingHooks {
  /** Delivers a notification; the returned promise settles when it was handled. */
  notify(event: NotificationEvent): Promise<void>;
  /** A cell (public ID) closed: its execution retired, or the lease ended with it. */
  cellClosed(cellId: string): void;
  /** The lease was lost (not closed on request): later operations open the next generation. */
  lost(error: Error): void;
}

/** What a lease asks of the host when it opens (OpenSession). */
export interface LeaseRequest {
  /** The session's cell limits; undefined sends none. */
  readonly limits: SessionCellExecutionLimits | undefined;
  /** Ask the host to truncate outcomes to each request's token budget (OUTPUT_TRUNCATION_SERVER). */
  readonly serverTruncation: boolean;
}

/** The request of one execution, as the session prepared it. */
export interface ExecutionRequest {
  readonly source: string;
  readonly toolCallId: string;
  readonly definitions: readonly ToolDefinition[];
  readonly tools: readonly EnabledTool<ToolRunner>[];
  readonly yieldTimeMs?: number;
  readonly maxOutputTokens?: number;
  /** Aborting it ends the first observation at once (YieldObservation); the cell keeps running. */
  readonly yieldNow?: AbortSignal;
}

/** How one wait observes its cell. */
export interface WaitRequest {
  readonly yieldTimeMs: number;
  /** The outcome's token budget, sent only when the host truncates ({@link Binding.serverTruncation}). */
  readonly maxOutputTokens?: number;
  /** Aborting it ends the wait at once (YieldObservation); the cell keeps running. */
  readonly yieldNow?: AbortSignal;
}

/** A cell the host admitted, as the binding hands it to the session. */
export interface BoundCell {
  /** The public ID. */
  readonly cellId: string;
  /** The first observation: settles when the cell yields, completes or is terminated. */
  readonly outcome: Promise<RuntimeOutcome>;
  /** Gives up on the first observation: terminates the cell and retires its execution. */
  abandon(): Promise<void>;
}

/** The result of a tool call as it is completed. */
type ToolResult = { readonly ok: true; readonly json: Uint8Array } | { readonly ok: false; readonly message: string };

/**
 * One lease. Created by {@link Binding.open}; stopped by a failure (the host broke the protocol, a
 * stream ended, a request timed out) or by {@link Binding.shutdown}.
 */
export class Binding {
  /** The generation of this lease (1 for a session's first). */
  readonly generation: number;
  /** The host's session ID. */
  id = "";
  /** Whether the host confirmed it waits for notification acknowledgements. */
  acked = false;
  /** The host's route ({@link ROUTE_HEADER}), "" when it sent none; every later request carries it. */
  route = "";
  /**
   * Whether the host truncates this session's outcomes: the lease asked for it and the host's
   * opening event said OUTPUT_TRUNCATION_SERVER (a host before Codex 0.169's protocol never does).
   */
  serverTruncation = false;

  readonly #client: Client<typeof CodeModeHost>;
  readonly #hooks: BindingHooks;
  readonly #state = new SessionState<ToolRunner>();
  /** Ends the lease and subscription streams. */
  readonly #lease = new AbortController();
  /** The controllers of requests and execution streams in flight, aborted when the binding stops. */
  readonly #scope = new Set<AbortController>();
  /** The stream readers; shutdown waits for them. */
  readonly #loops: Promise<void>[] = [];
  readonly #stoppedSignal: Promise<void>;
  #markStopped: () => void = () => {};
  #stopped = false;
  #opened = false;
  #shutdownRequested = false;
  #shutdown: Promise<void> | undefined;

  private constructor(transport: Transport, hooks: BindingHooks, generation: number) {
    this.#client = createClient(CodeModeHost, transport);
    this.#hooks = hooks;
    this.generation = generation;
    this.#stoppedSignal = new Promise((resolve) => {
      this.#markStopped = resolve;
    });
  }

  /**
   * Opens a lease of `generation`: OpenSession and its opening event, then the one catch-all
   * subscription, registered on the host (its response headers arrived) before this returns.
   */
  static async open(
    transport: Transport,
    hooks: BindingHooks,
    lease: LeaseRequest,
    generation: number,
    signal?: AbortSignal,
  ): Promise<Binding> {
    const b = new Binding(transport, hooks, generation);
    const onAbort = (): void => b.#closeState(abortReason(signal));
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      if (signal?.aborted) {
        throw abortReason(signal);
      }
      await b.#openLease(lease);
      await b.#subscribe();
      b.#state.requireOpen();
      b.#opened = true;
      return b;
    } catch (e) {
      b.#closeState(e instanceof Error ? e : new Error(String(e)));
      await Promise.allSettled(b.#loops);
      throw signal?.aborted ? abortReason(signal) : e;
    } finally {
      signal?.removeEventListener("abort", onAbort);
    }
  }

  /** Whether the binding can serve no more requests. */
  get stopped(): boolean {
    return this.#stopped;
  }

  /** The number of tool calls and notifications in flight. */
  get pending(): number {
    return this.#state.pending;
  }

  /**
   * OpenSession and its opening event. An attempt refused with UNAVAILABLE or RESOURCE_EXHAUSTED
   * before the opening event is tried again (a proxy may pick another host), at most
   * {@link MAX_OPEN_ATTEMPTS} in all; other failures are not retried.
   */
  async #openLease(lease: LeaseRequest): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.#openLeaseOnce(lease);
        return;
      } catch (e) {
        const code = e instanceof RequestError ? e.cause.code : undefined;
        const retryable = code === Code.Unavailable || code === Code.ResourceExhausted;
        if (!retryable || attempt >= MAX_OPEN_ATTEMPTS || this.#lease.signal.aborted) {
          throw e;
        }
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, 10 * 2 ** (attempt - 1));
        function done(): void {
          clearTimeout(timer);
          resolve();
        }
        this.#lease.signal.addEventListener("abort", done, { once: true });
      });
    }
  }

  async #openLeaseOnce(lease: LeaseRequest): Promise<void> {
    const it = this.#client
      .openSession(openSessionRequest(lease), {
        signal: this.#lease.signal,
        timeoutMs: 0,
        headers: { [ACKNOWLEDGEMENTS_HEADER]: "true" },
        onHeader: (h) => {
          this.acked = h.get(ACKNOWLEDGEMENTS_HEADER) === "true";
          this.route = h.get(ROUTE_HEADER) ?? "";
        },
      })
      [Symbol.asyncIterator]();
    let first: IteratorResult<SessionEvent>;
    try {
      first = await this.#receive(it.next(), "session lease opening", 0, () => this.#lease.abort());
    } catch (e) {
      throw this.#streamError("session opening", e);
    }
    if (first.done === true) {
      throw new Error("gRPC code-mode session lease ended before opening");
    }
    if (first.value.event.case !== "opened") {
      throw new Error("gRPC code-mode session lease omitted its opening event");
    }
    checkHostIdentifier(first.value.event.value.sessionId, "session ID");
    this.id = first.value.event.value.sessionId;
    // The host says whether it truncates (Codex 0.169's protocol); an older host never does.
    this.serverTruncation = lease.serverTruncation && first.value.event.value.outputTruncation === OutputTruncation.SERVER;
    this.#loops.push(this.#readLease(it));
  }

  /** The headers of every request after OpenSession: the session's route, if the host sent one. */
  #headers(): Record<string, string> {
    return this.route === "" ? {} : { [ROUTE_HEADER]: this.route };
  }

  /**
   * Resets the session when a failure says its route was lost ({@link ROUTE_LOST_HEADER}): the
   * binding fails with a {@link SessionResetError}, its cells are reported closed, and the next
   * operation opens the next generation. Reports whether it did.
   */
  #routeLost(e: unknown): boolean {
    if (!(e instanceof ConnectError) || e.metadata.get(ROUTE_LOST_HEADER) !== "true") {
      return false;
    }
    this.fail(new SessionResetError());
    return true;
  }

  async #subscribe(): Promise<void> {
    let registered!: () => void;
    const headers = new Promise<void>((resolve) => {
      registered = resolve;
    });
    const it = this.#client
      .subscribeToToolCalls({ sessionId: this.id }, { signal: this.#lease.signal, timeoutMs: 0, headers: this.#headers(), onHeader: () => registered() })
      [Symbol.asyncIterator]();
    this.#loops.push(this.#readSubscription(it));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), TRANSPORT_TIMEOUT_MS);
    });
    try {
      const r = await Promise.race([headers, this.#stoppedSignal, timedOut]);
      if (r === "timeout") {
        const err = new TimeoutError("tool subscription");
        this.fail(err);
        throw err;
      }
    } finally {
      clearTimeout(timer);
    }
    // The subscription may have failed right after its headers (or instead of them).
    this.#state.requireOpen();
  }

  /** Throws once the binding stopped or its shutdown was requested. */
  #requireOpen(): void {
    this.#state.requireOpen();
    if (this.#shutdownRequested) {
      throw new ShuttingDownError();
    }
  }

  /**
   * Stops the binding with `reason`: the session's requests fail with it from now on, every live
   * cell is reported closed, and the lease is dropped (so the host closes its session too).
   */
  fail(reason: Error): void {
    this.#closeState(reason);
  }

  #closeState(failure: Error | undefined): void {
    const cells = this.#state.close(failure);
    const first = !this.#stopped;
    this.#stopped = true;
    this.#lease.abort(failure);
    for (const c of this.#scope) {
      c.abort(failure);
    }
    this.#markStopped();
    for (const cell of cells) {
      this.#hooks.cellClosed(publicCellId(this.generation, cell));
    }
    if (first && failure !== undefined && this.#opened && !this.#shutdownRequested) {
      this.#hooks.lost(failure);
    }
  }

  /** What an operation interrupted by the binding's stop fails with. */
  #stoppedError(): Error {
    try {
      this.#state.requireOpen();
    } catch (e) {
      return e as Error;
    }
    return new Error(SESSION_STOPPED_TEXT);
  }

  /**
   * Closes the session on the host (if the lease still stands), closes the binding and waits for
   * its streams. Later calls return the first one's promise.
   */
  shutdown(): Promise<void> {
    this.#shutdownRequested = true;
    this.#shutdown ??= (async () => {
      let failure: unknown;
      if (!this.#state.closed) {
        try {
          await this.#request("session shutdown", 0, undefined, (signal) => this.#client.closeSession({ sessionId: this.id }, { signal, headers: this.#headers() }));
        } catch (e) {
          failure = e;
        }
      }
      this.#closeState(undefined);
      await Promise.allSettled(this.#loops);
      if (failure !== undefined) {
        throw failure;
      }
    })();
    return this.#shutdown;
  }

  async #readLease(it: AsyncIterator<SessionEvent>): Promise<void> {
    try {
      for (;;) {
        const r = await it.next();
        if (r.done === true) {
          this.#streamEnded("session lease", undefined);
          return;
        }
        this.#handleSessionEvent(r.value);
      }
    } catch (e) {
      this.#streamEnded("session lease", e);
    }
  }

  async #readSubscription(it: AsyncIterator<ToolCall>): Promise<void> {
    try {
      for (;;) {
        const r = await it.next();
        if (r.done === true) {
          this.#streamEnded("tool subscription", undefined);
          return;
        }
        this.#handleToolCall(r.value);
      }
    } catch (e) {
      this.#streamEnded("tool subscription", e);
    }
  }

  /** Fails the binding when one of its streams ends (or a handler threw) while nobody asked it to. */
  #streamEnded(name: string, e: unknown): void {
    if (this.#shutdownRequested || this.#stopped) {
      return;
    }
    if (e === undefined) {
      this.fail(new Error(`gRPC code-mode ${name} closed unexpectedly`));
    } else if (e instanceof ConnectError) {
      this.fail(new RequestError(name, e));
    } else {
      // A protocol violation the handler found.
      this.fail(e instanceof Error ? e : new Error(String(e)));
    }
  }

  #handleSessionEvent(e: SessionEvent): void {
    switch (e.event.case) {
      case "opened":
        throw new Error("gRPC code-mode host repeated the session opening event");
      case "toolCallCancelled":
        this.#state.cancelInvocation(e.event.value.invocationId);
        return;
      case "notification":
        this.#handleNotification(e.event.value);
        return;
      case "notificationCancelled":
        return;
      case "cellClosed":
        this.#reportClosed(this.#state.closeCell(e.event.value));
        return;
      default:
        throw new Error("gRPC code-mode host sent an empty session event");
    }
  }

  #reportClosed(wireCell: string): void {
    if (wireCell !== "") {
      this.#hooks.cellClosed(publicCellId(this.generation, wireCell));
    }
  }

  #handleToolCall(call: ToolCall): void {
    if (call.sessionId !== this.id) {
      throw new Error(`gRPC code-mode tool invocation belongs to session ${call.sessionId} instead of ${this.id}`);
    }
    const verdict = this.#state.admitInvocation(call);
    switch (verdict.kind) {
      case "preCancelled":
        return;
      case "closedCell":
        void this.#complete(call.invocationId, { ok: false, message: `code-mode cell ${call.cellId} is closed` }, undefined);
        return;
      case "rejected":
        void this.#complete(call.invocationId, { ok: false, message: verdict.reason }, undefined);
        return;
      case "admitted":
        void this.#invoke(call, verdict.tool, verdict.signal);
        return;
    }
  }

  /** Runs an admitted tool call and completes it, unless it was cancelled meanwhile. */
  async #invoke(call: ToolCall, run: ToolRunner, signal: AbortSignal): Promise<void> {
    try {
      const input = toolInput(call);
      const context: ToolCallContext = {
        signal,
        cellId: publicCellId(this.generation, call.cellId),
        toolName: call.toolName?.namespace === undefined ? { name: call.toolName?.name ?? "" } : { name: call.toolName.name, namespace: call.toolName.namespace },
        runtimeToolCallId: call.runtimeToolCallId,
        invocationId: call.invocationId,
        executionId: call.executionId,
        sequence: call.sequence,
        ...(call.traceparent === undefined ? {} : { traceparent: call.traceparent }),
      };
      let result: ToolResult;
      try {
        result = toolOutput(await run(input, context));
      } catch (e) {
        result = { ok: false, message: errorText(e) };
      }
      if (!signal.aborted) {
        await this.#complete(call.invocationId, result, signal);
      }
    } catch (e) {
      // The input could not be decoded: the call fails with the reason.
      if (!signal.aborted) {
        await this.#complete(call.invocationId, { ok: false, message: errorText(e) }, signal);
      }
    } finally {
      if (!this.#state.closed) {
        this.#state.finishInvocation(call.invocationId);
      }
    }
  }

  /**
   * Sends a CompleteToolCall. A failure other than the invocation's or the binding's end fails the
   * binding: the host would wait for this result forever.
   */
  async #complete(invocationId: string, result: ToolResult, signal: AbortSignal | undefined): Promise<void> {
    const req = completionRequest(this.id, invocationId, result, MAX_MESSAGE_BYTES);
    try {
      await this.#request("tool invocation completion", 0, signal, (s) => this.#client.completeToolCall(req, { signal: s, headers: this.#headers() }));
    } catch (e) {
      if (!(signal?.aborted ?? false) && !this.#stopped) {
        this.fail(e instanceof Error ? e : new Error(String(e)));
      }
    }
  }

  #handleNotification(n: Notification): void {
    const verdict = this.#state.admitNotification(n);
    if (verdict.kind !== "admitted") {
      void this.#acknowledge(n.notificationId);
      return;
    }
    void (async () => {
      try {
        await this.#hooks.notify({
          notificationId: n.notificationId,
          callId: n.callId,
          cellId: publicCellId(this.generation, n.cellId),
          text: n.text,
          signal: verdict.signal,
        });
      } catch {
        // A listener's failure is the listener's; the notification counts as handled.
      }
      await this.#acknowledge(n.notificationId);
      this.#reportClosed(this.#state.finishNotification(n.executionId));
    })();
  }

  /** Tells the host a notification was handled; a failure fails the binding. */
  async #acknowledge(notificationId: string): Promise<void> {
    try {
      await this.#request("notification acknowledgement", 0, undefined, (signal) =>
        this.#client.acknowledgeNotification({ sessionId: this.id, notificationId }, { signal, headers: this.#headers() }),
      );
    } catch (e) {
      if (!this.#stopped) {
        this.fail(e instanceof Error ? e : new Error(String(e)));
      }
    }
  }

  /**
   * Runs a unary request under the deadline of `operation` (the transport's 60 s plus
   * `allowanceMs`). A timeout fails the whole binding; a failed request throws a RequestError; an
   * aborted caller gets its signal's reason; a stopped binding its failure.
   */
  async #request<R>(operation: string, allowanceMs: number, caller: AbortSignal | undefined, f: (signal: AbortSignal) => Promise<R>): Promise<R> {
    const c = new AbortController();
    this.#scope.add(c);
    if (this.#stopped) {
      c.abort();
    }
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      c.abort();
    }, Math.min(TRANSPORT_TIMEOUT_MS + allowanceMs, MAX_TIMER_MS));
    const onAbort = (): void => c.abort(caller?.reason);
    caller?.addEventListener("abort", onAbort, { once: true });
    if (caller?.aborted === true) {
      c.abort(caller.reason);
    }
    try {
      return await f(c.signal);
    } catch (e) {
      if (timedOut) {
        const err = new TimeoutError(operation);
        this.fail(err);
        throw err;
      }
      if (this.#routeLost(e)) {
        throw this.#stoppedError();
      }
      if (caller?.aborted === true) {
        throw abortReason(caller);
      }
      if (this.#stopped) {
        throw this.#stoppedError();
      }
      throw new RequestError(operation, ConnectError.from(e));
    } finally {
      clearTimeout(timer);
      caller?.removeEventListener("abort", onAbort);
      this.#scope.delete(c);
    }
  }

  /**
   * Awaits one step of a stream within the transport's allowance plus `allowanceMs`; when the
   * deadline passes first, `cancel` ends the stream and the binding fails with a TimeoutError.
   */
  async #receive<T>(next: Promise<T>, operation: string, allowanceMs: number, cancel: () => void): Promise<T> {
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      cancel();
    }, Math.min(TRANSPORT_TIMEOUT_MS + allowanceMs, MAX_TIMER_MS));
    try {
      return await next;
    } catch (e) {
      if (timedOut) {
        const err = new TimeoutError(operation);
        this.fail(err);
        throw err;
      }
      throw e;
    } finally {
      clearTimeout(timer);
    }
  }

  /** The error a stream step failed with, as the caller sees it. */
  #streamError(operation: string, e: unknown): Error {
    if (e instanceof TimeoutError) {
      return e;
    }
    if (this.#routeLost(e)) {
      return this.#stoppedError();
    }
    if (this.#stopped) {
      return this.#stoppedError();
    }
    if (e instanceof ConnectError) {
      return e.code === Code.FailedPrecondition ? new RuntimeError(e.rawMessage) : new RequestError(operation, e);
    }
    return e instanceof Error ? e : new Error(String(e));
  }

  /**
   * Starts a cell: registers the execution, sends the Execute and waits for its started event. If
   * `caller` aborts before the cell is admitted, the cell, once admitted, is terminated and
   * reported closed, then the abort reason is thrown.
   */
  async execute(req: ExecutionRequest, caller: AbortSignal | undefined): Promise<BoundCell> {
    this.#requireOpen();
    const executionId = newUuid();
    const msg = create(ExecuteRequestSchema, {
      sessionId: this.id,
      executionId,
      toolCallId: req.toolCallId,
      source: req.source,
      enabledTools: [...req.definitions],
      ...(req.yieldTimeMs === undefined ? {} : { yieldTimeMs: BigInt(req.yieldTimeMs) }),
      ...(req.maxOutputTokens === undefined ? {} : { maxOutputTokens: BigInt(req.maxOutputTokens) }),
    });
    this.#state.beginExecution(executionId, req.toolCallId, req.tools);
    const stream = new AbortController();
    this.#scope.add(stream);
    const opened = this.#openExecution(executionId, msg, stream);
    const aborted = caller === undefined ? undefined : abortedPromise(caller);
    const first = await Promise.race(aborted === undefined ? [opened] : [opened, aborted.promise]);
    aborted?.dispose();
    if (first === "aborted") {
      // Gave up before the started event: a cell the host admitted all the same is abandoned
      // (terminated) before the caller hears of the abort, so its next wait finds the cell gone.
      // The started event comes at once from a live host, and within its deadline in any case.
      try {
        const e = await opened;
        await this.#abandon(executionId, e.cell, stream);
      } catch {
        // The execution failed to start: there is no cell to stop.
      }
      throw abortReason(caller);
    }
    return this.#hand(executionId, first.cell, first.it, stream, req.yieldTimeMs ?? DEFAULT_YIELD_TIME_MS, req.yieldNow);
  }

  async #openExecution(
    executionId: string,
    msg: ReturnType<typeof create<typeof ExecuteRequestSchema>>,
    stream: AbortController,
  ): Promise<{ cell: string; it: AsyncIterator<ExecuteEvent> }> {
    const fail = (err: Error): never => {
      stream.abort();
      this.#scope.delete(stream);
      this.#reportClosed(this.#state.closed ? "" : this.#state.removeExecution(executionId));
      throw err;
    };
    const it = this.#client.execute(msg, { signal: stream.signal, timeoutMs: 0, headers: this.#headers() })[Symbol.asyncIterator]();
    let first: IteratorResult<ExecuteEvent>;
    try {
      first = await this.#receive(it.next(), "execution starting event", 0, () => stream.abort());
    } catch (e) {
      return fail(this.#streamError("execution", e));
    }
    if (first.done === true) {
      return fail(new Error("gRPC code-mode execution ended before its starting event"));
    }
    if (first.value.event.case !== "started") {
      return fail(new Error("gRPC code-mode execution omitted its starting event"));
    }
    const started = first.value.event.value;
    try {
      checkHostIdentifier(started.executionId, "execution ID");
      if (started.executionId !== executionId) {
        throw new Error(`gRPC code-mode execution returned ID ${started.executionId} instead of ${executionId}`);
      }
      this.#state.admitExecution(executionId, started.cellId);
    } catch (e) {
      const err = e instanceof Error ? e : new Error(String(e));
      this.fail(err);
      return fail(err);
    }
    return { cell: started.cellId, it };
  }

  /** Hands the started cell over: the execution is claimed and the outcome read in the background. */
  #hand(executionId: string, cell: string, it: AsyncIterator<ExecuteEvent>, stream: AbortController, yieldTimeMs: number, yieldNow: AbortSignal | undefined): BoundCell {
    let outcome: Promise<RuntimeOutcome>;
    try {
      this.#reportClosed(this.#state.markReady(executionId));
      const unwatch = this.#watchYield(yieldNow, { case: "executionId", value: executionId });
      outcome = this.#readOutcome(cell, it, stream, yieldTimeMs).finally(unwatch);
    } catch (e) {
      stream.abort();
      this.#scope.delete(stream);
      outcome = Promise.reject(e instanceof Error ? e : new Error(String(e)));
    }
    // The caller may never look at the outcome (it waits or terminates by ID instead).
    outcome.catch(() => {});
    return {
      cellId: publicCellId(this.generation, cell),
      outcome,
      abandon: () => this.#abandon(executionId, cell, stream),
    };
  }

  async #readOutcome(cell: string, it: AsyncIterator<ExecuteEvent>, stream: AbortController, yieldTimeMs: number): Promise<RuntimeOutcome> {
    try {
      let ev: IteratorResult<ExecuteEvent>;
      try {
        ev = await this.#receive(it.next(), "execution outcome", yieldTimeMs + 1_000, () => stream.abort());
      } catch (e) {
        throw this.#streamError("execution", e);
      }
      if (ev.done === true) {
        throw new Error("gRPC code-mode execution omitted its initial outcome");
      }
      if (ev.value.event.case !== "outcome") {
        throw new Error("gRPC code-mode execution returned an unexpected event");
      }
      const o = runtimeOutcomeFromProto(ev.value.event.value);
      this.#checkCell(cell, o.cellId);
      await this.#settle(o);
      return withPublicCellId(this.generation, o);
    } finally {
      stream.abort();
      this.#scope.delete(stream);
    }
  }

  /** Terminates an abandoned execution's cell, retires the execution and reports its closure. */
  async #abandon(executionId: string, cell: string, stream: AbortController): Promise<void> {
    if (!this.#stopped && cell !== "") {
      try {
        await this.terminate(cell, undefined);
      } catch {
        // The cell closed on its own meanwhile, or the binding stopped: nothing is left to stop.
      }
    }
    stream.abort();
    this.#scope.delete(stream);
    if (!this.#state.closed) {
      this.#reportClosed(this.#state.removeExecution(executionId));
    }
  }

  /**
   * Observes a cell (wire ID) under a fresh wait ID. If `caller` aborts first, the host is told
   * with CancelWait, and until that returns the cell's next wait is held back. The one-observer
   * rule is the host's: its text reaches the caller as a RuntimeError.
   */
  async wait(cell: string, req: WaitRequest, caller: AbortSignal | undefined): Promise<WaitOutcome> {
    this.#requireOpen();
    await this.#awaitRetired(cell, caller);
    this.#requireOpen();
    if (caller?.aborted === true) {
      throw abortReason(caller);
    }
    const waitId = newUuid();
    // Already told to yield: a zero yield time answers at once, with no race between the Wait and
    // a YieldObservation.
    const yieldNow = req.yieldNow?.aborted === true ? undefined : req.yieldNow;
    const yieldTimeMs = req.yieldNow?.aborted === true ? 0 : req.yieldTimeMs;
    const budget = this.#budget(req.maxOutputTokens);
    const rpc = new AbortController();
    let settled: { ok: true; resp: WaitResponse } | { ok: false; err: unknown } | undefined;
    const answer = this.#request("wait", yieldTimeMs + 1_000, rpc.signal, (signal) =>
      this.#client.wait(
        { sessionId: this.id, cellId: cell, waitId, yieldTimeMs: BigInt(yieldTimeMs), ...(budget === undefined ? {} : { maxOutputTokens: budget }) },
        { signal, headers: this.#headers() },
      ),
    ).then(
      (resp) => {
        settled = { ok: true, resp };
      },
      (err: unknown) => {
        settled = { ok: false, err };
      },
    );
    const unwatch = this.#watchYield(yieldNow, { case: "waitId", value: waitId });
    const aborted = caller === undefined ? undefined : abortedPromise(caller);
    await Promise.race(aborted === undefined ? [answer] : [answer, aborted.promise]);
    aborted?.dispose();
    unwatch();
    if (settled === undefined) {
      // The caller gave up first: retire the wait on the host in the background.
      this.#retireWait(cell, waitId, rpc, answer);
      throw abortReason(caller);
    }
    if (!settled.ok) {
      throw runtimeError(settled.err);
    }
    // An answer that came with the caller's end is returned, not lost.
    return this.#waitOutcome(cell, settled.resp);
  }

  #retireWait(cell: string, waitId: string, rpc: AbortController, answer: Promise<void>): void {
    const done = (async () => {
      let failure: unknown;
      try {
        await this.#request("wait cancellation", 0, undefined, (signal) => this.#client.cancelWait({ sessionId: this.id, waitId }, { signal, headers: this.#headers() }));
      } catch (e) {
        failure = e;
      }
      rpc.abort();
      await answer;
      if (failure !== undefined && !this.#stopped) {
        this.fail(new Error(`failed to retire canceled gRPC code-mode wait: ${errorText(failure)}`));
      }
    })();
    this.#state.dropWait(cell, done);
    void done.finally(() => this.#state.waitRetired(cell, done));
  }

  async #awaitRetired(cell: string, caller: AbortSignal | undefined): Promise<void> {
    const pending = this.#state.retiringWaits(cell);
    if (pending.length === 0) {
      return;
    }
    const aborted = caller === undefined ? undefined : abortedPromise(caller);
    const r = await Promise.race([Promise.all(pending).then(() => "retired" as const), this.#stoppedSignal.then(() => "stopped" as const), ...(aborted === undefined ? [] : [aborted.promise])]);
    aborted?.dispose();
    if (r === "aborted") {
      throw abortReason(caller);
    }
    if (r === "stopped") {
      throw this.#stoppedError();
    }
  }

  /** Stops a cell (wire ID); `maxOutputTokens` is the outcome's budget when the host truncates. */
  async terminate(cell: string, caller: AbortSignal | undefined, maxOutputTokens?: number): Promise<WaitOutcome> {
    this.#requireOpen();
    const budget = this.#budget(maxOutputTokens);
    let resp: WaitResponse;
    try {
      resp = await this.#request("termination", 0, caller, (signal) =>
        this.#client.terminate({ sessionId: this.id, cellId: cell, ...(budget === undefined ? {} : { maxOutputTokens: budget }) }, { signal, headers: this.#headers() }),
      );
    } catch (e) {
      throw runtimeError(e);
    }
    return this.#waitOutcome(cell, resp);
  }

  /** A wait's or termination's max_output_tokens: the caller's budget when the host truncates, else none. */
  #budget(tokens: number | undefined): bigint | undefined {
    if (!this.serverTruncation || tokens === undefined) {
      return undefined;
    }
    return BigInt(Math.max(Math.trunc(tokens), 0));
  }

  /**
   * Asks the host to end `observation` at once (YieldObservation) when `yieldNow` aborts, until
   * the returned function is called (the observation was answered). A refusal is ignored: a host
   * without YieldObservation (before Codex 0.169's protocol) answers UNIMPLEMENTED, and the
   * observation then ends at its yield time.
   */
  #watchYield(yieldNow: AbortSignal | undefined, observation: YieldObservationRequest["observation"]): () => void {
    if (yieldNow === undefined) {
      return () => {};
    }
    const send = (): void => {
      this.#request("yield observation", 0, undefined, (signal) =>
        this.#client.yieldObservation({ sessionId: this.id, observation }, { signal, headers: this.#headers() }),
      ).catch(() => {});
    };
    if (yieldNow.aborted) {
      send();
      return () => {};
    }
    yieldNow.addEventListener("abort", send, { once: true });
    return () => yieldNow.removeEventListener("abort", send);
  }

  /** Converts a WaitResponse for `cell`, checks it names the cell and settles its notifications. */
  async #waitOutcome(cell: string, resp: WaitResponse): Promise<WaitOutcome> {
    const o = waitOutcomeFromProto(resp);
    this.#checkCell(cell, o.cellId);
    if (o.kind !== "missing") {
      await this.#settle(o);
    }
    return withPublicCellId(this.generation, o);
  }

  /** Fails the binding if a response names another cell than the one asked for. */
  #checkCell(cell: string, got: string): void {
    if (got !== cell) {
      const err = new Error(`gRPC code-mode host returned cell ${got} instead of ${cell}`);
      this.fail(err);
      throw err;
    }
  }

  /**
   * Applies an outcome to its cell's notifications: a Result returns once all of them were
   * delivered (unless the host waited for their acknowledgements already), a Terminated cancels
   * them.
   */
  async #settle(o: RuntimeOutcome): Promise<void> {
    if (o.kind === "terminated") {
      this.#state.cancelNotifications(o.cellId);
      return;
    }
    if (o.kind !== "result" || this.acked) {
      return;
    }
    const settled = this.#state.notificationsSettled(o.cellId);
    if (settled === undefined || settled.aborted) {
      return;
    }
    const s = abortedPromise(settled);
    const r = await Promise.race([s.promise, this.#stoppedSignal.then(() => "stopped" as const)]);
    s.dispose();
    if (r === "stopped") {
      throw this.#stoppedError();
    }
  }
}

/**
 * The OpenSession request of a lease: its limits, who truncates, and the bound on pending
 * callbacks the client itself admits (so the host refuses what the client would).
 */
function openSessionRequest(lease: LeaseRequest): { cellExecutionLimits?: SessionCellExecutionLimits; outputTruncation?: OutputTruncation; maxPendingDelegateCalls: bigint } {
  return {
    ...(lease.limits === undefined ? {} : { cellExecutionLimits: lease.limits }),
    ...(lease.serverTruncation ? { outputTruncation: OutputTruncation.SERVER } : {}),
    maxPendingDelegateCalls: BigInt(MAX_PENDING_CALLBACKS),
  };
}

/** The input of a tool call: its JSON parsed, or undefined when the cell passed none. */
function toolInput(call: ToolCall): unknown {
  if (call.inputJson === undefined) {
    return undefined;
  }
  try {
    return JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(call.inputJson));
  } catch (e) {
    throw new Error(`code-mode tool invocation contains invalid JSON: ${errorText(e)}`);
  }
}

/** A tool's return value as a completion: its JSON (undefined is null), or a failure. */
export function toolOutput(value: unknown): ToolResult {
  let json: string | undefined;
  try {
    json = JSON.stringify(value === undefined ? null : value);
  } catch {
    return { ok: false, message: "tool result is not valid JSON" };
  }
  return { ok: true, json: new TextEncoder().encode(json ?? "null") };
}

/**
 * The CompleteToolCall for a result. Like Codex, a request whose encoding exceeds `limit` bytes is
 * replaced by a failure that says so, which always fits.
 */
export function completionRequest(sessionId: string, invocationId: string, result: ToolResult, limit: number): CompleteToolCallRequest {
  const req = create(CompleteToolCallRequestSchema, {
    sessionId,
    invocationId,
    outcome: result.ok ? { case: "succeeded", value: { outputJson: result.json } } : { case: "failed", value: { message: result.message } },
  });
  const payload = result.ok ? result.json.length : result.message.length * 3;
  if (payload + 1_024 < limit) {
    return req;
  }
  const size = toBinary(CompleteToolCallRequestSchema, req).length;
  if (size <= limit) {
    return req;
  }
  return create(CompleteToolCallRequestSchema, {
    sessionId,
    invocationId,
    outcome: { case: "failed", value: { message: `code-mode tool result of ${size} encoded bytes exceeds the gRPC message limit of ${limit} bytes` } },
  });
}

/** The host's FAILED_PRECONDITION (the runtime's refusal) as a RuntimeError with its text; anything else as is. */
function runtimeError(e: unknown): unknown {
  if (e instanceof RequestError && e.cause.code === Code.FailedPrecondition) {
    return new RuntimeError(e.cause.rawMessage);
  }
  return e;
}

/** The reason an aborted signal carries, as an Error. */
export function abortReason(signal: AbortSignal | undefined): Error {
  const r: unknown = signal?.reason;
  if (r instanceof Error) {
    return r;
  }
  const e = new Error(r === undefined ? "This operation was aborted" : String(r));
  e.name = "AbortError";
  return e;
}

/** A promise that resolves with "aborted" when `signal` aborts; dispose removes its listener. */
function abortedPromise(signal: AbortSignal): { promise: Promise<"aborted">; dispose: () => void } {
  let listener: () => void = () => {};
  const promise = new Promise<"aborted">((resolve) => {
    listener = () => resolve("aborted");
    if (signal.aborted) {
      resolve("aborted");
    } else {
      signal.addEventListener("abort", listener, { once: true });
    }
  });
  return { promise, dispose: () => signal.removeEventListener("abort", listener) };
}
