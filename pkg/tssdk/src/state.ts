// The client's bookkeeping of one lease (Codex's grpc_session SessionState, the Go client's
// pkg/grpc/grpcclient/state.go): which executions exist and which cell each owns, the callbacks in
// flight, and the rules that admit a callback the host sends. Pure logic, no I/O: the binding
// feeds it the host's messages and acts on its verdicts.

import type { CellClosed, Notification, ToolCall, ToolKind } from "../../../gen/ts/pb/codex/code_mode/v1/code_mode_pb.js";
import { PENDING_LIMIT_TEXT } from "./errors.js";
import { checkHostIdentifier, parseCallbackUuid, RecentIds } from "./ids.js";

/** Tool calls and notifications a session runs at once (Codex's `MAX_PENDING_DELEGATE_CALLS`). */
export const MAX_PENDING_CALLBACKS = 1_024;

/** The namespace of a tool name without one (Codex's `DEFAULT_FUNCTION_NAMESPACE`). */
export const DEFAULT_NAMESPACE = "functions";

/** A tool's name: a name and an optional namespace (absent, `""` and `"functions"` are one). */
export interface ToolNameLike {
  /** The tool's name. */
  readonly name: string;
  /** Its namespace; absent, `""` and `"functions"` all mean the default namespace. */
  readonly namespace?: string | undefined;
}

/** The canonical key of a tool name: default namespaces aliased, comparable as a string. */
export function toolKey(n: ToolNameLike): string {
  const ns = n.namespace === undefined || n.namespace === "" ? DEFAULT_NAMESPACE : n.namespace;
  return `${ns}\u0000${n.name}`;
}

/**
 * A tool name in the form Codex's client gives it in rejection texts, which a model reads: the bare
 * name in the default namespace, else namespace+name.
 */
export function displayToolName(n: ToolNameLike): string {
  const ns = n.namespace;
  return ns === undefined || ns === "" || ns === DEFAULT_NAMESPACE ? n.name : ns + n.name;
}

/** A tool enabled for one execution: its kind and what runs it. */
export interface EnabledTool<T> {
  /** The name the tool is called by. */
  readonly toolName: ToolNameLike;
  /** Its kind; a call of another kind is refused. */
  readonly kind: ToolKind;
  /** The implementation (opaque to the state). */
  readonly tool: T;
}

/** The verdict on a ToolCall. */
export type ToolCallAdmission<T> =
  /** Run the tool; `signal` aborts when the call is cancelled, its cell closes or the lease ends. */
  | { readonly kind: "admitted"; readonly signal: AbortSignal; readonly tool: T }
  /** The host cancelled the call before it arrived: drop it silently. */
  | { readonly kind: "preCancelled" }
  /** The execution is unknown or closed: answer with the closed-cell failure. */
  | { readonly kind: "closedCell" }
  /** Answer with `reason` as the call's failure; the session goes on. */
  | { readonly kind: "rejected"; readonly reason: string };

/** The verdict on a Notification. */
export type NotificationAdmission =
  /** Deliver it; `signal` aborts when the cell is terminated or the lease ends. */
  | { readonly kind: "admitted"; readonly signal: AbortSignal }
  /** The execution is unknown or closed: drop it (acknowledged at once). */
  | { readonly kind: "closedCell" }
  /** Past the pending limit: drop it (acknowledged at once). */
  | { readonly kind: "rejected"; readonly reason: string };

/** The state closed: why, for the operations that find it closed. */
const stateClosed = "code-mode gRPC session is closed";

/** One Execute from its request to its retirement. */
interface ExecutionRecord<T> {
  /** The host's cell ID, "" until the host names it. */
  cell: string;
  readonly toolCallId: string;
  readonly tools: Map<string, EnabledTool<T>>;
  /** started: the host admitted the cell; ready: the caller holds it; closed: CellClosed came. */
  started: boolean;
  ready: boolean;
  closed: boolean;
  notifications: number;
  /** Aborted once the cell's notifications are settled: cancelled by a termination, or drained after the closure. */
  readonly settled: AbortController;
}

/**
 * The admission state of one lease. Errors it throws are fatal: the host broke the protocol and
 * the lease must be dropped. `T` is what runs a tool (the SDK's tool implementations).
 */
export class SessionState<T> {
  readonly #executions = new Map<string, ExecutionRecord<T>>();
  readonly #invocations = new Map<string, { readonly execution: string; readonly controller: AbortController }>();
  #notifications = 0;
  readonly #seen = new RecentIds();
  readonly #cancelled = new RecentIds();
  #closed = false;
  #failure: Error | undefined;
  /** Per wire cell, the dropped waits whose CancelWait has not returned. */
  readonly #retiring = new Map<string, Promise<void>[]>();

  /** The number of tool calls and notifications in flight (bounded by {@link MAX_PENDING_CALLBACKS}). */
  get pending(): number {
    return this.#invocations.size + this.#notifications;
  }

  /** Whether the state was closed. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Throws once the state is closed: the failure that closed it, or a closed-session error. */
  requireOpen(): void {
    if (this.#closed) {
      throw this.#failure ?? new Error(stateClosed);
    }
  }

  /** Registers an execution before its request is sent, with its enabled tools. */
  beginExecution(execution: string, toolCallId: string, tools: Iterable<EnabledTool<T>>): void {
    this.requireOpen();
    if (execution === "" || this.#executions.has(execution)) {
      throw new Error("code-mode execution ID was empty or reused");
    }
    checkHostIdentifier(toolCallId, "tool call ID");
    const map = new Map<string, EnabledTool<T>>();
    for (const t of tools) {
      map.set(toolKey(t.toolName), t);
    }
    this.#executions.set(execution, {
      cell: "", toolCallId, tools: map, started: false, ready: false, closed: false, notifications: 0, settled: new AbortController(),
    });
  }

  /** Records the started event of an execution (its cell). */
  admitExecution(execution: string, cell: string): void {
    this.requireOpen();
    this.#checkCellOwnership(execution, cell);
    const e = this.#executions.get(execution);
    if (e === undefined) {
      throw new Error(`unknown code-mode execution ${execution}`);
    }
    if (e.started) {
      throw new Error(`code-mode execution ${execution} started twice`);
    }
    acceptCell(e, cell);
    e.started = true;
  }

  /** Records that the caller holds the started cell; returns the cell if that completed its closure. */
  markReady(execution: string): string {
    this.requireOpen();
    const e = this.#executions.get(execution);
    if (e === undefined) {
      throw new Error(`unknown code-mode execution ${execution}`);
    }
    if (!e.started || e.ready) {
      throw new Error(`code-mode execution ${execution} was not ready to be claimed`);
    }
    e.ready = true;
    return this.#closeIfReady(execution);
  }

  /** Applies Codex's admission rules, in order, to a ToolCall (the session check comes before). */
  admitInvocation(call: ToolCall): ToolCallAdmission<T> {
    this.requireOpen();
    const id = parseCallbackUuid(call.invocationId, "tool invocation ID");
    if (this.#invocations.has(id) || this.#seen.has(id)) {
      throw new Error("code-mode tool invocation ID was reused");
    }
    this.#checkCellOwnership(call.executionId, call.cellId);
    const e = this.#executions.get(call.executionId);
    if (e === undefined) {
      this.#seen.remember(id);
      this.#cancelled.remove(id);
      return { kind: "closedCell" };
    }
    acceptCell(e, call.cellId);
    this.#seen.remember(id);
    const wasCancelled = this.#cancelled.remove(id);
    if (e.closed) {
      return { kind: "closedCell" };
    }
    if (wasCancelled) {
      return { kind: "preCancelled" };
    }
    if (call.toolName === undefined) {
      return { kind: "rejected", reason: "code-mode tool invocation omitted its tool name" };
    }
    const enabled = e.tools.get(toolKey(call.toolName));
    if (enabled === undefined || enabled.kind !== call.toolKind) {
      return { kind: "rejected", reason: `code-mode tool ${displayToolName(call.toolName)} is not enabled for this execution` };
    }
    if (this.pending >= MAX_PENDING_CALLBACKS) {
      return { kind: "rejected", reason: PENDING_LIMIT_TEXT };
    }
    const controller = new AbortController();
    this.#invocations.set(id, { execution: call.executionId, controller });
    return { kind: "admitted", signal: controller.signal, tool: enabled.tool };
  }

  /** Applies Codex's rules to a Notification. */
  admitNotification(n: Notification): NotificationAdmission {
    this.requireOpen();
    parseCallbackUuid(n.notificationId, "notification ID");
    checkHostIdentifier(n.callId, "notification call ID");
    this.#checkCellOwnership(n.executionId, n.cellId);
    const e = this.#executions.get(n.executionId);
    if (e === undefined) {
      return { kind: "closedCell" };
    }
    acceptCell(e, n.cellId);
    if (n.callId !== e.toolCallId) {
      throw new Error("code-mode notification call ID does not match its execution");
    }
    if (e.closed) {
      return { kind: "closedCell" };
    }
    if (this.pending >= MAX_PENDING_CALLBACKS) {
      return { kind: "rejected", reason: PENDING_LIMIT_TEXT };
    }
    e.notifications++;
    this.#notifications++;
    return { kind: "admitted", signal: e.settled.signal };
  }

  /** Records a delivered notification; returns the cell if that completed its closure. */
  finishNotification(execution: string): string {
    const e = this.#executions.get(execution);
    if (e === undefined || e.notifications === 0) {
      return "";
    }
    e.notifications--;
    this.#notifications--;
    if (e.closed && e.notifications === 0) {
      e.settled.abort();
    }
    return this.#closeIfReady(execution);
  }

  /**
   * A signal aborted once the notifications of `cell` (wire ID) are settled, or undefined for a
   * cell without an execution.
   */
  notificationsSettled(cell: string): AbortSignal | undefined {
    return this.#byCell(cell)?.settled.signal;
  }

  /** Cancels the notifications of `cell` (it was terminated). */
  cancelNotifications(cell: string): void {
    this.#byCell(cell)?.settled.abort();
  }

  /**
   * Records a ToolCallCancelled: an active invocation is cancelled, one not yet seen is remembered
   * so its ToolCall, arriving later on its own stream, is dropped.
   */
  cancelInvocation(invocation: string): void {
    const id = parseCallbackUuid(invocation, "tool invocation ID");
    const active = this.#invocations.get(id);
    if (active !== undefined) {
      this.#invocations.delete(id);
      active.controller.abort();
    } else if (!this.#seen.has(id)) {
      this.#cancelled.remember(id);
    }
  }

  /** Forgets a tool call that ended. */
  finishInvocation(invocation: string): void {
    const id = parseCallbackUuid(invocation, "tool invocation ID");
    const active = this.#invocations.get(id);
    if (active !== undefined) {
      this.#invocations.delete(id);
      active.controller.abort();
    }
  }

  /**
   * Records a CellClosed. Tool calls of the cell are cancelled at once; notifications may still
   * finish. Returns the cell if that completed its closure.
   */
  closeCell(c: CellClosed): string {
    this.requireOpen();
    this.#checkCellOwnership(c.executionId, c.cellId);
    const e = this.#executions.get(c.executionId);
    if (e === undefined) {
      return "";
    }
    acceptCell(e, c.cellId);
    if (e.closed) {
      throw new Error(`code-mode host returned an invalid closure for cell ${c.cellId}`);
    }
    e.closed = true;
    if (e.notifications === 0) {
      e.settled.abort();
    }
    this.#revokeInvocations(c.executionId);
    return this.#closeIfReady(c.executionId);
  }

  /**
   * Ends the state, cancelling every callback, and returns each live cell (wire ID) once, for its
   * closure to be reported. `failure` is what later operations fail with.
   */
  close(failure?: Error): string[] {
    if (this.#closed) {
      return [];
    }
    this.#closed = true;
    this.#failure = failure;
    this.#notifications = 0;
    for (const [id, a] of this.#invocations) {
      this.#invocations.delete(id);
      a.controller.abort();
    }
    const cells: string[] = [];
    for (const [id, e] of this.#executions) {
      e.settled.abort();
      if (e.cell !== "") {
        cells.push(e.cell);
      }
      this.#executions.delete(id);
    }
    return cells;
  }

  /** Retires an execution (abandoned by its caller, or never started); returns its cell or "". */
  removeExecution(execution: string): string {
    const e = this.#executions.get(execution);
    if (e === undefined) {
      return "";
    }
    this.#executions.delete(execution);
    this.#notifications -= e.notifications;
    e.settled.abort();
    this.#revokeInvocations(execution);
    return e.cell;
  }

  /** Whether an execution is registered. */
  hasExecution(execution: string): boolean {
    return this.#executions.has(execution);
  }

  #closeIfReady(execution: string): string {
    const e = this.#executions.get(execution);
    if (e === undefined || !e.started || !e.ready || !e.closed || e.notifications > 0) {
      return "";
    }
    return this.removeExecution(execution);
  }

  #byCell(cell: string): ExecutionRecord<T> | undefined {
    for (const e of this.#executions.values()) {
      if (e.cell === cell) {
        return e;
      }
    }
    return undefined;
  }

  /** Refuses a callback of a registered execution that names a cell another live execution owns. */
  #checkCellOwnership(execution: string, cell: string): void {
    if (!this.#executions.has(execution)) {
      return;
    }
    for (const [id, e] of this.#executions) {
      if (id !== execution && e.cell === cell) {
        throw new Error(`code-mode host reused active cell ID ${cell}`);
      }
    }
  }

  /** Records a dropped wait of cell until its CancelWait settles (done). */
  dropWait(cell: string, done: Promise<void>): void {
    const list = this.#retiring.get(cell) ?? [];
    list.push(done);
    this.#retiring.set(cell, list);
  }

  /** Forgets a dropped wait whose CancelWait settled; a cell without dropped waits keeps no entry. */
  waitRetired(cell: string, done: Promise<void>): void {
    const now = (this.#retiring.get(cell) ?? []).filter((p) => p !== done);
    if (now.length === 0) {
      this.#retiring.delete(cell);
    } else {
      this.#retiring.set(cell, now);
    }
  }

  /** The dropped waits of cell still being cancelled: its next wait goes out after them. */
  retiringWaits(cell: string): Promise<void>[] {
    return [...(this.#retiring.get(cell) ?? [])];
  }

  /** The number of cells with dropped waits still being cancelled. */
  get retiringCells(): number {
    return this.#retiring.size;
  }

  #revokeInvocations(execution: string): void {
    for (const [id, a] of this.#invocations) {
      if (a.execution === execution) {
        this.#invocations.delete(id);
        a.controller.abort();
      }
    }
  }
}

/** Records the cell the host names for an execution, refusing a change of cell. */
function acceptCell(e: { cell: string }, cell: string): void {
  checkHostIdentifier(cell, "cell ID");
  if (e.cell === "") {
    e.cell = cell;
  } else if (e.cell !== cell) {
    throw new Error(`code-mode execution changed cell ID from ${e.cell} to ${cell}`);
  }
}
