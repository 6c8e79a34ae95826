// Identifiers: cell IDs across host generations (docs/protocol/grpc.md#cell-ids-across-host-restarts), UUIDs (the host's callback IDs and
// the client's execution and wait IDs, docs/protocol/grpc.md#identifiers-and-validation) and the bounded set of recently seen IDs.

import { StaleGenerationError } from "./errors.js";

/**
 * The public ID of the host's cell `wire` in `generation`: the wire ID itself in generation 1,
 * `"g<N>:<wire>"` in generation N ≥ 2 (Codex's `grpc_session/generation.rs`).
 */
export function publicCellId(generation: number, wire: string): string {
  return generation <= 1 ? wire : `g${generation}:${wire}`;
}

/**
 * The host's ID of the cell a caller names `publicId` in `generation`: as is in generation 1 (even
 * an ID that looks prefixed, such as `"g2:42"` or `"graphics:1"`), the part after `"g<N>:"` in
 * generation N ≥ 2.
 *
 * @throws {@link StaleGenerationError} for an ID of any other generation; its message does not
 * echo the ID.
 */
export function remoteCellId(generation: number, publicId: string): string {
  if (generation <= 1) {
    return publicId;
  }
  const prefix = `g${generation}:`;
  if (!publicId.startsWith(prefix)) {
    throw new StaleGenerationError();
  }
  return publicId.slice(prefix.length);
}

/** The length in bytes of the UTF-8 encoding of `s`. */
export function utf8Length(s: string): number {
  return new TextEncoder().encode(s).length;
}

/** The most bytes an identifier may have on the wire (Codex's `MAX_IDENTIFIER_BYTES`). */
export const MAX_IDENTIFIER_BYTES = 256;

/**
 * Checks an identifier the host returned: not empty, at most 256 bytes, with the client's texts
 * ("gRPC code-mode host returned an empty cell ID").
 *
 * @throws Error with Codex's text when the identifier is empty or too long.
 */
export function checkHostIdentifier(value: string, field: string): void {
  if (value === "") {
    throw new Error(`gRPC code-mode host returned an empty ${field}`);
  }
  if (utf8Length(value) > MAX_IDENTIFIER_BYTES) {
    throw new Error(`gRPC code-mode host returned ${field} exceeding ${MAX_IDENTIFIER_BYTES} bytes`);
  }
}

/**
 * A fresh random (version 4) UUID in its canonical form. It uses `crypto.getRandomValues`, which
 * unlike `crypto.randomUUID` is available in insecure browser contexts too.
 */
export function newUuid(): string {
  const b = new Uint8Array(16);
  globalThis.crypto.getRandomValues(b);
  b[6] = ((b[6] ?? 0) & 0x0f) | 0x40;
  b[8] = ((b[8] ?? 0) & 0x3f) | 0x80;
  const hex = Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const hyphenated = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const simple = /^[0-9a-f]{32}$/i;

/**
 * Parses a UUID the host sent, in any form Go's and Rust's parsers accept (hyphenated, 32 hex
 * digits, `urn:uuid:…`, `{…}`), and returns its canonical lower-case hyphenated form, so that two
 * spellings of one UUID are one ID.
 *
 * @throws Error "code-mode {field} must be a UUID".
 */
export function parseCallbackUuid(value: string, field: string): string {
  let s = value;
  if (s.length === 45 && s.slice(0, 9).toLowerCase() === "urn:uuid:") {
    s = s.slice(9);
  } else if (s.length === 38 && s.startsWith("{") && s.endsWith("}")) {
    s = s.slice(1, -1);
  }
  if (simple.test(s)) {
    s = `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
  }
  if (!hyphenated.test(s)) {
    throw new Error(`code-mode ${field} must be a UUID`);
  }
  return s.toLowerCase();
}

/** How many IDs a peer remembers to refuse their reuse (Codex's `MAX_RECENT_CALLBACK_IDS`). */
export const MAX_RECENT_IDS = 4_096;

/**
 * A set that forgets its oldest members once it holds more than a bound (4,096 by default): the
 * invocation IDs a client has seen, and the cancellations that arrived before their call.
 */
export class RecentIds {
  readonly #limit: number;
  // Insertion order is the Set's; a removed ID is deleted at once.
  readonly #ids = new Set<string>();

  /** Creates an empty set that keeps at most `limit` IDs. */
  constructor(limit: number = MAX_RECENT_IDS) {
    this.#limit = limit;
  }

  /** Adds `id` (as the newest member) and reports whether it was not a member. */
  remember(id: string): boolean {
    if (this.#ids.has(id)) {
      return false;
    }
    this.#ids.add(id);
    if (this.#ids.size > this.#limit) {
      const oldest = this.#ids.values().next();
      if (!oldest.done) {
        this.#ids.delete(oldest.value);
      }
    }
    return true;
  }

  /** Reports whether `id` is a member. */
  has(id: string): boolean {
    return this.#ids.has(id);
  }

  /** Removes `id` and reports whether it was a member. */
  remove(id: string): boolean {
    return this.#ids.delete(id);
  }

  /** The number of members. */
  get size(): number {
    return this.#ids.size;
  }
}
