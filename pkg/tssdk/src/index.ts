/**
 * `@codemodehq/sdk`: a TypeScript client of codemode's gRPC service `codex.code_mode.v1.CodeModeHost`
 * (OpenAI Codex's code-mode host protocol), over any connect-es `Transport`: Connect or gRPC-Web
 * from browsers (`@connectrpc/connect-web`), Connect or gRPC from Node (`@connectrpc/connect-node`).
 *
 * Open a session with {@link openSession}, register TypeScript tools with
 * {@link CodeModeSession.registerTool}, run cells with {@link CodeModeSession.execute} and observe
 * them with {@link CodeModeSession.wait} / {@link CodeModeSession.terminate}.
 *
 * @packageDocumentation
 */

export {
  openSession,
  CodeModeSession,
  limitsToProto,
  type CellExecutionLimits,
  type ExecuteOptions,
  type JsonValue,
  type SessionEvents,
  type SessionListener,
  type SessionOptions,
  type StartedCell,
  type ToolImplementation,
  type ToolOptions,
  type WaitOptions,
} from "./session.js";
export {
  ACKNOWLEDGEMENTS_HEADER,
  DEFAULT_YIELD_TIME_MS,
  MAX_MESSAGE_BYTES,
  MAX_OPEN_ATTEMPTS,
  ROUTE_HEADER,
  ROUTE_LOST_HEADER,
  TRANSPORT_TIMEOUT_MS,
  type NotificationEvent,
  type ToolCallContext,
} from "./binding.js";
export {
  MAX_ERROR_BYTES,
  PENDING_LIMIT_TEXT,
  RequestError,
  RuntimeError,
  SESSION_RESET_TEXT,
  SESSION_STOPPED_TEXT,
  SessionResetError,
  SHUTTING_DOWN_TEXT,
  STALE_GENERATION_TEXT,
  ShuttingDownError,
  StaleGenerationError,
  TimeoutError,
} from "./errors.js";
export { publicCellId, remoteCellId } from "./ids.js";
export type {
  AudioItem,
  ContentItem,
  ImageDetailName,
  ImageItem,
  MissingCellOutcome,
  ResultOutcome,
  RuntimeOutcome,
  TerminatedOutcome,
  TextItem,
  WaitOutcome,
  YieldedOutcome,
} from "./outcome.js";
export { MAX_PENDING_CALLBACKS, type ToolNameLike } from "./state.js";
/** The generated protobuf-es messages and Connect service descriptor of `codex.code_mode.v1`. */
export * as pb from "../../../gen/ts/pb/codex/code_mode/v1/code_mode_pb.js";
