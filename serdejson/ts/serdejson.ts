// The TypeScript runtime of the generated V1 wire codecs (gen/ts/wirev1 imports it; nothing
// generated is copied from it). It is the TypeScript twin of the Go package serdejson, which the
// Go codecs of gen/go/wirev1 import: the same strict JSON parser, the same error texts and paths,
// the same canonical encoding (and so Codex's serde_json peer). The Go↔TS differential test in
// generators/tsgen holds the two to the same verdict on every input. Generated modules import the
// helpers; applications use the exported types, parseJSON, stringifyJSON and the error classes.

/**
 * JsonNumber carries a JSON number whose text a JS number cannot reproduce exactly: integers
 * beyond 2^53, `1.0`, `1e2`, `-0`, `1.50`. parseJSON produces it only for such lexemes (every
 * other number becomes a plain number), so decode → encode reproduces the input byte for byte.
 */
export class JsonNumber {
  /** lexeme is the number as written in JSON. */
  readonly lexeme: string;

  constructor(lexeme: string) {
    if (!NUMBER_LEXEME.test(lexeme)) {
      throw new TypeError(`JsonNumber: ${JSON.stringify(lexeme)} is not a JSON number`);
    }
    this.lexeme = lexeme;
  }

  /** toString returns the lexeme. */
  toString(): string {
    return this.lexeme;
  }
}

const NUMBER_LEXEME = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;

/** JsonValue is any JSON value as parseJSON returns it and stringifyJSON accepts it. */
export type JsonValue = null | boolean | number | string | JsonNumber | JsonValue[] | JsonObject;

/** JsonObject is a JSON object. */
export interface JsonObject {
  [key: string]: JsonValue;
}

/**
 * Int64 carries an i64 or u64 wire integer: a number when it is a safe integer (|v| < 2^53),
 * a bigint otherwise. Decoders always pick that representation, so equal values compare equal;
 * encoders accept either.
 */
export type Int64 = number | bigint;

/**
 * WireDecodeError is thrown by every decoder and by parseJSON. path names the offending value
 * with dotted keys and [index] steps ("" for the document root); detail follows the Go codec's
 * (serde_json's) wording. message is "path: detail", or detail alone at the root.
 */
export class WireDecodeError extends Error {
  /** path locates the offending value. */
  readonly path: string;
  /** detail is the message without the path. */
  readonly detail: string;

  constructor(path: string, detail: string) {
    super(path === "" ? detail : `${path}: ${detail}`);
    this.name = "WireDecodeError";
    this.path = path;
    this.detail = detail;
  }
}

/**
 * WireEncodeError is thrown by an encoder whose input would not decode: the encoders validate
 * their output with the decoder, so nothing a peer rejects is ever sent.
 */
export class WireEncodeError extends Error {
  /** cause is the decoder's verdict on the encoded value. */
  override readonly cause: WireDecodeError;

  constructor(typeName: string, cause: WireDecodeError) {
    super(`cannot encode ${typeName}: ${cause.message}`);
    this.name = "WireEncodeError";
    this.cause = cause;
  }
}

/** errorAt builds the decode error for the value at path. */
export function errorAt(path: string, detail: string): WireDecodeError {
  return new WireDecodeError(path, detail);
}

/** joinPath appends an object key to a path. */
export function joinPath(path: string, key: string): string {
  return path === "" ? key : `${path}.${key}`;
}

function indexPath(path: string, i: number): string {
  return `${path}[${i}]`;
}

// maxDepth matches serde_json's default recursion limit.
const maxDepth = 128;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * parseJSON parses exactly one JSON document as the Go codec does: it rejects invalid UTF-8
 * (lone surrogates in a string argument), duplicate object keys at any depth, nesting beyond
 * 128 and trailing non-whitespace. Numbers whose lexeme a JS number cannot reproduce become
 * JsonNumber, so no precision and no formatting is lost.
 */
export function parseJSON(input: string | Uint8Array): JsonValue {
  let text: string;
  if (typeof input === "string") {
    if (LONE_SURROGATE.test(input)) {
      throw errorAt("", "invalid unicode in JSON document");
    }
    text = input;
  } else {
    try {
      text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(input);
    } catch {
      throw errorAt("", "invalid unicode in JSON document");
    }
  }
  const p = new Parser(text);
  const v = p.value(0);
  p.skipSpace();
  if (p.pos !== text.length) {
    throw p.fail("trailing characters");
  }
  return v;
}

function utf8Length(s: string): number {
  let n = 0;
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    n += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
  }
  return n;
}

const HEX4 = /^[0-9a-fA-F]{4}$/;

class Parser {
  pos = 0;
  // trail holds the keys and indexes leading to the value being parsed; the path string is
  // only built for an error.
  readonly trail: (string | number)[] = [];

  constructor(readonly text: string) {}

  // fail reports msg at the current position; like the Go codec, the column counts UTF-8 bytes.
  fail(msg: string): WireDecodeError {
    let line = 1;
    let lineStart = 0;
    for (let i = 0; i < this.pos; i++) {
      if (this.text.charCodeAt(i) === 0x0a) {
        line++;
        lineStart = i + 1;
      }
    }
    const col = 1 + utf8Length(this.text.slice(lineStart, this.pos));
    return errorAt("", `${msg} at line ${line} column ${col}`);
  }

  skipSpace(): void {
    while (this.pos < this.text.length) {
      const c = this.text.charCodeAt(this.pos);
      if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) {
        return;
      }
      this.pos++;
    }
  }

  path(): string {
    let path = "";
    for (const step of this.trail) {
      path = typeof step === "number" ? indexPath(path, step) : joinPath(path, step);
    }
    return path;
  }

  value(depth: number): JsonValue {
    this.skipSpace();
    if (this.pos >= this.text.length) {
      throw this.fail("EOF while parsing a value");
    }
    const c = this.text[this.pos];
    switch (c) {
      case "{":
        return this.object(depth + 1);
      case "[":
        return this.array(depth + 1);
      case '"':
        return this.str();
      case "t":
        return this.literal("true", true);
      case "f":
        return this.literal("false", false);
      case "n":
        return this.literal("null", null);
    }
    if (c === "-" || (c >= "0" && c <= "9")) {
      return this.number();
    }
    throw this.fail("expected value");
  }

  literal(word: string, v: JsonValue): JsonValue {
    if (!this.text.startsWith(word, this.pos)) {
      throw this.fail("expected ident");
    }
    this.pos += word.length;
    return v;
  }

  object(depth: number): JsonValue {
    if (depth > maxDepth) {
      throw this.fail("recursion limit exceeded");
    }
    this.pos++; // '{'
    const out: JsonObject = {};
    this.skipSpace();
    if (this.text[this.pos] === "}") {
      this.pos++;
      return out;
    }
    for (;;) {
      this.skipSpace();
      if (this.pos >= this.text.length) {
        throw this.fail("EOF while parsing an object");
      }
      if (this.text[this.pos] !== '"') {
        throw this.fail("key must be a string");
      }
      const key = this.str();
      if (hasOwn(out, key)) {
        throw errorAt(this.path(), `duplicate field \`${key}\``);
      }
      this.skipSpace();
      if (this.text[this.pos] !== ":") {
        throw this.fail("expected `:`");
      }
      this.pos++;
      this.trail.push(key);
      setMember(out, key, this.value(depth));
      this.trail.pop();
      this.skipSpace();
      if (this.pos >= this.text.length) {
        throw this.fail("EOF while parsing an object");
      }
      const c = this.text[this.pos++];
      if (c === "}") {
        return out;
      }
      if (c !== ",") {
        this.pos--;
        throw this.fail("expected `,` or `}`");
      }
    }
  }

  array(depth: number): JsonValue {
    if (depth > maxDepth) {
      throw this.fail("recursion limit exceeded");
    }
    this.pos++; // '['
    const out: JsonValue[] = [];
    this.skipSpace();
    if (this.text[this.pos] === "]") {
      this.pos++;
      return out;
    }
    for (;;) {
      this.trail.push(out.length);
      out.push(this.value(depth));
      this.trail.pop();
      this.skipSpace();
      if (this.pos >= this.text.length) {
        throw this.fail("EOF while parsing a list");
      }
      const c = this.text[this.pos++];
      if (c === "]") {
        return out;
      }
      if (c !== ",") {
        this.pos--;
        throw this.fail("expected `,` or `]`");
      }
    }
  }

  digits(): number {
    const start = this.pos;
    while (this.pos < this.text.length) {
      const c = this.text.charCodeAt(this.pos);
      if (c < 0x30 || c > 0x39) {
        break;
      }
      this.pos++;
    }
    return this.pos - start;
  }

  number(): JsonValue {
    const start = this.pos;
    if (this.text[this.pos] === "-") {
      this.pos++;
    }
    const intStart = this.pos;
    const n = this.digits();
    if (n === 0 || (n > 1 && this.text[intStart] === "0")) {
      throw this.fail("invalid number");
    }
    if (this.text[this.pos] === ".") {
      this.pos++;
      if (this.digits() === 0) {
        throw this.fail("invalid number");
      }
    }
    if (this.text[this.pos] === "e" || this.text[this.pos] === "E") {
      this.pos++;
      if (this.text[this.pos] === "+" || this.text[this.pos] === "-") {
        this.pos++;
      }
      if (this.digits() === 0) {
        throw this.fail("invalid number");
      }
    }
    return numberFromLexeme(this.text.slice(start, this.pos));
  }

  str(): string {
    this.pos++; // opening quote
    let out = "";
    let runStart = this.pos;
    for (;;) {
      if (this.pos >= this.text.length) {
        throw this.fail("EOF while parsing a string");
      }
      const c = this.text.charCodeAt(this.pos);
      if (c === 0x22) {
        out += this.text.slice(runStart, this.pos);
        this.pos++;
        return out;
      }
      if (c < 0x20) {
        throw this.fail("control character (\\u0000-\\u001F) found while parsing a string");
      }
      if (c !== 0x5c) {
        this.pos++;
        continue;
      }
      out += this.text.slice(runStart, this.pos);
      this.pos++;
      if (this.pos >= this.text.length) {
        throw this.fail("EOF while parsing a string");
      }
      const esc = this.text[this.pos++];
      switch (esc) {
        case '"':
        case "\\":
        case "/":
          out += esc;
          break;
        case "b":
          out += "\b";
          break;
        case "f":
          out += "\f";
          break;
        case "n":
          out += "\n";
          break;
        case "r":
          out += "\r";
          break;
        case "t":
          out += "\t";
          break;
        case "u":
          out += this.unicodeEscape();
          break;
        default:
          throw this.fail("invalid escape");
      }
      runStart = this.pos;
    }
  }

  hex4(): number {
    const chunk = this.text.slice(this.pos, this.pos + 4);
    if (!HEX4.test(chunk)) {
      // The Go codec counts bytes: fewer than four bytes left is EOF, anything else invalid.
      throw this.fail(utf8Length(this.text.slice(this.pos)) < 4 ? "EOF while parsing a string" : "invalid escape");
    }
    this.pos += 4;
    return parseInt(chunk, 16);
  }

  // unicodeEscape decodes the hex digits after `\u`, combining surrogate pairs. Like serde_json
  // it rejects lone surrogates.
  unicodeEscape(): string {
    const r = this.hex4();
    if (r >= 0xdc00 && r <= 0xdfff) {
      throw this.fail("lone leading surrogate in hex escape");
    }
    if (r < 0xd800 || r > 0xdbff) {
      return String.fromCharCode(r);
    }
    if (!this.text.startsWith("\\u", this.pos)) {
      throw this.fail("unexpected end of hex escape");
    }
    this.pos += 2;
    const lo = this.hex4();
    if (lo < 0xdc00 || lo > 0xdfff) {
      throw this.fail("lone leading surrogate in hex escape");
    }
    return String.fromCharCode(r, lo);
  }
}

/**
 * numberFromLexeme returns a plain number when String(Number(lexeme)) reproduces the lexeme,
 * a JsonNumber otherwise.
 */
export function numberFromLexeme(lexeme: string): number | JsonNumber {
  const n = Number(lexeme);
  return String(n) === lexeme ? n : new JsonNumber(lexeme);
}

// setMember adds a member without invoking the __proto__ setter of plain objects.
function setMember(o: JsonObject, key: string, v: JsonValue): void {
  if (key === "__proto__") {
    Object.defineProperty(o, key, { value: v, enumerable: true, writable: true, configurable: true });
  } else {
    o[key] = v;
  }
}

/**
 * stringifyJSON encodes v compactly: keys in object order, numbers as written (JsonNumber
 * lexemes; bigints in decimal), strings escaped like serde_json (only `"`, `\` and control
 * characters; `<`, `>`, `&`, U+2028/U+2029 and non-ASCII stay literal). Undefined members are
 * skipped, as JSON.stringify does.
 */
export function stringifyJSON(v: JsonValue | bigint): string {
  const parts: string[] = [];
  appendJSON(parts, v);
  return parts.join("");
}

function appendJSON(out: string[], v: unknown): void {
  if (v === null) {
    out.push("null");
    return;
  }
  switch (typeof v) {
    case "boolean":
      out.push(v ? "true" : "false");
      return;
    case "number":
      if (!Number.isFinite(v)) {
        throw new TypeError(`stringifyJSON: ${v} is not a JSON number`);
      }
      out.push(String(v));
      return;
    case "bigint":
      out.push(v.toString());
      return;
    case "string":
      // JSON.stringify escapes exactly the characters serde_json escapes, with lowercase \u00XX.
      out.push(JSON.stringify(v));
      return;
    case "object":
      if (v instanceof JsonNumber) {
        out.push(v.lexeme);
      } else if (Array.isArray(v)) {
        out.push("[");
        v.forEach((item, i) => {
          if (i > 0) {
            out.push(",");
          }
          appendJSON(out, item);
        });
        out.push("]");
      } else {
        out.push("{");
        let first = true;
        for (const key of Object.keys(v)) {
          const member = (v as Record<string, unknown>)[key];
          if (member === undefined) {
            continue;
          }
          if (!first) {
            out.push(",");
          }
          first = false;
          out.push(JSON.stringify(key), ":");
          appendJSON(out, member);
        }
        out.push("}");
      }
      return;
  }
  throw new TypeError(`stringifyJSON: a ${typeof v} is not a JSON value`);
}

type Kind = "null" | "boolean" | "number" | "string" | "array" | "map";

// kindOf classifies a decoder input. Decoders accept what parseJSON returns and what JSON.parse
// returns (plus bigints); anything else is not JSON.
function kindOf(n: unknown, path: string): Kind {
  if (n === null) {
    return "null";
  }
  switch (typeof n) {
    case "boolean":
      return "boolean";
    case "number":
      if (!Number.isFinite(n)) {
        throw errorAt(path, `invalid type: ${n} is not a JSON value`);
      }
      return "number";
    case "bigint":
      return "number";
    case "string":
      return "string";
    case "object":
      return n instanceof JsonNumber ? "number" : Array.isArray(n) ? "array" : "map";
  }
  throw errorAt(path, `invalid type: a ${typeof n} is not a JSON value`);
}

// numberText is the JSON lexeme of a number input. A JS number that is an integer beyond 2^53
// is rendered exactly (its value already lost precision when JSON.parse produced it).
function numberText(n: number | bigint | JsonNumber): string {
  if (n instanceof JsonNumber) {
    return n.lexeme;
  }
  if (typeof n === "bigint") {
    return n.toString();
  }
  if (Number.isInteger(n) && !Number.isSafeInteger(n)) {
    return BigInt(n).toString();
  }
  return String(n);
}

function isFloatLexeme(s: string): boolean {
  return /[.eE]/.test(s);
}

// goQuote renders s like Go's %q verb, which the Go codec uses for strings in type errors.
function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    switch (ch) {
      case '"':
        out += '\\"';
        continue;
      case "\\":
        out += "\\\\";
        continue;
      case "\x07":
        out += "\\a";
        continue;
      case "\b":
        out += "\\b";
        continue;
      case "\f":
        out += "\\f";
        continue;
      case "\n":
        out += "\\n";
        continue;
      case "\r":
        out += "\\r";
        continue;
      case "\t":
        out += "\\t";
        continue;
      case "\v":
        out += "\\v";
        continue;
    }
    if (cp === 0x20 || (cp > 0x20 && cp < 0x7f) || (cp >= 0x80 && PRINTABLE.test(ch))) {
      out += ch;
    } else if (cp < 0x80) {
      out += "\\x" + cp.toString(16).padStart(2, "0");
    } else if (cp < 0x10000) {
      out += "\\u" + cp.toString(16).padStart(4, "0");
    } else {
      out += "\\U" + cp.toString(16).padStart(8, "0");
    }
  }
  return out + '"';
}

const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u;

/** invalidType reports a value of the wrong JSON type. */
export function invalidType(n: unknown, path: string, expecting: string): WireDecodeError {
  const kind = kindOf(n, path);
  switch (kind) {
    case "number": {
      const text = numberText(n as number | bigint | JsonNumber);
      const what = isFloatLexeme(text) ? "floating point" : "integer";
      return errorAt(path, `invalid type: ${what} \`${text}\`, expected ${expecting}`);
    }
    case "string":
      return errorAt(path, `invalid type: string ${goQuote(n as string)}, expected ${expecting}`);
    case "boolean":
      return errorAt(path, `invalid type: boolean \`${n}\`, expected ${expecting}`);
  }
  return errorAt(path, `invalid type: ${kind}, expected ${expecting}`);
}

/** WireInput is a decoder's view of a JSON object. */
export type WireObject = Readonly<Record<string, unknown>>;

/** readObject checks that n is a JSON object. */
export function readObject(n: unknown, path: string, expecting: string): WireObject {
  if (kindOf(n, path) !== "map") {
    throw invalidType(n, path, expecting);
  }
  return n as WireObject;
}

// presentKeys lists the members of o; an undefined member counts as absent.
function presentKeys(o: WireObject): string[] {
  return Object.keys(o).filter((k) => o[k] !== undefined);
}

function hasOwn(o: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(o, key);
}

/** take returns the member named key, or undefined. */
export function take(o: WireObject, key: string): unknown {
  return hasOwn(o, key) ? o[key] : undefined;
}

/** allowOnly fails on the first member whose key is not in keys. */
export function allowOnly(o: WireObject, path: string, keys: readonly string[]): void {
  for (const k of presentKeys(o)) {
    if (!keys.includes(k)) {
      throw errorAt(path, `unknown field \`${k}\`, expected one of \`${keys.join("`, `")}\``);
    }
  }
}

/** required decodes the required member key of o. */
export function required<T>(o: WireObject, path: string, key: string, decode: (n: unknown, path: string) => T): T {
  const n = take(o, key);
  if (n === undefined) {
    throw errorAt(path, `missing field \`${key}\``);
  }
  return decode(n, joinPath(path, key));
}

/** optional decodes the optional member key of o; absent and null both give undefined. */
export function optional<T>(
  o: WireObject,
  path: string,
  key: string,
  decode: (n: unknown, path: string) => T,
): T | undefined {
  const n = take(o, key);
  if (n === undefined || n === null) {
    return undefined;
  }
  return decode(n, joinPath(path, key));
}

/** unionTag reads the string tag of an internally tagged union. */
export function unionTag(n: unknown, path: string, tag: string, expecting: string): string {
  const o = readObject(n, path, expecting);
  const t = take(o, tag);
  if (t === undefined) {
    throw errorAt(path, `missing field \`${tag}\``);
  }
  if (typeof t !== "string") {
    throw invalidType(t, joinPath(path, tag), "variant identifier");
  }
  return t;
}

/** externalVariant reads the single key of an externally tagged union. */
export function externalVariant(n: unknown, path: string, expecting: string): [string, unknown] {
  const o = readObject(n, path, expecting);
  const keys = presentKeys(o);
  if (keys.length !== 1) {
    throw errorAt(
      path,
      `invalid value: map with ${keys.length} keys, expected exactly one key naming a variant of ${expecting}`,
    );
  }
  return [keys[0], o[keys[0]]];
}

/** unknownVariant reports a tag or key outside expected. */
export function unknownVariant(path: string, got: string, expected: readonly string[]): WireDecodeError {
  return errorAt(path, `unknown variant \`${got}\`, expected one of \`${expected.join("`, `")}\``);
}

/**
 * decodeString accepts any JSON string. A string holding a lone surrogate (JSON.parse makes one
 * from "\ud800") is refused: no peer can decode its encoding.
 */
export function decodeString(n: unknown, path: string): string {
  if (typeof n !== "string") {
    throw invalidType(n, path, "a string");
  }
  return wellFormed(n, path);
}

function wellFormed(s: string, path: string): string {
  if (LONE_SURROGATE.test(s)) {
    throw errorAt(path, "invalid unicode: lone surrogate in string");
  }
  return s;
}

// trimSpace removes what Go's strings.TrimSpace removes (Unicode White_Space), which is what
// Rust's str::trim removes too.
function trimSpace(s: string): string {
  return s.replace(/^[\p{White_Space}]+|[\p{White_Space}]+$/gu, "");
}

/** decodeNonBlank accepts a string that is not empty after trimming white space. */
export function decodeNonBlank(n: unknown, path: string, blankError: string): string {
  const s = decodeString(n, path);
  if (trimSpace(s) === "") {
    throw errorAt(path, blankError);
  }
  return s;
}

/** decodeEnum accepts one of the allowed strings. */
export function decodeEnum<T extends string>(n: unknown, path: string, allowed: readonly T[]): T {
  const s = decodeString(n, path);
  if (!(allowed as readonly string[]).includes(s)) {
    throw unknownVariant(path, s, allowed);
  }
  return s as T;
}

/**
 * decodeInteger accepts a JSON integer (no fraction, no exponent) within [lo, hi]. unsigned
 * reads -0 as 0, as serde_json does for unsigned targets.
 */
export function decodeInteger(
  n: unknown,
  path: string,
  lo: bigint,
  hi: bigint,
  expecting: string,
  unsigned: boolean,
): bigint {
  if (kindOf(n, path) !== "number") {
    throw invalidType(n, path, expecting);
  }
  let text = numberText(n as number | bigint | JsonNumber);
  if (isFloatLexeme(text)) {
    throw invalidType(n, path, expecting);
  }
  if (unsigned && text === "-0") {
    text = "0";
  }
  const v = BigInt(text);
  if (v < lo || v > hi) {
    throw errorAt(path, `invalid value: integer \`${text}\`, expected ${expecting}`);
  }
  return v;
}

const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** toInt64 picks the Int64 representation of v: a number when safe, else the bigint. */
export function toInt64(v: bigint): Int64 {
  return v >= MIN_SAFE && v <= MAX_SAFE ? Number(v) : v;
}

/** decodeI64 accepts any i64. */
export function decodeI64(n: unknown, path: string): Int64 {
  return toInt64(decodeInteger(n, path, -(2n ** 63n), 2n ** 63n - 1n, "i64", false));
}

/** decodeU64 accepts any u64. */
export function decodeU64(n: unknown, path: string): Int64 {
  return toInt64(decodeInteger(n, path, 0n, 2n ** 64n - 1n, "u64", true));
}

/** decodeI32 accepts any i32. */
export function decodeI32(n: unknown, path: string): number {
  return Number(decodeInteger(n, path, -(2n ** 31n), 2n ** 31n - 1n, "i32", false));
}

/** decodeU32 accepts any u32. */
export function decodeU32(n: unknown, path: string): number {
  return Number(decodeInteger(n, path, 0n, 2n ** 32n - 1n, "u32", true));
}

/**
 * decodeJSONValue accepts any JSON value and returns a copy in parseJSON's representation
 * (numbers that a JS number reproduces as plain numbers, others as JsonNumber).
 */
export function decodeJSONValue(n: unknown, path: string): JsonValue {
  if (decodingParsedTree) {
    return n as JsonValue; // parseJSON's output is already in this representation
  }
  switch (kindOf(n, path)) {
    case "null":
    case "boolean":
      return n as JsonValue;
    case "string":
      return wellFormed(n as string, path);
    case "number":
      return typeof n === "number" ? n : numberFromLexeme(numberText(n as bigint | JsonNumber));
    case "array": {
      const items = n as unknown[];
      const out: JsonValue[] = [];
      for (let i = 0; i < items.length; i++) {
        out.push(decodeJSONValue(items[i], indexPath(path, i)));
      }
      return out;
    }
  }
  const o = n as WireObject;
  const out: JsonObject = {};
  for (const key of presentKeys(o)) {
    setMember(out, wellFormed(key, path), decodeJSONValue(o[key], joinPath(path, key)));
  }
  return out;
}

// decodingParsedTree is true while unmarshal decodes a tree parseJSON just built, which nothing
// else references: JSON values inside it are used as they are instead of being copied.
let decodingParsedTree = false;

/** unmarshal parses text strictly and decodes it with read. */
export function unmarshal<T>(text: string | Uint8Array, read: (n: unknown, path: string) => T): T {
  const tree = parseJSON(text);
  decodingParsedTree = true;
  try {
    return read(tree, "");
  } finally {
    decodingParsedTree = false;
  }
}

/** decodeList decodes a JSON array item by item. */
export function decodeList<T>(n: unknown, path: string, item: (n: unknown, path: string) => T): T[] {
  if (kindOf(n, path) !== "array") {
    throw invalidType(n, path, "a sequence");
  }
  const items = n as unknown[];
  const out: T[] = [];
  for (let i = 0; i < items.length; i++) {
    out.push(item(items[i], indexPath(path, i)));
  }
  return out;
}

/** SetItem is an element of a set: a string or an integer. */
export type SetItem = string | number | bigint | JsonNumber;

function setKey(item: SetItem): string {
  return typeof item === "string" ? `s${item}` : `n${integerOf(item)}`;
}

function integerOf(item: number | bigint | JsonNumber): bigint | undefined {
  const text = numberText(item);
  return isFloatLexeme(text) ? undefined : BigInt(text);
}

/**
 * compareSetItems orders like Rust's BTreeSet: integers ascending, strings by UTF-8 bytes
 * (which is code point order, not UTF-16 code unit order).
 */
export function compareSetItems(a: SetItem, b: SetItem): number {
  if (typeof a === "string" && typeof b === "string") {
    const n = Math.min(a.length, b.length);
    for (let i = 0; i < n; i++) {
      const x = a.charCodeAt(i);
      const y = b.charCodeAt(i);
      if (x !== y) {
        const xs = x >= 0xd800 && x <= 0xdfff;
        const ys = y >= 0xd800 && y <= 0xdfff;
        if (xs !== ys) {
          return xs ? 1 : -1; // a surrogate starts a code point above every BMP character
        }
        return x < y ? -1 : 1;
      }
    }
    return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
  }
  if (typeof a !== "string" && typeof b !== "string") {
    const x = integerOf(a);
    const y = integerOf(b);
    if (x !== undefined && y !== undefined) {
      return x === y ? 0 : x < y ? -1 : 1;
    }
  }
  return 0;
}

/** firstDuplicate returns the first item (in input order) that repeats an earlier one. */
export function firstDuplicate<T extends SetItem>(items: readonly T[]): T | undefined {
  const seen = new Set<string>();
  for (const it of items) {
    const k = setKey(it);
    if (seen.has(k)) {
      return it;
    }
    seen.add(k);
  }
  return undefined;
}

/** firstCommon returns the smallest item present in both sets. */
export function firstCommon<T extends SetItem>(a: readonly T[], b: readonly T[]): T | undefined {
  const inB = new Set(b.map(setKey));
  return [...a].sort(compareSetItems).find((it) => inB.has(setKey(it)));
}

/** formatTemplate substitutes the first "{}" of a schema error template. */
export function formatTemplate(template: string, arg: SetItem): string {
  return template.replace("{}", () => String(arg));
}

/** isObject tells whether an encoder input can be read as an object. */
export function isObject(v: unknown): boolean {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof JsonNumber);
}

/**
 * externalKey returns the variant key of an external union value: its only member, when that
 * is one of keys.
 */
export function externalKey(v: unknown, keys: readonly string[]): string | undefined {
  if (!isObject(v)) {
    return undefined;
  }
  const present = presentKeys(v as WireObject);
  return present.length === 1 && keys.includes(present[0]) ? present[0] : undefined;
}

/** encodeInteger renders an integer field: safe integers as numbers, others exactly. */
export function encodeInteger(v: number | bigint): JsonValue {
  if (typeof v === "bigint") {
    return numberFromLexeme(v.toString());
  }
  if (Number.isInteger(v) && !Number.isSafeInteger(v)) {
    return new JsonNumber(BigInt(v).toString());
  }
  return v;
}

/** encodeList maps an array through an item encoder; other inputs pass through to validation. */
export function encodeList<T>(v: readonly T[], item: (x: T) => JsonValue): JsonValue {
  return Array.isArray(v) ? v.map(item) : (v as unknown as JsonValue);
}

/** encodeSet encodes the items of a set sorted as Rust's BTreeSet serializes them. */
export function encodeSet<T>(v: readonly T[], item: (x: T) => JsonValue): JsonValue {
  if (!Array.isArray(v)) {
    return v as unknown as JsonValue;
  }
  return v.map(item).sort((a, b) => compareSetItems(a as SetItem, b as SetItem));
}

/** validated returns tree after checking that it decodes; see WireEncodeError. */
export function validated<T>(typeName: string, tree: JsonValue, decode: (n: unknown, path: string) => T): JsonValue {
  try {
    decode(tree, "");
  } catch (e) {
    if (e instanceof WireDecodeError) {
      throw new WireEncodeError(typeName, e);
    }
    throw e;
  }
  return tree;
}
