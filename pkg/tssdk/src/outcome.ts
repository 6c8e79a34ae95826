// Typed outcomes: the host's ExecutionOutcome and WaitResponse as discriminated unions, with the
// client's checks in Codex's order (the cell ID, every content item, then the outcome's presence).

import {
  ImageDetail,
  type ContentItem as PbContentItem,
  type ExecutionOutcome,
  type WaitResponse,
} from "../../../gen/ts/pb/codex/code_mode/v1/code_mode_pb.js";
import { checkHostIdentifier, publicCellId } from "./ids.js";

/** The detail of an image output item. */
export type ImageDetailName = "auto" | "low" | "high" | "original";

/** Text the cell produced (`text(…)`, or anything `notify` would show). */
export interface TextItem {
  /** Discriminant. */
  readonly type: "input_text";
  /** The text. */
  readonly text: string;
}

/** An image the cell produced (`image(…)`, `generatedImage(…)`): a `data:` URL. */
export interface ImageItem {
  /** Discriminant. */
  readonly type: "input_image";
  /** The image as a `data:` URL. */
  readonly imageUrl: string;
  /** The requested detail; absent when the host sent none. */
  readonly detail?: ImageDetailName;
}

/** Audio the cell produced (`audio(…)`): a `data:` URL. */
export interface AudioItem {
  /** Discriminant. */
  readonly type: "input_audio";
  /** The audio as a `data:` URL. */
  readonly audioUrl: string;
}

/** One output item of a cell, in Codex's `FunctionCallOutputContentItem` vocabulary. */
export type ContentItem = TextItem | ImageItem | AudioItem;

/** Fields every outcome has. */
interface OutcomeFields {
  /** The cell's public ID (generation-prefixed after a reconnection: `"g2:1"`). */
  readonly cellId: string;
  /** Output produced since the previous observation of the cell. */
  readonly contentItems: readonly ContentItem[];
  /**
   * The host's time from receipt of the request until the outcome was ready, in nanoseconds
   * (`code_mode_host_duration_ns`; 0 from a host that does not send it).
   */
  readonly hostDurationNs: bigint;
}

/** The cell yielded (its yield time passed, or it called `yield_control()`) and keeps running. */
export interface YieldedOutcome extends OutcomeFields {
  /** Discriminant. */
  readonly kind: "yielded";
}

/** The cell was terminated; it is closed. */
export interface TerminatedOutcome extends OutcomeFields {
  /** Discriminant. */
  readonly kind: "terminated";
}

/** The cell completed, successfully or with a script error; it is closed. */
export interface ResultOutcome extends OutcomeFields {
  /** Discriminant. */
  readonly kind: "result";
  /** The script's error (its stack or thrown string); absent when it succeeded. */
  readonly errorText?: string;
}

/** What an execute's first observation, a wait or a terminate of a live cell returns. */
export type RuntimeOutcome = YieldedOutcome | TerminatedOutcome | ResultOutcome;

/**
 * A wait or terminate named a cell the host does not know (closed, or never existed): a successful
 * answer, normally with `errorText` "exec cell {id} not found".
 */
export interface MissingCellOutcome extends OutcomeFields {
  /** Discriminant. */
  readonly kind: "missing";
  /** The host's explanation, "exec cell {id} not found". */
  readonly errorText?: string;
}

/** What `wait` and `terminate` return. */
export type WaitOutcome = RuntimeOutcome | MissingCellOutcome;

const imageDetails: ReadonlyMap<ImageDetail, ImageDetailName> = new Map([
  [ImageDetail.AUTO, "auto"],
  [ImageDetail.LOW, "low"],
  [ImageDetail.HIGH, "high"],
  [ImageDetail.ORIGINAL, "original"],
]);

/**
 * Converts an output item the host returned, refusing an empty one and an unspecified or unknown
 * image detail.
 *
 * @throws Error with the Go client's text.
 */
export function contentItemFromProto(item: PbContentItem): ContentItem {
  switch (item.item.case) {
    case "text":
      return { type: "input_text", text: item.item.value.text };
    case "image": {
      const image = item.item.value;
      if (image.detail === undefined) {
        return { type: "input_image", imageUrl: image.imageUrl };
      }
      const detail = imageDetails.get(image.detail);
      if (detail === undefined) {
        throw new Error(`code-mode image has invalid detail value ${image.detail}`);
      }
      return { type: "input_image", imageUrl: image.imageUrl, detail };
    }
    case "audio":
      return { type: "input_audio", audioUrl: item.item.value.audioUrl };
    default:
      throw new Error("code-mode execution returned an empty content item");
  }
}

/**
 * Converts an outcome the host returned; its cell ID stays the host's (wire) ID.
 *
 * @throws Error with the Go client's text for an invalid cell ID, content item or a missing outcome.
 */
export function runtimeOutcomeFromProto(o: ExecutionOutcome): RuntimeOutcome {
  checkHostIdentifier(o.cellId, "cell ID");
  const fields = {
    cellId: o.cellId,
    contentItems: o.contentItems.map(contentItemFromProto),
    hostDurationNs: o.codeModeHostDurationNs,
  };
  switch (o.outcome.case) {
    case "yielded":
      return { kind: "yielded", ...fields };
    case "terminated":
      return { kind: "terminated", ...fields };
    case "completed": {
      const errorText = o.outcome.value.errorText;
      return errorText === undefined ? { kind: "result", ...fields } : { kind: "result", ...fields, errorText };
    }
    default:
      throw new Error("code-mode execution omitted its outcome");
  }
}

/**
 * Converts a WaitResponse (of a Wait or Terminate) the host returned: `live_cell` is the cell's
 * outcome, `missing_cell` a {@link MissingCellOutcome}.
 *
 * @throws Error with the Go client's text for a response without a state or an invalid outcome.
 */
export function waitOutcomeFromProto(w: WaitResponse): WaitOutcome {
  switch (w.state.case) {
    case "liveCell":
      return runtimeOutcomeFromProto(w.state.value);
    case "missingCell": {
      const o = runtimeOutcomeFromProto(w.state.value);
      const missing = { kind: "missing" as const, cellId: o.cellId, contentItems: o.contentItems, hostDurationNs: o.hostDurationNs };
      return o.kind === "result" && o.errorText !== undefined ? { ...missing, errorText: o.errorText } : missing;
    }
    default:
      throw new Error("code-mode wait omitted its outcome");
  }
}

/** `o` with its cell ID mapped to the public ID of `generation`. */
export function withPublicCellId<T extends WaitOutcome>(generation: number, o: T): T {
  return { ...o, cellId: publicCellId(generation, o.cellId) };
}
