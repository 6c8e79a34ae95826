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

// wireMaxDepth is the nesting the wire codecs accept: 128 levels, one more than serde_json's
// recursion limit lets through; as in the Go package.
const wireMaxDepth = 128;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * parseJSON parses exactly one JSON document as the Go codec does (serdejson.ParseDocument):
 * syntax errors are serde_json's texts and positions ("expected `,` or `}` at line 1 column 20",
 * columns counting UTF-8 bytes); on top of serde_json's grammar it rejects invalid UTF-8 (lone
 * surrogates in a string argument), duplicate object keys at any depth and nesting beyond 128
 * levels. Numbers whose lexeme a JS number cannot reproduce become JsonNumber, so no precision
 * and no formatting is lost.
 */
export function parseJSON(input: string | Uint8Array): JsonValue {
  const p = new DocumentParser(utf8Bytes(input));
  const v = p.value();
  p.d.end();
  return v;
}

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

// utf8Bytes returns the UTF-8 bytes of a document, refusing what is not Unicode text.
function utf8Bytes(input: string | Uint8Array): Uint8Array {
  if (typeof input === "string") {
    if (LONE_SURROGATE.test(input)) {
      throw errorAt("", "invalid unicode in JSON document");
    }
    return new TextEncoder().encode(input);
  }
  try {
    utf8.decode(input);
  } catch {
    throw errorAt("", "invalid unicode in JSON document");
  }
  return input;
}

// The Display texts of serde_json's syntax error codes.
const EOF_LIST = "EOF while parsing a list";
const EOF_OBJECT = "EOF while parsing an object";
const EOF_STRING = "EOF while parsing a string";
const EOF_VALUE = "EOF while parsing a value";

function isDigit(b: number): boolean {
  return b >= 0x30 && b <= 0x39;
}

function hexValue(b: number): number {
  if (isDigit(b)) {
    return b - 0x30;
  }
  if (b >= 0x61 && b <= 0x66) {
    return b - 0x61 + 10;
  }
  if (b >= 0x41 && b <= 0x46) {
    return b - 0x41 + 10;
  }
  return -1;
}

// pushUTF8 appends the UTF-8 encoding of a Unicode scalar value.
function pushUTF8(out: number[], cp: number): void {
  if (cp < 0x80) {
    out.push(cp);
  } else if (cp < 0x800) {
    out.push(0xc0 | (cp >> 6), 0x80 | (cp & 0x3f));
  } else if (cp < 0x10000) {
    out.push(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f));
  } else {
    out.push(0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 0x3f), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f));
  }
}

/**
 * Deserializer is the TypeScript port of the Go package's Deserializer, the module's one JSON
 * tokenizer: serde_json's primitives over UTF-8 bytes. err reports at the last byte consumed
 * (serde_json's Read::position), peekErr at the byte about to be read (Read::peek_position);
 * which one serde_json uses is part of its error text.
 */
class Deserializer {
  index = 0;
  remainingDepth = wireMaxDepth + 1;

  constructor(readonly data: Uint8Array) {}

  err(msg: string): WireDecodeError {
    return this.errAt(msg, this.index);
  }

  peekErr(msg: string): WireDecodeError {
    return this.errAt(msg, Math.min(this.data.length, this.index + 1));
  }

  // errAt reports msg at serde_json's line and column of a byte index: the column is the
  // number of bytes since the last newline before it.
  errAt(msg: string, index: number): WireDecodeError {
    let line = 1;
    let start = 0;
    for (let i = 0; i < index; i++) {
      if (this.data[i] === 0x0a) {
        line++;
        start = i + 1;
      }
    }
    return errorAt("", `${msg} at line ${line} column ${index - start}`);
  }

  // peek returns the next byte without consuming it, or -1 at the end of the input.
  peek(): number {
    return this.index < this.data.length ? this.data[this.index] : -1;
  }

  next(): number {
    const b = this.peek();
    if (b >= 0) {
      this.index++;
    }
    return b;
  }

  // skipWhitespace consumes JSON whitespace and returns the next byte without consuming it.
  skipWhitespace(): number {
    for (;;) {
      const b = this.peek();
      if (b !== 0x20 && b !== 0x0a && b !== 0x09 && b !== 0x0d) {
        return b;
      }
      this.index++;
    }
  }

  // end requires that only whitespace follows.
  end(): void {
    if (this.skipWhitespace() >= 0) {
      throw this.peekErr("trailing characters");
    }
  }

  // enter is serde_json's recursion guard for the array or object whose opening byte is next.
  enter(): void {
    if (--this.remainingDepth === 0) {
      throw this.peekErr("recursion limit exceeded");
    }
  }

  leave(): void {
    this.remainingDepth++;
  }

  // parseIdent consumes the rest of a literal whose first byte was consumed.
  parseIdent(rest: string): void {
    for (let i = 0; i < rest.length; i++) {
      const b = this.next();
      if (b < 0) {
        throw this.err(EOF_VALUE);
      }
      if (b !== rest.charCodeAt(i)) {
        throw this.err("expected ident");
      }
    }
  }

  // parseString reads a string body whose opening quote was consumed, through its closing quote.
  parseString(): string {
    for (let i = this.index; i < this.data.length; i++) {
      const c = this.data[i];
      if (c === 0x22) {
        const s = utf8.decode(this.data.subarray(this.index, i));
        this.index = i + 1;
        return s;
      }
      if (c === 0x5c || c < 0x20) {
        break;
      }
    }
    const out: number[] = [];
    for (;;) {
      const b = this.next();
      if (b < 0) {
        throw this.err(EOF_STRING);
      }
      if (b === 0x22) {
        return utf8.decode(Uint8Array.from(out));
      }
      if (b === 0x5c) {
        this.parseEscape(out);
      } else if (b < 0x20) {
        throw this.err("control character (\\u0000-\\u001F) found while parsing a string");
      } else {
        out.push(b);
      }
    }
  }

  parseEscape(out: number[]): void {
    const b = this.next();
    switch (b) {
      case -1:
        throw this.err(EOF_STRING);
      case 0x22: // "
      case 0x5c: // \
      case 0x2f: // /
        out.push(b);
        return;
      case 0x62: // b
        out.push(0x08);
        return;
      case 0x66: // f
        out.push(0x0c);
        return;
      case 0x6e: // n
        out.push(0x0a);
        return;
      case 0x72: // r
        out.push(0x0d);
        return;
      case 0x74: // t
        out.push(0x09);
        return;
      case 0x75: // u
        this.parseUnicodeEscape(out);
        return;
    }
    throw this.err("invalid escape");
  }

  // parseUnicodeEscape decodes the hex digits after `\u`, combining a surrogate pair. Like
  // serde_json it rejects lone surrogates.
  parseUnicodeEscape(out: number[]): void {
    const n = this.decodeHexEscape();
    if (n >= 0xdc00 && n <= 0xdfff) {
      throw this.err("lone leading surrogate in hex escape");
    }
    if (n < 0xd800 || n > 0xdbff) {
      pushUTF8(out, n);
      return;
    }
    for (const want of [0x5c, 0x75]) {
      const b = this.next();
      if (b < 0) {
        throw this.err(EOF_STRING);
      }
      if (b !== want) {
        throw this.err("unexpected end of hex escape");
      }
    }
    const n2 = this.decodeHexEscape();
    if (n2 < 0xdc00 || n2 > 0xdfff) {
      throw this.err("lone leading surrogate in hex escape");
    }
    pushUTF8(out, (((n - 0xd800) << 10) | (n2 - 0xdc00)) + 0x10000);
  }

  decodeHexEscape(): number {
    if (this.data.length - this.index < 4) {
      this.index = this.data.length;
      throw this.err(EOF_STRING);
    }
    let n = 0;
    for (let i = 0; i < 4; i++) {
      const digit = hexValue(this.data[this.index++]);
      if (digit < 0) {
        throw this.err("invalid escape");
      }
      n = (n << 4) | digit;
    }
    return n;
  }

  // skipDigits consumes a run of ASCII digits and returns its length.
  skipDigits(): number {
    const start = this.index;
    while (isDigit(this.peek())) {
      this.index++;
    }
    return this.index - start;
  }

  // scanNumber reads a number whose first byte ('-' or a digit) is next, with serde_json's
  // grammar checks and error positions, and returns its lexeme.
  scanNumber(): string {
    const start = this.index;
    if (this.peek() === 0x2d) {
      this.index++;
    }
    this.scanInteger();
    if (this.peek() === 0x2e) {
      this.index++;
      this.scanFraction();
    }
    if (this.peek() === 0x65 || this.peek() === 0x45) {
      this.index++;
      this.scanExponent();
    }
    return utf8.decode(this.data.subarray(start, this.index)); // ASCII: digits, signs, ".", "e"
  }

  scanInteger(): void {
    const b = this.next();
    if (b < 0) {
      throw this.err(EOF_VALUE);
    }
    if (b === 0x30) {
      // serde_json rejects a leading zero at the digit that follows it.
      if (isDigit(this.peek())) {
        throw this.peekErr("invalid number");
      }
    } else if (isDigit(b)) {
      this.skipDigits();
    } else {
      throw this.err("invalid number");
    }
  }

  scanFraction(): void {
    if (this.skipDigits() === 0) {
      throw this.peekErr(this.peek() >= 0 ? "invalid number" : EOF_VALUE);
    }
  }

  scanExponent(): void {
    if (this.peek() === 0x2b || this.peek() === 0x2d) {
      this.index++;
    }
    const b = this.next();
    if (b < 0) {
      throw this.err(EOF_VALUE);
    }
    if (!isDigit(b)) {
      throw this.err("invalid number");
    }
    this.skipDigits();
  }

  // nextElement reads the separator before an array element (none before the first); false,
  // with nothing consumed, at the closing ']'.
  nextElement(first: boolean): boolean {
    let b = this.skipWhitespace();
    if (b < 0) {
      throw this.peekErr(EOF_LIST);
    }
    if (b === 0x5d) {
      return false;
    }
    if (first) {
      return true;
    }
    if (b !== 0x2c) {
      throw this.peekErr("expected `,` or `]`");
    }
    this.index++;
    b = this.skipWhitespace();
    if (b < 0) {
      throw this.peekErr(EOF_VALUE);
    }
    if (b === 0x5d) {
      throw this.peekErr("trailing comma");
    }
    return true;
  }

  // nextKey reads the separator before a key (none before the first) and the key; undefined,
  // with nothing consumed, at the closing '}'. objectColon must follow.
  nextKey(first: boolean): string | undefined {
    let b = this.skipWhitespace();
    if (b < 0) {
      throw this.peekErr(EOF_OBJECT);
    }
    if (b === 0x7d) {
      return undefined;
    }
    if (!first) {
      if (b !== 0x2c) {
        throw this.peekErr("expected `,` or `}`");
      }
      this.index++;
      b = this.skipWhitespace();
      if (b < 0) {
        throw this.peekErr(EOF_VALUE);
      }
      if (b === 0x7d) {
        throw this.peekErr("trailing comma");
      }
    }
    if (b !== 0x22) {
      throw this.peekErr("key must be a string");
    }
    this.index++;
    return this.parseString();
  }

  objectColon(): void {
    const b = this.skipWhitespace();
    if (b < 0) {
      throw this.peekErr(EOF_OBJECT);
    }
    if (b !== 0x3a) {
      throw this.peekErr("expected `:`");
    }
    this.index++;
  }
}

// DocumentParser drives the Deserializer into a JsonValue, as serdejson.ParseDocument drives it
// into a Node tree.
class DocumentParser {
  readonly d: Deserializer;
  // trail holds the keys and indexes leading to the value being parsed; the path string is
  // only built for an error.
  readonly trail: (string | number)[] = [];

  constructor(data: Uint8Array) {
    this.d = new Deserializer(data);
  }

  path(): string {
    let path = "";
    for (const step of this.trail) {
      path = typeof step === "number" ? indexPath(path, step) : joinPath(path, step);
    }
    return path;
  }

  value(): JsonValue {
    const d = this.d;
    const b = d.skipWhitespace();
    switch (b) {
      case -1:
        throw d.peekErr(EOF_VALUE);
      case 0x6e: // n
        d.index++;
        d.parseIdent("ull");
        return null;
      case 0x74: // t
        d.index++;
        d.parseIdent("rue");
        return true;
      case 0x66: // f
        d.index++;
        d.parseIdent("alse");
        return false;
      case 0x22: // "
        d.index++;
        return d.parseString();
      case 0x5b: // [
        return this.nested(() => this.array());
      case 0x7b: // {
        return this.nested(() => this.object());
    }
    if (b === 0x2d || isDigit(b)) {
      return numberFromLexeme(d.scanNumber());
    }
    throw d.peekErr("expected value");
  }

  nested(parse: () => JsonValue): JsonValue {
    this.d.enter();
    this.d.index++;
    const v = parse();
    this.d.leave();
    return v;
  }

  array(): JsonValue {
    const out: JsonValue[] = [];
    for (let first = true; ; first = false) {
      if (!this.d.nextElement(first)) {
        this.d.index++; // ']'
        return out;
      }
      this.trail.push(out.length);
      out.push(this.value());
      this.trail.pop();
    }
  }

  object(): JsonValue {
    const out: JsonObject = {};
    for (let first = true; ; first = false) {
      const key = this.d.nextKey(first);
      if (key === undefined) {
        this.d.index++; // '}'
        return out;
      }
      if (hasOwn(out, key)) {
        throw errorAt(this.path(), `duplicate field \`${key}\``);
      }
      this.d.objectColon();
      this.trail.push(key);
      setMember(out, key, this.value());
      this.trail.pop();
    }
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

/**
 * allowOnly fails on the first member that is neither tag (an internally tagged union's tag, ""
 * for none) nor in keys, listing the fields without the tag in serde's words.
 */
export function allowOnly(o: WireObject, path: string, tag: string, keys: readonly string[]): void {
  for (const k of presentKeys(o)) {
    if ((tag === "" || k !== tag) && !keys.includes(k)) {
      const expected = keys.length === 0 ? "there are no fields" : expectedOneOf(keys);
      throw errorAt(path, `unknown field \`${k}\`, ${expected}`);
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

/**
 * defaulted decodes member key of o, or returns zero() when it is absent (serde's
 * #[serde(default)] on a non-Option field: null is decoded, and refused, like any other value).
 */
export function defaulted<T>(
  o: WireObject,
  path: string,
  key: string,
  decode: (n: unknown, path: string) => T,
  zero: () => T,
): T {
  const n = take(o, key);
  return n === undefined ? zero() : decode(n, joinPath(path, key));
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
  return errorAt(path, `unknown variant \`${got}\`, ${expectedOneOf(expected)}`);
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
 * decodeUnitEnum reads serde's externally tagged enum of unit variants: the variant's name as a
 * string, or an object with the name as its only key and null or an empty object as its value.
 * Errors are serde's, as in the Go package.
 */
export function decodeUnitEnum<T extends string>(n: unknown, path: string, variants: readonly T[]): T {
  const kind = kindOf(n, path);
  const known = (name: string): T => {
    if (!(variants as readonly string[]).includes(name)) {
      throw errorAt(path, `unknown variant \`${name}\`, ${expectedOneOf(variants)}`);
    }
    return name as T;
  };
  if (kind === "string") {
    return known(wellFormed(n as string, path));
  }
  if (kind !== "map") {
    throw serdeInvalidType(n, path, "string or map");
  }
  const o = n as WireObject;
  const keys = presentKeys(o);
  if (keys.length !== 1) {
    throw errorAt(path, "invalid value: map, expected map with a single key");
  }
  const name = known(keys[0]);
  const v = o[keys[0]];
  if (v !== null && !(kindOf(v, path) === "map" && presentKeys(v as WireObject).length === 0)) {
    throw serdeInvalidType(v, joinPath(path, keys[0]), "unit");
  }
  return name;
}

// serdeInvalidType is invalidType with serde's word for an array, "sequence".
function serdeInvalidType(n: unknown, path: string, expecting: string): WireDecodeError {
  if (kindOf(n, path) === "array") {
    return errorAt(path, `invalid type: sequence, expected ${expecting}`);
  }
  return invalidType(n, path, expecting);
}

/** expectedOneOf words a list of names as serde does (see the Go package's ExpectedOneOf). */
export function expectedOneOf(names: readonly string[]): string {
  switch (names.length) {
    case 0:
      return "there are no variants";
    case 1:
      return `expected \`${names[0]}\``;
    case 2:
      return `expected \`${names[0]}\` or \`${names[1]}\``;
  }
  return `expected one of \`${names.join("`, `")}\``;
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

/** decodeBool accepts true or false. */
export function decodeBool(n: unknown, path: string): boolean {
  if (typeof n !== "boolean") {
    throw invalidType(n, path, "a boolean");
  }
  return n;
}

/**
 * decodeStringOrI64 accepts a string or an i64 (a Rust untagged enum of the two, such as
 * JSON-RPC's RequestId); anything else fails as serde fails an untagged enum.
 */
export function decodeStringOrI64(n: unknown, path: string, name: string): string | Int64 {
  if (typeof n === "string") {
    return wellFormed(n, path);
  }
  try {
    return decodeI64(n, path);
  } catch {
    throw errorAt(path, `data did not match any variant of untagged enum ${name}`);
  }
}

/** decodeMap decodes an object whose members all have one type (a Rust map with string keys). */
export function decodeMap<T>(n: unknown, path: string, item: (n: unknown, path: string) => T): Record<string, T> {
  const o = readObject(n, path, "a map");
  const out: Record<string, T> = {};
  for (const k of presentKeys(o)) {
    Object.defineProperty(out, k, { value: item(o[k], joinPath(path, k)), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** encodeMap encodes a map with its keys sorted (the canonical order); other inputs pass through. */
export function encodeMap<T>(v: Readonly<Record<string, T>>, item: (x: T) => JsonValue): JsonValue {
  if (!isObject(v)) {
    return v as unknown as JsonValue;
  }
  const out: JsonObject = {};
  for (const k of Object.keys(v).sort()) {
    Object.defineProperty(out, k, { value: item(v[k] as T), enumerable: true, writable: true, configurable: true });
  }
  return out;
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
