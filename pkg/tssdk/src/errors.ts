// The SDK's errors and their texts. Texts the Go client (pkg/grpc/grpcclient) and Codex's client share
// are spelled exactly as there, so a caller sees the same message whichever client it uses.

import { Code, ConnectError } from "@connectrpc/connect";

/**
 * The message of {@link StaleGenerationError} (docs/protocol/grpc.md#cell-ids-across-host-restarts),
 * exactly Codex's client's text, since it reaches the model and callers match it.
 */
export const STALE_GENERATION_TEXT = "cell belongs to a stale code-mode host generation";

/** The message of {@link ShuttingDownError}: the session is being closed or was closed. */
export const SHUTTING_DOWN_TEXT = "code mode session is shutting down";

/** The message an operation fails with when its lease stopped under it without another failure. */
export const SESSION_STOPPED_TEXT = "gRPC code-mode session closed";

/** The completion failure of a tool call beyond the 1,024 pending callbacks (docs/protocol/grpc.md#tool-calls). */
export const PENDING_LIMIT_TEXT = "code-mode host exceeded its pending delegate callback limit";

/** The most bytes a failure text built from a transport status has (Codex's client bound). */
export const MAX_ERROR_BYTES = 512;

/**
 * A wait or terminate named a cell of a lost host generation (its message is
 * {@link STALE_GENERATION_TEXT}; it never echoes the ID).
 */
export class StaleGenerationError extends Error {
  /** Creates the error; its message is {@link STALE_GENERATION_TEXT}. */
  constructor() {
    super(STALE_GENERATION_TEXT);
    this.name = "StaleGenerationError";
  }
}

/** Codex's text for a session reset after its host's route was lost (docs/protocol/grpc.md#routing). */
export const SESSION_RESET_TEXT = "Stored values and running cells were lost";

/**
 * The session's host was lost behind a proxy: a request came back with `x-code-mode-route-lost:
 * true` (docs/protocol/grpc.md#routing). Its stored values and running cells are gone and its cells were reported
 * closed; the failed operation is not replayed, and the session's next operation opens the next
 * generation ("g<N>:" cell IDs). The message is {@link SESSION_RESET_TEXT}.
 */
export class SessionResetError extends Error {
  /** Creates the error; its message is {@link SESSION_RESET_TEXT}. */
  constructor() {
    super(SESSION_RESET_TEXT);
    this.name = "SessionResetError";
  }
}

/** An operation on a session whose `close()` began. Its message is {@link SHUTTING_DOWN_TEXT}. */
export class ShuttingDownError extends Error {
  /** Creates the error; its message is {@link SHUTTING_DOWN_TEXT}. */
  constructor() {
    super(SHUTTING_DOWN_TEXT);
    this.name = "ShuttingDownError";
  }
}

/**
 * The runtime on the host refused an execute, wait or terminate (the host's
 * `FAILED_PRECONDITION`): the message is the runtime's own text, unchanged, e.g.
 * "exec cell 1 already has an active observer" or "exec cell 1 is already terminating".
 */
export class RuntimeError extends Error {
  /** Creates the error with the runtime's text. */
  constructor(message: string) {
    super(message);
    this.name = "RuntimeError";
  }
}

/**
 * A request failed with a transport status. The message is "gRPC code-mode {operation} failed:
 * {code}: {message}", at most {@link MAX_ERROR_BYTES} bytes (cut on a UTF-8 boundary, ending in
 * "..."); the status itself is {@link RequestError.cause}.
 */
export class RequestError extends Error {
  /** The transport's error as a ConnectError (its `code` says what failed). */
  override readonly cause: ConnectError;

  /** Creates the error for `operation` from the transport's error. */
  constructor(operation: string, cause: ConnectError) {
    super(boundText(`gRPC code-mode ${operation} failed: ${statusText(cause)}`));
    this.name = "RequestError";
    this.cause = cause;
  }
}

/**
 * A request of the session got no answer in time (60 s for the transport plus the runtime's
 * allowance); the session's lease was dropped with it, because the host no longer answers.
 */
export class TimeoutError extends Error {
  /** Creates the error: "gRPC code-mode host timed out waiting for {operation} response". */
  constructor(operation: string) {
    super(`gRPC code-mode host timed out waiting for ${operation} response`);
    this.name = "TimeoutError";
  }
}

/** The status of a ConnectError as connect-go prints one: "failed_precondition: message". */
export function statusText(e: ConnectError): string {
  const name = codeName(e.code);
  return e.rawMessage === "" ? name : `${name}: ${e.rawMessage}`;
}

/** The snake_case name of a status code, as gRPC and connect-go spell it ("deadline_exceeded"). */
export function codeName(code: Code): string {
  const name = Code[code];
  if (name === undefined) {
    return `code_${code}`;
  }
  return name.replace(/[A-Z]/g, (c, i: number) => (i === 0 ? "" : "_") + c.toLowerCase());
}

/**
 * Truncates `s` to at most {@link MAX_ERROR_BYTES} bytes of UTF-8 on a character boundary, ending
 * it with "..." when it was cut (Codex's client bounds failure texts this way).
 */
export function boundText(s: string, max: number = MAX_ERROR_BYTES): string {
  const bytes = new TextEncoder().encode(s);
  if (bytes.length <= max) {
    return s;
  }
  let cut = max - 3;
  // A UTF-8 continuation byte is 10xxxxxx; back up to the start of a character.
  while (cut > 0 && ((bytes[cut] ?? 0) & 0xc0) === 0x80) {
    cut--;
  }
  return new TextDecoder().decode(bytes.subarray(0, cut)) + "...";
}

/**
 * The text a thrown value carries into a tool call's failure: an Error's message, a string as
 * is, anything else converted with `String`.
 */
export function errorText(e: unknown): string {
  if (e instanceof Error) {
    return e.message;
  }
  if (typeof e === "string") {
    return e;
  }
  try {
    return String(e);
  } catch {
    return "tool failed with a value that cannot be converted to a string";
  }
}

/** Whether `e` is the ConnectError of a cancelled call (the client aborted it). */
export function isCanceled(e: unknown): boolean {
  return e instanceof ConnectError && e.code === Code.Canceled;
}
