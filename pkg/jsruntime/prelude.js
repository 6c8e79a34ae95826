// The cell prelude. Go evaluates it once per runtime, before any cell code, as a global script
// whose value is a function, and calls that function with the host bridge and the bridge's
// operation table (bridge.go: the table is Go's, so the two sides cannot drift). It returns the
// entry points Go calls (begin, deliver, take, describe). Nothing here is reachable from cell code
// except the helper globals it installs.
//
// The cell controls everything inside the wasm instance, so the prelude is written to keep working
// whatever cell code does to the global environment: every intrinsic it uses is captured here,
// before cell code runs, and called without looking anything up on a prototype (uncurried
// methods, arrays with no prototype, JSON built from JSON.stringify of strings only). It is still
// not trusted: Go validates every message it sends (bridge.go), because a cell that forges one can
// only fail itself.
(function (host, operations) {
  "use strict";
  const G = globalThis;
  const ObjectCtor = Object;
  const FunctionProto = Function.prototype;
  const apply = Reflect.apply;
  const uncurry = (fn) => apply(FunctionProto.bind, FunctionProto.call, [fn]);
  const jsonStringify = JSON.stringify;
  const jsonParse = JSON.parse;
  const PromiseCtor = Promise;
  const promiseReject = apply(FunctionProto.bind, Promise.reject, [Promise]);
  const StringCtor = String;
  const NumberCtor = Number;
  const MapCtor = Map;
  const SetCtor = Set;
  const ErrorCtor = Error;
  const isFiniteNumber = Number.isFinite;
  const mathTrunc = Math.trunc;
  const imul = Math.imul;
  const isArray = Array.isArray;
  const defineProperty = Object.defineProperty;
  const getOwnPropertyNames = Object.getOwnPropertyNames;
  const getOwnPropertySymbols = Object.getOwnPropertySymbols;
  const getPrototypeOf = Object.getPrototypeOf;
  const getOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
  const WeakMapCtor = WeakMap;
  const weakMapGet = uncurry(WeakMap.prototype.get);
  const weakMapSet = uncurry(WeakMap.prototype.set);
  const setPrototypeOf = Object.setPrototypeOf;
  const mapGet = uncurry(Map.prototype.get);
  const mapSet = uncurry(Map.prototype.set);
  const mapDelete = uncurry(Map.prototype.delete);
  const setHas = uncurry(Set.prototype.has);
  const setAdd = uncurry(Set.prototype.add);
  const arrayJoin = uncurry(Array.prototype.join);
  const promiseThen = uncurry(Promise.prototype.then);
  const stringToLowerCase = uncurry(String.prototype.toLowerCase);
  const stringTrim = uncurry(String.prototype.trim);
  const stringStartsWith = uncurry(String.prototype.startsWith);
  const stringSlice = uncurry(String.prototype.slice);
  const stringIndexOf = uncurry(String.prototype.indexOf);
  const stringSplit = uncurry(String.prototype.split);
  const arrayPush = uncurry(Array.prototype.push);
  const iteratorKey = Symbol.iterator;
  const asyncIteratorKey = Symbol.asyncIterator;
  const promiseResolve = apply(FunctionProto.bind, Promise.resolve, [Promise]);
  const regexpExec = uncurry(RegExp.prototype.exec);
  const objectToString = uncurry(Object.prototype.toString);
  const originalEval = eval;
  const OP = jsonParse(operations);
  const PRELUDE_FILE = "codemode_prelude.js";

  // list returns an array with no prototype: assigning past its end can meet no setter that cell
  // code put on Array.prototype. It is filled by index and read with arrayJoin or indexing.
  function list() {
    const a = [];
    setPrototypeOf(a, null);
    return a;
  }

  // q quotes a string as JSON. JSON.stringify of a primitive string consults no toJSON, escapes
  // NUL and lone surrogates, and never yields a raw newline, so messages survive the C strings
  // they cross as.
  function q(s) {
    return jsonStringify(s);
  }

  // Standard ECMAScript globals that stay. Everything else QuickJS or qjs defines goes (console,
  // print, std, os, bjson, gc, navigator, performance, scriptArgs, timers, queueMicrotask,
  // DOMException, InternalError, QJS_PROXY_VALUE), and so do the globals Codex removes from V8
  // (SharedArrayBuffer, Atomics, WebAssembly).
  const keep = new SetCtor([
    "Object", "Function", "Array", "Number", "parseFloat", "parseInt", "Infinity", "NaN",
    "undefined", "Boolean", "String", "Symbol", "Date", "Promise", "RegExp", "Error",
    "AggregateError", "EvalError", "RangeError", "ReferenceError", "SyntaxError", "TypeError",
    "URIError", "globalThis", "JSON", "Math", "Intl", "ArrayBuffer", "Uint8Array", "Int8Array",
    "Uint16Array", "Int16Array", "Uint32Array", "Int32Array", "Float16Array", "Float32Array",
    "Float64Array", "Uint8ClampedArray", "BigUint64Array", "BigInt64Array", "DataView", "Map",
    "BigInt", "Set", "WeakMap", "WeakSet", "Proxy", "Reflect", "FinalizationRegistry", "WeakRef",
    "decodeURI", "decodeURIComponent", "encodeURI", "encodeURIComponent", "escape", "unescape",
    "eval", "isFinite", "isNaN", "Iterator", "SuppressedError", "DisposableStack",
    "AsyncDisposableStack",
  ]);
  const globalNames = getOwnPropertyNames(G);
  for (let i = 0; i < globalNames.length; i++) {
    if (!setHas(keep, globalNames[i])) delete G[globalNames[i]];
  }
  // V8's global object has no Symbol.toStringTag (Object.prototype.toString gives "[object
  // Object]"); QuickJS's says "global".
  const globalSymbols = getOwnPropertySymbols(G);
  for (let i = 0; i < globalSymbols.length; i++) delete G[globalSymbols[i]];

  // define installs a value as Codex's V8 host installs its globals: writable, enumerable and
  // configurable.
  function define(target, name, value) {
    defineProperty(target, name, { value, writable: true, configurable: true, enumerable: true });
  }

  // defineHidden installs a replacement of an engine global (eval, Function) or a method, with
  // the attributes the original had.
  function defineHidden(target, name, value) {
    defineProperty(target, name, { value, writable: true, configurable: true, enumerable: false });
  }

  // nativeLike gives a helper the name and length of Codex's native helpers, "" and 0, and their
  // source text.
  function nativeLike(fn) {
    defineProperty(fn, "name", { value: "" });
    defineProperty(fn, "length", { value: 0 });
    return native(fn, "");
  }

  // Function.prototype.toString. V8 prints a function that has no JavaScript source, its builtins
  // and the helpers Codex's host makes natively, as "function name() { [native code] }", where
  // QuickJS prints "[native code]" on a line of its own, and where the prelude's own functions
  // that stand in for them (eval, Function and its kinds, Math.random, String.prototype.repeat,
  // the helpers, the tools) would print the prelude's source. The replacement answers for those
  // from a table filled as they are installed (native), knows the tool functions, made afresh for
  // each cell, by their source (toolSource, set once makeTool is defined), and reformats QuickJS's
  // text of its builtins; every other function prints its source, as in both engines.
  const functionToString = uncurry(FunctionProto.toString);
  const nativeTexts = new WeakMapCtor();
  const QUICKJS_NATIVE = "() {\n    [native code]\n}";
  const V8_NATIVE = "() { [native code] }";
  let toolSource;
  function native(fn, name) {
    weakMapSet(nativeTexts, fn, "function " + name + V8_NATIVE);
    return fn;
  }
  const toStringMethod = {
    toString() {
      const known = weakMapGet(nativeTexts, this);
      if (known !== undefined) return known;
      const text = functionToString(this);
      if (text === toolSource) return "function " + V8_NATIVE;
      const head = text.length - QUICKJS_NATIVE.length;
      if (head > 0 && stringSlice(text, head) === QUICKJS_NATIVE) return stringSlice(text, 0, head) + V8_NATIVE;
      return text;
    },
  }.toString;
  defineHidden(FunctionProto, "toString", native(toStringMethod, "toString"));

  // V8's stack-trace API, which QuickJS-ng implements, hands CallSite objects, and with them the
  // functions on the stack, to Error.prepareStackTrace. QuickJS takes the hook from its own
  // accessor of that property, into a slot of the context; replacing the accessor leaves the slot
  // empty for good, so no hook ever runs and prelude functions stay out of reach. Scripts written
  // for V8 assign the property, so it stays assignable (and reads back what was assigned); it
  // cannot be redefined.
  //
  // Before that, the prelude's own hook goes into the slot: QuickJS calls it for every error it
  // creates, the engine's and the script's, and it writes V8's texts (ADR 60): V8's message for
  // the engine's errors and V8's frames, which Go works out from the cell's printed code. It
  // runs only when an error is created, so a cell without errors pays nothing for it.
  ErrorCtor.prepareStackTrace = v8Stack;
  let stackHook;
  defineProperty(ErrorCtor, "prepareStackTrace", {
    get: () => stackHook,
    set: (hook) => { stackHook = hook; },
    configurable: false,
    enumerable: false,
  });

  // stackFrames keeps, for each error the hook saw, the stack it wrote and its frames: the error
  // text of an uncaught error is its header as String gives it then, and these frames.
  const stackFrames = new WeakMapCtor();

  // v8Stack is the stack of err in V8's format ("Name: message" and V8's frames), with V8's
  // message where QuickJS's own differs. sites are QuickJS's call sites, innermost first; the
  // prelude's frames, and the native frame a prelude function called, are left out, and so are
  // the frames of the error's own constructors (V8 starts below them).
  function v8Stack(err, sites) {
    // The request is a flat list: name, message, the name of the error's constructor, then five
    // entries a frame (function name, file, line, column, flags: "n" native, "c" a call, "" the
    // frame that made the error).
    const request = list();
    request[0] = "Error";
    request[1] = "";
    request[2] = "";
    // An error of the script's own class (class E extends TypeError) is never the engine's: its
    // message stays whatever it is, only its frames are V8's.
    let scripts = false;
    try {
      const proto = getPrototypeOf(err);
      const builtin = mapGet(builtinErrorNames, proto);
      let ctors;
      if (builtin !== undefined) {
        request[2] = builtin;
      } else {
        ctors = errorConstructors(proto);
        const c = ownData(proto, "constructor", false);
        const cn = typeof c === "function" ? ownData(c, "name", false) : undefined;
        if (typeof cn === "string") request[2] = cn;
      }
      scripts = ctors !== undefined;
      let leading = scripts;
      let called = false; // a frame left out came first: the frames from here on are calls
      for (let i = 0; i < sites.length; i++) {
        const site = sites[i];
        const file = site.getFileName();
        if (file === PRELUDE_FILE) {
          called = true;
          continue;
        }
        const native = site.isNative();
        if (native) {
          const next = sites[i + 1];
          if (next !== undefined && next.getFileName() === PRELUDE_FILE) {
            called = true;
            continue;
          }
        } else if (leading && setHas(ctors, site.getFunction())) {
          continue;
        }
        leading = false;
        const fn = site.getFunctionName();
        const at = request.length;
        request[at] = typeof fn === "string" ? fn : "";
        request[at + 1] = native ? "" : file;
        request[at + 2] = site.getLineNumber();
        request[at + 3] = site.getColumnNumber();
        request[at + 4] = native ? "n" : called ? "c" : "";
      }
      const n = ownData(err, "name", true);
      if (typeof n === "string") request[0] = n;
      const m = ownData(err, "message", false);
      if (typeof m === "string") request[1] = m;
    } catch (_) {
      // A site or a property QuickJS could not read: the frames gathered so far.
    }
    const name = request[0];
    let message = request[1];
    let framesText = "";
    try {
      // The reply is "=" and the frames, or "!", the new message's length (UTF-16 units), ":",
      // the message and the frames.
      // A loop that makes the same error again asks Go once: the bridge call is most of what
      // an error costs. The cache is the cell's: every cell starts from the prelude's image.
      const key = jsonStringify(request);
      let reply = mapGet(stackReplies, key);
      if (reply === undefined) {
        reply = host(OP.stack + key);
        if (stackRepliesKept < STACK_REPLIES_MAX) {
          mapSet(stackReplies, key, reply);
          stackRepliesKept++;
        }
      }
      if (reply[0] === "=") {
        framesText = stringSlice(reply, 1);
      } else {
        const colon = stringIndexOf(reply, ":");
        const end = colon + 1 + NumberCtor(stringSlice(reply, 1, colon));
        framesText = stringSlice(reply, end);
        if (!scripts) {
          message = stringSlice(reply, colon + 1, end);
          defineProperty(err, "message", { value: message, writable: true, configurable: true, enumerable: false });
        }
      }
    } catch (_) {
      // No cell is running (the prelude itself is being set up): the header alone.
    }
    // The hook never throws: QuickJS would make the stack null. At the bottom of a full stack
    // (a stack overflow) the guard allows the hook a few calls (generators/qjswasm/guard.go);
    // when those run out, the stack is the header and whatever frames Go answered.
    const head = name === "" ? message : message === "" ? name : name + ": " + message;
    const stack = framesText === "" ? head : head + "\n" + framesText;
    try {
      if (isObject(err)) weakMapSet(stackFrames, err, [stack, framesText]);
    } catch (_) {
      // The uncaught error's report falls back to its stack.
    }
    return stack;
  }

  const stackReplies = new MapCtor();
  const STACK_REPLIES_MAX = 256;
  let stackRepliesKept = 0;

  // builtinErrorNames name the constructors of the engine's error prototypes: an error made from
  // one has no constructor of the script's to leave out.
  const builtinErrorNames = new MapCtor([
    [ErrorCtor.prototype, "Error"], [TypeError.prototype, "TypeError"], [RangeError.prototype, "RangeError"],
    [SyntaxError.prototype, "SyntaxError"], [ReferenceError.prototype, "ReferenceError"],
    [EvalError.prototype, "EvalError"], [URIError.prototype, "URIError"], [AggregateError.prototype, "AggregateError"],
  ]);

  // ownData reads a data property of v or of its prototypes without running any accessor;
  // inherited is false to read v's own only.
  function ownData(v, key, inherited) {
    for (let o = v; isObject(o) || typeof o === "function"; o = inherited ? getPrototypeOf(o) : null) {
      const d = getOwnPropertyDescriptor(o, key);
      if (d !== undefined) return d.value;
    }
    return undefined;
  }

  // errorConstructors are the constructors on a prototype chain below Error.prototype (the
  // script's error classes), or undefined.
  function errorConstructors(proto) {
    let out;
    for (let p = proto; isObject(p) && p !== ErrorCtor.prototype; p = getPrototypeOf(p)) {
      const c = ownData(p, "constructor", false);
      if (typeof c === "function") {
        if (out === undefined) out = new SetCtor();
        setAdd(out, c);
      }
    }
    return out;
  }

  // circularText is V8's message for the cycle JSON.stringify met in v: the path from the
  // object where the cycle starts to the property that closes it, or undefined when the walk
  // would run the script's code (a toJSON, a getter) or finds no cycle.
  function circularText(v) {
    const path = list(); // [object, key] pairs from the root
    const found = walkCycle(v, path, 0);
    if (found === undefined) return undefined;
    let start = 0;
    while (path[start][0] !== found[0]) start++;
    let out = "Converting circular structure to JSON\n    --> starting at object with constructor " + q1(ctorName(path[start][0]));
    for (let i = start + 1; i < path.length; i++) {
      out += "\n    |     " + keyText(path[i - 1][1], path[i - 1][0]) + " -> object with constructor " + q1(ctorName(path[i][0]));
    }
    return out + "\n    --- " + keyText(found[1], path[path.length - 1][0]) + " closes the circle";
  }
  function q1(s) { return "'" + s + "'"; }
  function keyText(key, holder) {
    return isArray(holder) ? "index " + key : "property " + q1(key);
  }
  function ctorName(o) {
    const c = ownData(getPrototypeOf(o), "constructor", true);
    const n = typeof c === "function" ? ownData(c, "name", false) : undefined;
    return typeof n === "string" && n !== "" ? n : "Object";
  }
  // walkCycle follows v's own enumerable data properties depth first, as JSON.stringify does,
  // and returns [object revisited, key] at the first cycle.
  function walkCycle(v, path, depth) {
    if (!isObject(v) || depth > 1000) return undefined;
    if (ownData(v, "toJSON", true) !== undefined || getOwnPropertyDescriptor(v, "toJSON") !== undefined) return undefined;
    const at = path.length;
    path[at] = [v, undefined];
    const keys = isArray(v) ? undefined : getOwnPropertyNames(v);
    const n = keys === undefined ? v.length : keys.length;
    for (let i = 0; i < n; i++) {
      const key = keys === undefined ? StringCtor(i) : keys[i];
      const d = getOwnPropertyDescriptor(v, key);
      if (d === undefined || !d.enumerable && keys !== undefined) continue;
      if (!("value" in d)) return undefined;
      const child = d.value;
      if (!isObject(child)) continue;
      path[at][1] = keys === undefined ? i : key;
      for (let j = 0; j <= at; j++) if (path[j][0] === child) return [child, path[at][1]];
      const found = walkCycle(child, path, depth + 1);
      if (found !== undefined) return found;
    }
    path.length = at;
    return undefined;
  }

  // stringifyError is the text a helper throws for what JSON.stringify threw on v: for a cycle,
  // with V8's path in the message.
  function stringifyError(e, v) {
    try {
      if (e instanceof TypeErrorCtor && ownData(e, "message", false) === CIRCULAR) {
        const text = circularText(v);
        if (text !== undefined) defineProperty(e, "message", { value: text, writable: true, configurable: true, enumerable: false });
      }
    } catch (_) {
      // The plain text.
    }
    return errorText(e);
  }
  const CIRCULAR = "Converting circular structure to JSON";
  const TypeErrorCtor = TypeError;

  function isObject(v) {
    return v !== null && typeof v === "object";
  }

  // Codex's text conversion: primitives through String, everything else through JSON.stringify,
  // and "undefined" where stringify yields nothing (a function, a Symbol, a toJSON returning
  // undefined). What stringify throws is rethrown as its text (helperError).
  function toText(v) {
    const t = typeof v;
    if (v === undefined || v === null || t === "boolean" || t === "number" || t === "bigint" || t === "string") {
      return StringCtor(v);
    }
    const s = serialize(v);
    return s === undefined ? "undefined" : s;
  }

  // serialize is JSON.stringify whose failures are thrown as Codex's helpers throw them: as the
  // text of what was thrown, a string.
  function serialize(v) {
    try {
      return jsonStringify(v);
    } catch (e) {
      throw stringifyError(e, v);
    }
  }

  // SERDE_PREFIX starts the text of a value Codex's host cannot carry: it crosses from V8 as JSON
  // text that serde_json must parse.
  const SERDE_PREFIX = "failed to serialize JavaScript value: ";

  // crossingJSON is the JSON of a tool input or stored value, or the string to throw: undefined
  // when stringify yields nothing, and serde_json's refusal of what it cannot parse (nesting of
  // 128 levels, lone surrogates). Go checks only JSON that might be refused: text with 128
  // brackets, or with an escaped surrogate.
  function crossingJSON(v) {
    let json;
    try {
      json = jsonStringify(v);
    } catch (e) {
      throw stringifyError(e, v);
    }
    if (json === undefined) throw SERDE_UNDEFINED;
    if (mayRefuse(json)) refuse(json);
    return json;
  }

  const SERDE_UNDEFINED = SERDE_PREFIX + "expected value at line 1 column 1";

  // refuse throws serde_json's refusal of json, if it has one (Go parses it as serde_json does).
  function refuse(json) {
    const refusal = host(OP.check + json);
    if (refusal !== undefined) throw SERDE_PREFIX + refusal;
  }

  // mayRefuse reports whether serde_json might refuse json: short JSON (nesting 128 levels takes
  // 256 characters) without a backslash cannot be refused, so most inputs cost one search.
  function mayRefuse(json) {
    if (json.length < 256 && stringIndexOf(json, "\\") < 0) return false;
    if (stringIndexOf(json, "\\ud") >= 0) return true;
    let brackets = 0;
    for (let i = stringIndexOf(json, "["); i >= 0 && brackets < 128; i = stringIndexOf(json, "[", i + 1)) brackets++;
    for (let i = stringIndexOf(json, "{"); i >= 0 && brackets < 128; i = stringIndexOf(json, "{", i + 1)) brackets++;
    return brackets >= 128;
  }

  // The error_text of an uncaught value: the stack of an object with a string stack, else String(v)
  // ("" for a Symbol, as in Codex). QuickJS stacks lack V8's "Name: message" header line, so it is
  // prepended for Error objects, and the prelude's own frames are left out.
  function errorText(e) {
    try {
      if (typeof e === "symbol") return "";
      if (isObject(e) && typeof e.stack === "string") {
        const stack = e.stack;
        // The stack hook wrote the stack (v8Stack): the header as String gives it now, and the
        // frames; a stack the script assigned itself is kept as is.
        if (e instanceof ErrorCtor) {
          const written = weakMapGet(stackFrames, e);
          if (written !== undefined && written[0] === stack) {
            let head;
            try {
              head = StringCtor(e);
            } catch (_) {
              head = "<error>"; // V8's header for an error whose text cannot be made
            }
            return written[1] === "" ? head : head + "\n" + written[1];
          }
        }
        // QuickJS's own stacks are bare frame lists ("    at f (file:1:2)\n").
        if (e instanceof ErrorCtor && (stack === "" || stringStartsWith(stack, "    at "))) {
          const head = StringCtor(e);
          const frames = withoutPreludeFrames(stack);
          return frames === "" ? head : head + "\n" + frames;
        }
        return stack;
      }
      return StringCtor(e);
    } catch (_) {
      try {
        return objectToString(e);
      } catch (_) {
        return "uncaught exception";
      }
    }
  }

  // withoutPreludeFrames drops the prelude's frames from a QuickJS stack, with the native frame
  // (JSON.stringify) the prelude called, and the stack's final newline.
  function withoutPreludeFrames(stack) {
    const lines = stringSplit(stack, "\n");
    let out = "";
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i];
      if (line === "" || stringIndexOf(line, PRELUDE_FILE) >= 0) continue;
      const next = lines[i + 1];
      if (stringIndexOf(line, "(native)") >= 0 && next !== undefined && stringIndexOf(next, PRELUDE_FILE) >= 0) continue;
      out = out === "" ? line : out + "\n" + line;
    }
    return out;
  }

  // send passes one message to Go. A string reply from an output operation is an error to throw
  // (a plain string, as every helper error is).
  function send(message) {
    const reply = host(message);
    if (reply !== undefined) throw reply;
  }

  function schemeOf(url) {
    const m = regexpExec(/^([A-Za-z][A-Za-z0-9+.\-]*):/, url);
    return m ? stringToLowerCase(m[1]) : "";
  }

  function checkImageURL(url) {
    const scheme = schemeOf(url);
    if (scheme === "data") return url;
    if (scheme === "http" || scheme === "https") {
      throw "Tool call failed: remote image URLs are not supported in tool outputs. Pass a base64 data URI instead";
    }
    throw "Tool call failed: invalid image output. Pass a base64 data URI instead";
  }

  function normalizeDetail(d) {
    if (typeof d !== "string") throw "image detail must be a string when provided";
    const lower = stringToLowerCase(d);
    switch (lower) {
      case "auto":
      case "low":
      case "high":
      case "original":
        return lower;
    }
    throw "image detail must be one of: auto, low, high, original";
  }

  // mcpDataURL is the data: URL of an MCP image or audio block: its data when that is a data: URL
  // already, else the base64 data behind its MIME type. what names the helper in the refusal of
  // a block without data.
  function mcpDataURL(item, what) {
    const data = item.data;
    if (typeof data !== "string" || data === "") throw what + " expected MCP " + what + " data";
    if (hasDataScheme(data)) return data;
    let mime = item.mimeType;
    if (mime === undefined || mime === null) mime = item.mime_type;
    if (typeof mime !== "string" || mime === "") mime = "application/octet-stream";
    return "data:" + mime + ";base64," + data;
  }

  function hasDataScheme(url) {
    return schemeOf(url) === "data";
  }

  // emitText sends a text as it is: Go reads bridge messages whole, NUL included, and turns each
  // lone surrogate into U+FFFD as JSON would have. Quoting a large text as JSON cost more than the
  // rest of its way out.
  let maxOutputBytes = Infinity; // set by begin

  // A text longer than the output limit (in UTF-16 units, which are never more than its UTF-8
  // bytes) is refused by its length, not copied out of QuickJS to be refused there. A long text
  // within it is offered by its length first, so that Go refuses it there when the host's memory
  // budget cannot hold it, and reserves the budget for it otherwise.
  function emitText(text) {
    if (text.length > maxOutputBytes) send(OP.longText + text.length);
    else {
      if (text.length >= OFFER_FROM) send(OP.offer + text.length);
      send(OP.rawText + text);
    }
  }
  const OFFER_FROM = 1 << 16;

  function emitImage(url, detail) {
    send(OP.image + "[" + q(url) + "," + q(detail) + "]");
  }

  const IMAGE_SHAPE = "image expects a non-empty image URL string, an object with image_url and optional detail, or a raw MCP image block";

  // imageObject reads the object form of an image: {image_url, detail} or an MCP image block
  // (whose _meta may carry a detail). It returns [url, detail hint].
  function imageObject(item) {
    if (isArray(item)) throw IMAGE_SHAPE;
    if (item.image_url !== undefined) {
      const url = item.image_url;
      if (typeof url !== "string" || url === "") throw IMAGE_SHAPE;
      return [url, item.detail];
    }
    if (item.type === undefined) throw IMAGE_SHAPE;
    if (item.type !== "image") throw "image only accepts MCP image blocks, got " + q(StringCtor(item.type));
    const meta = item._meta;
    return [mcpDataURL(item, "image"), isObject(meta) ? meta["codex/imageDetail"] : undefined];
  }

  // chooseDetail is an image's detail: the argument's, else the item's hint, else "high".
  function chooseDetail(detail, hint) {
    if (detail !== undefined && detail !== null) return normalizeDetail(detail);
    if (hint !== undefined && hint !== null) return normalizeDetail(hint);
    return "high";
  }

  function image(item, detail) {
    let url;
    let hint;
    if (typeof item === "string") {
      url = item;
    } else if (isObject(item)) {
      const read = imageObject(item);
      url = read[0];
      hint = read[1];
    } else {
      throw IMAGE_SHAPE;
    }
    if (url === "") throw IMAGE_SHAPE;
    checkImageURL(url);
    emitImage(url, chooseDetail(detail, hint));
    return undefined;
  }

  const AUDIO_SHAPE = "audio expects a non-empty audio URL string, an object with audio_url, or a raw MCP audio block";
  function audio(item) {
    let url;
    if (typeof item === "string") {
      url = item;
    } else if (isObject(item) && !isArray(item)) {
      if (item.audio_url !== undefined) {
        url = item.audio_url;
        if (typeof url !== "string") throw AUDIO_SHAPE;
      } else if (item.type !== undefined) {
        if (item.type !== "audio") throw "audio only accepts MCP audio blocks, got " + q(StringCtor(item.type));
        url = mcpDataURL(item, "audio");
      } else {
        throw AUDIO_SHAPE;
      }
    } else {
      throw AUDIO_SHAPE;
    }
    if (url === "") throw AUDIO_SHAPE;
    if (!hasDataScheme(url)) throw "Tool call failed: invalid audio output. Pass a base64 data URI instead";
    send(OP.audio + q(url));
    return undefined;
  }

  // generatedImage emits an image generation result: an image in any object form image takes,
  // then its output_hint (a string, possibly empty) as text.
  function generatedImage(item) {
    if (!isObject(item)) throw "generatedImage expects an image generation result object";
    const read = imageObject(item);
    const hint = item.output_hint;
    if (hint !== undefined && typeof hint !== "string") throw "generatedImage output_hint must be a string when provided";
    checkImageURL(read[0]);
    emitImage(read[0], chooseDetail(undefined, read[1]));
    if (hint !== undefined) emitText(hint);
    return undefined;
  }

  function text(v) {
    emitText(toText(v));
    return undefined;
  }

  // notify delivers a notification at once (a cell that computes on afterwards does not hold
  // it back), after the tool calls the script started before it (flush).
  function notify(v) {
    const t = toText(v);
    if (stringTrim(t) === "") throw "notify expects non-empty text";
    flush();
    send(OP.notify + q(t));
    return undefined;
  }

  // storeKey is a store or load key: any value but a Symbol, as a string.
  function storeKey(key, what) {
    if (typeof key === "symbol") throw what + " key must be a string";
    try {
      return StringCtor(key);
    } catch (e) {
      throw errorText(e);
    }
  }

  function store(key, value) {
    const k = storeKey(key, "store");
    if (value === undefined) throw "Unable to store " + q(k) + ". Only plain serializable objects can be stored.";
    send(OP.store + "[" + q(k) + "," + crossingJSON(value) + "]");
    return undefined;
  }

  function load(key) {
    const json = host(OP.load + q(storeKey(key, "load")));
    return json === undefined ? undefined : jsonParse(json);
  }

  // yield_control answers the cell's observer with the output so far, after the tool calls the
  // script started before it (flush): the cell's events go out in the order it wrote them.
  function yield_control() {
    flush();
    host(OP.yield);
    return undefined;
  }

  // exit ends the cell at once and successfully, as V8's TerminateExecution does in Codex: Go
  // unwinds the engine from inside the bridge call, so no catch, finally or later code runs. The
  // tool calls started before it are handed over first: Codex sends them, then cancels them.
  function exit() {
    flush();
    host(OP.exit);
  }

  // as_settled yields {index, status, value | reason} for each promise of an iterable (or, for a
  // Map, each entry, indexed by its key) as it settles, in the order they settle; settlements
  // that arrive while the consumer is busy wait in order. It observes each promise once.
  function as_settled(promises) {
    const keyed = promises instanceof MapCtor;
    let ready = [];
    let pending = 0;
    let wake;
    let closed = false;
    const settle = (result) => {
      pending--;
      if (closed) return;
      ready[ready.length] = result;
      if (wake !== undefined) {
        const resume = wake;
        wake = undefined;
        resume();
      }
    };
    let position = 0;
    try {
      for (const entry of promises) {
        const index = keyed ? entry[0] : position++;
        const promise = keyed ? entry[1] : entry;
        pending++;
        promiseThen(promiseResolve(promise),
          (value) => settle({ index, status: "fulfilled", value }),
          (reason) => settle({ index, status: "rejected", reason }));
      }
    } catch (e) {
      closed = true;
      throw e;
    }
    return (async function* () {
      try {
        while (pending > 0 || ready.length > 0) {
          if (ready.length === 0) await new PromiseCtor((resume) => { wake = resume; });
          const batch = ready;
          ready = [];
          for (let i = 0; i < batch.length; i++) yield batch[i];
        }
      } finally {
        closed = true;
        ready = [];
      }
    })();
  }

  // stream_settled awaits emit(result) for each settlement as_settled yields.
  async function stream_settled(promises, emit) {
    if (typeof emit !== "function") throw new TypeError("stream_settled requires a callback");
    for await (const result of as_settled(promises)) await emit(result);
  }

  const CONTENT_SHAPE = "content expects one MCP ContentBlock";

  // content emits MCP content blocks as output items: one block, or every block of an iterable
  // (a string is neither). Text becomes text, image and audio their data: URLs, and a resource
  // or resource link its JSON as text.
  function content(value) {
    if (typeof value === "string" || !isObject(value) && typeof value !== "function" || typeof value[iteratorKey] !== "function") {
      emitBlock(value);
      return undefined;
    }
    for (const block of value) emitBlock(block);
    return undefined;
  }

  function emitBlock(block) {
    if (!isObject(block) || isArray(block)) throw CONTENT_SHAPE;
    switch (block.type) {
      case "text":
        if (typeof block.text !== "string") throw CONTENT_SHAPE;
        emitText(block.text);
        return;
      case "image": {
        if (typeof block.data !== "string") throw CONTENT_SHAPE;
        const meta = block._meta;
        emitImage(blockDataURL(block), chooseDetail(undefined, isObject(meta) ? meta["codex/imageDetail"] : undefined));
        return;
      }
      case "audio":
        if (typeof block.data !== "string") throw CONTENT_SHAPE;
        send(OP.audio + q(blockDataURL(block)));
        return;
      case "resource":
        if (!isObject(block.resource)) throw CONTENT_SHAPE;
        emitText(serialize(block));
        return;
      case "resource_link":
        if (typeof block.uri !== "string" || typeof block.name !== "string") throw CONTENT_SHAPE;
        emitText(serialize(block));
        return;
    }
    throw CONTENT_SHAPE;
  }

  // blockDataURL is the data: URL of a content block's data, which may be empty.
  function blockDataURL(block) {
    const data = block.data;
    if (hasDataScheme(data)) return data;
    const mime = block.mimeType;
    return "data:" + (typeof mime === "string" && mime !== "" ? mime : "application/octet-stream") + ";base64," + data;
  }

  // Work for Go queues here and Go takes it at the end of the turn, one record a line: "c id
  // toolIndex[ inputJSON]" for a tool call, "t id delayMs" for a timer, "k id" for a cleared
  // timer. Records go to an array joined once per turn: growing a string with += is quadratic in
  // QuickJS.
  const queue = list();

  // RECORDS_PER_CROSSING is how many queued records make a burst of tool calls cross to Go before
  // its turn ends: Go starts them, so the delegate answers the first ones while the script still
  // makes the others, as V8 sends each call when it is made (Promise.all of 100 calls: ~15 µs of
  // JavaScript each, ADR 79). Fewer records per crossing cost more crossings for no earlier start.
  const RECORDS_PER_CROSSING = 8;

  // flush hands Go the records queued so far, before an event that must follow them on the wire
  // (a notification, a yield, the cell's exit), or when a tool call finds RECORDS_PER_CROSSING waiting.
  function flush() {
    const n = queue.length;
    if (n === 0) return;
    const records = n === 1 ? queue[0] : arrayJoin(queue, "\n");
    queue.length = 0;
    host(OP.records + records);
  }

  // Timers live in Go: JS keeps the callbacks, Go keeps the clocks. A timer never keeps the cell
  // alive; the cell completes when the module's evaluation promise settles.
  let nextTimer = 0;
  let pendingTimers = 0;
  let maxPendingTimers = 0; // set by begin
  const timers = new MapCtor();

  function setTimeout(callback, delay) {
    if (typeof callback !== "function") throw "setTimeout expects a function callback";
    // Converting the delay may run cell code (valueOf), which may call setTimeout itself: the
    // limit is checked after it, so that no such call takes the last place between the check and
    // its use.
    let ms = NumberCtor(delay);
    if (!isFiniteNumber(ms) || ms <= 0) ms = 0;
    ms = mathTrunc(ms);
    if (pendingTimers >= maxPendingTimers) {
      throw "setTimeout: the cell already has its limit of " + maxPendingTimers + " pending timers";
    }
    const id = ++nextTimer;
    pendingTimers++;
    mapSet(timers, id, callback);
    queue[queue.length] = "t " + id + " " + ms;
    return id;
  }

  function clearTimeout(id) {
    if (id === undefined || id === null) return undefined;
    const n = NumberCtor(id);
    if (!isFiniteNumber(n) || n <= 0) return undefined;
    const key = mathTrunc(n);
    if (mapDelete(timers, key)) {
      pendingTimers--;
      queue[queue.length] = "k " + key;
    }
    return undefined;
  }

  let nextCall = 0;
  let pendingCalls = 0;
  let maxPendingCalls = 0; // set by begin
  const calls = new MapCtor(); // id -> [resolve, reject]
  // One shared executor: a closure per call costs measurably in QuickJS.
  let capturedResolve, capturedReject;
  function captureSettlers(resolve, reject) {
    capturedResolve = resolve;
    capturedReject = reject;
  }

  // A tool input crosses to Go once (ADR 62). JSON.stringify takes each string of at least
  // LONG_INPUT characters out through extract, writing inputMark (a per-cell secret that Go knows,
  // set by setup) in its place; Go, answering the skeleton's bridge message, takes the strings
  // through the part entry point (one call each), quotes them from QuickJS's memory, puts them back
  // and checks the whole input once as serde_json would parse it. No input is scanned in
  // JavaScript.
  const LONG_INPUT = 8192;
  let inputMark = "";
  let extracted; // the strings the serialization running now took out
  let parts; // the strings of the input Go is checking, and the next one part hands out
  let nextPart = 0;
  function extract(key, v) {
    if (typeof v === "string" && v.length >= LONG_INPUT) {
      extracted[extracted.length] = v;
      return inputMark;
    }
    return v;
  }

  // A cell starts by making a function for each enabled tool, and a closure costs QuickJS a
  // reference for every variable it captures: the tool function captures two and calls callTool,
  // which holds the body (about 40 % of a tool's share of a cell's start, ADR 77). Made where it is
  // returned, it has the name "" and, its one parameter defaulted, the length 0 of Codex's
  // functions without a redefinition (nativeLike).
  function makeTool(index, name) {
    const tail = " " + index;
    return function (input = undefined) {
      return callTool(tail, name, input);
    };
  }

  toolSource = functionToString(makeTool(0, ""));

  // callTool is a call of the tool name (tail: its index, as the call record writes it). Every
  // bytecode costs (wazero returns to Go at each interpreter dispatch so that a script can be
  // interrupted), so it does as little as it can.
  function callTool(tail, name, input) {
    // Serializing the input may run cell code (toJSON, getters, proxies), which may call tools
    // itself: the limit is checked after it, so that no such call takes the last place between
    // the check and its use. The record is built before the id is taken: a string too long to
    // build throws with no id skipped (Go expects them without gaps). An input Codex's host could
    // not carry throws at once, as there. The JSON of a number or a boolean needs no check; short
    // JSON without a backslash cannot be refused (nesting 128 levels takes 256 characters);
    // anything else is checked by Go, which keeps it for the call's record ("@"), under the id
    // the call is about to take. A call refused by the limit leaves Go an input that the next
    // crossing, taking the same id, replaces.
    let json;
    let crossed = false;
    if (input !== undefined) {
      const t = typeof input;
      if (t === "object" || t === "string") {
        const outer = extracted;
        const mine = list();
        extracted = mine;
        try {
          json = jsonStringify(input, extract);
        } catch (e) {
          throw stringifyError(e, input);
        } finally {
          extracted = outer;
        }
        if (json === undefined) throw SERDE_UNDEFINED;
        if (mine.length > 0 || json.length >= 256 || stringIndexOf(json, "\\") >= 0) {
          parts = mine;
          nextPart = 0;
          let refusal;
          try {
            refusal = host(OP.input + (nextCall + 1) + " " + mine.length + " " + json);
          } finally {
            parts = undefined;
          }
          if (refusal !== undefined) throw SERDE_PREFIX + refusal;
          crossed = true;
        }
      } else {
        try {
          json = jsonStringify(input);
        } catch (e) {
          throw stringifyError(e, input);
        }
        if (json === undefined) throw SERDE_UNDEFINED;
      }
    }
    if (pendingCalls >= maxPendingCalls) {
      return promiseReject("tools." + name + ": the cell already has its limit of " + maxPendingCalls + " pending tool calls");
    }
    const id = nextCall + 1;
    const record = json === undefined ? "c " + id + tail : crossed ? "c " + id + tail + " @" : "c " + id + tail + " " + json;
    nextCall = id;
    pendingCalls++;
    const promise = new PromiseCtor(captureSettlers);
    // An array literal defines its elements: no setter of Array.prototype runs.
    mapSet(calls, id, [capturedResolve, capturedReject]);
    queue[queue.length] = record;
    if (queue.length >= RECORDS_PER_CROSSING) flush();
    return promise;
  }

  // Code built at run time (eval and the four function constructors) goes through Go, which parses
  // it, rejects or rewrites its imports and returns canonical code; only that code is evaluated.
  // eval is therefore always indirect (global scope).
  function safeEval(src) {
    if (typeof src !== "string") return src;
    return originalEval(host(OP.eval + q(src)));
  }
  // It is eval to cell code: its name is the global's, not the prelude's.
  defineProperty(safeEval, "name", { value: "eval" });
  defineHidden(G, "eval", native(safeEval, "eval"));

  const functionKinds = [
    [Function, 0],
    [getPrototypeOf(async function () {}).constructor, 1],
    [getPrototypeOf(function* () {}).constructor, 2],
    [getPrototypeOf(async function* () {}).constructor, 3],
  ];
  let safeFunction;
  for (let i = 0; i < functionKinds.length; i++) {
    const original = functionKinds[i][0];
    const kind = functionKinds[i][1];
    const wrapper = function (...args) {
      const last = args.length - 1;
      let params = "";
      for (let j = 0; j < last; j++) params += (j > 0 ? "," : "") + q(StringCtor(args[j]));
      const body = last >= 0 ? StringCtor(args[last]) : "";
      return originalEval(host(OP.function + "[" + kind + ",[" + params + "]," + q(body) + "]"));
    };
    defineProperty(wrapper, "name", { value: original.name });
    defineProperty(wrapper, "length", { value: 1 });
    defineProperty(wrapper, "prototype", { value: original.prototype });
    defineProperty(original.prototype, "constructor", { value: wrapper, writable: true, configurable: true, enumerable: false });
    // The constructors other than Function inherit from Function: from the safe one, so that no
    // prototype walk leads back to an original.
    setPrototypeOf(wrapper, kind === 0 ? FunctionProto : safeFunction);
    native(wrapper, original.name);
    if (kind === 0) safeFunction = wrapper;
  }
  defineHidden(G, "Function", safeFunction);

  // Every runtime starts a cell from the same memory image, QuickJS's random state included, so
  // Math.random is a generator (xoshiro128**) that Go seeds for each cell.
  let s0 = 1, s1 = 2, s2 = 3, s3 = 4;
  function next32() {
    const result = imul(rotl(imul(s1, 5), 7), 9) >>> 0;
    const t = s1 << 9;
    s2 ^= s0;
    s3 ^= s1;
    s1 ^= s2;
    s0 ^= s3;
    s2 ^= t;
    s3 = rotl(s3, 11);
    return result;
  }
  function rotl(x, k) {
    return (x << k) | (x >>> (32 - k));
  }
  defineHidden(Math, "random", native(function random() {
    return ((next32() >>> 5) * 67108864 + (next32() >>> 6)) / 9007199254740992;
  }, "random"));

  // QuickJS's String.prototype.repeat appends one copy per repetition, about 5 ns a character for
  // a one-character string ("x".repeat(1e8) takes half a second), while its padEnd copies a long
  // filler in blocks and allocates the result once. A long repeat of a primitive string by a
  // primitive integer count is therefore built by padEnd from a chunk of about REPEAT_CHUNK
  // characters that native repeat makes: the same string, no more memory, 10 times faster.
  // Everything else (short results, conversions, errors) is native repeat itself, so no
  // conversion runs twice and every error text stays QuickJS's. It is a method, as the native
  // one: named "repeat", of length 1, not a constructor (ADR 53).
  const REPEAT_CHUNK = 4096;
  const REPEAT_MAX = 1073741823; // QuickJS's JS_STRING_LEN_MAX: past it, native repeat throws
  const stringRepeat = uncurry(String.prototype.repeat);
  const stringPadEnd = uncurry(String.prototype.padEnd);
  const repeatMethod = {
    repeat(count) {
      // (count | 0) === count: an integer below 2^31 (NaN and fractions fail it).
      if (typeof this === "string" && typeof count === "number" && (count | 0) === count) {
        const len = this.length;
        const total = len * count;
        if (total > 2 * REPEAT_CHUNK && total <= REPEAT_MAX) {
          return stringPadEnd("", total, stringRepeat(this, mathTrunc((REPEAT_CHUNK + len - 1) / len)));
        }
      }
      return stringRepeat(this, count);
    },
  }.repeat;
  defineHidden(String.prototype, "repeat", native(repeatMethod, "repeat"));

  // The helpers, in Codex's order (tools and ALL_TOOLS, which setup fills in, first); its native
  // ones have no name and no declared parameters.
  define(G, "tools", {});
  define(G, "ALL_TOOLS", []);
  define(G, "clearTimeout", nativeLike(clearTimeout));
  define(G, "setTimeout", nativeLike(setTimeout));
  define(G, "text", nativeLike(text));
  define(G, "content", content);
  define(G, "image", nativeLike(image));
  define(G, "audio", nativeLike(audio));
  define(G, "generatedImage", nativeLike(generatedImage));
  define(G, "store", nativeLike(store));
  define(G, "load", nativeLike(load));
  define(G, "notify", nativeLike(notify));
  define(G, "yield_control", nativeLike(yield_control));
  define(G, "exit", nativeLike(exit));
  define(G, "as_settled", as_settled);
  define(G, "stream_settled", stream_settled);

  // setup installs the cell's tools, its limits and seeds Math.random, and returns the module to
  // import. Go passes spec as a value it parsed from JSON: {"tools": [[name, description], ...],
  // "seed": [a, b, c, d], "maxTimers": n, "maxCalls": n, "maxOutput": n, "main": moduleName,
  // "mark": the secret part of inputMark}.
  function setup(spec) {
    const parsed = spec;
    const specTools = parsed.tools;
    const tools = {};
    const all = [];
    for (let i = 0; i < specTools.length; i++) {
      const name = specTools[i][0];
      defineProperty(tools, name, { value: makeTool(i, name), writable: true, enumerable: true, configurable: true });
      all[i] = { name, description: specTools[i][1] };
    }
    define(G, "tools", tools);
    define(G, "ALL_TOOLS", all);
    maxPendingTimers = parsed.maxTimers;
    maxPendingCalls = parsed.maxCalls;
    maxOutputBytes = parsed.maxOutput;
    inputMark = "codemode:" + parsed.mark;
    s0 = parsed.seed[0] | 0;
    s1 = parsed.seed[1] | 0;
    s2 = parsed.seed[2] | 0;
    s3 = parsed.seed[3] | 0;
    return parsed.main;
  }

  // placeLongStrings puts the long strings of a tool result where Go took them from: places are
  // [[k, step...], ...], k the index of the string in longs and the steps the keys and indices
  // from the root. Every holder is an object or array JSON.parse just made, and the place holds
  // its own writable "" there, so assigning meets no setter and keeps the member's position.
  function placeLongStrings(value, places, longs) {
    for (let i = 0; i < places.length; i++) {
      const p = places[i];
      const last = p.length - 1;
      if (last === 0) return longs[p[0]];
      let holder = value;
      for (let j = 1; j < last; j++) holder = holder[p[j]];
      holder[p[last]] = longs[p[0]];
    }
    return value;
  }

  // fire runs the timer callback id, if it was not cleared. A throwing callback fails the cell.
  function fire(id) {
    const callback = mapGet(timers, id);
    if (callback === undefined) return;
    mapDelete(timers, id);
    pendingTimers--;
    try {
      callback();
    } catch (e) {
      host(OP.fail + q(errorText(e)));
    }
  }

  // The entry points return undefined: Go relies on it to skip an exception check per call. Go
  // runs the pending jobs after each begin or deliver and then calls take.
  return {
    // begin installs the tools and imports the cell's module, or, when the cell exports anything,
    // a module that imports it and exports nothing, so that no export of the cell's can make the
    // import a thenable (engine.go, mainModuleName); the module's settlement completes the cell.
    begin(spec) {
      promiseThen(import(setup(typeof spec === "string" ? jsonParse(spec) : spec)),
        () => host(OP.done),
        (e) => host(OP.fail + q(errorText(e))));
    },
    // take hands Go everything queued since the last turn, in one crossing.
    take() {
      const n = queue.length;
      if (n === 0) return undefined;
      const records = n === 1 ? queue[0] : arrayJoin(queue, "\n");
      queue.length = 0;
      return records;
    },
    // deliver settles tool promises and fires timers: batch is [[id, 1, value], [id, 0,
    // errorString], [id, 3, skeleton, places], [timerId, 2], ...], as JSON text when it is small
    // (JSON.parse in JavaScript is cheaper than QuickJS's C entry point for a few bytes) or
    // already parsed by Go. The further arguments are the long strings of results of kind 3
    // (longstrings.go), which placeLongStrings puts in their skeletons.
    deliver(batch, ...longs) {
      const items = typeof batch === "string" ? jsonParse(batch) : batch;
      for (let i = 0; i < items.length; i++) {
        const r = items[i];
        if (r[1] === 2) {
          fire(r[0]);
          continue;
        }
        const settle = mapGet(calls, r[0]);
        if (settle === undefined) continue;
        mapDelete(calls, r[0]);
        pendingCalls--;
        if (r[1] === 1) settle[0](r[2]);
        else if (r[1] === 3) settle[0](placeLongStrings(r[2], r[3], longs));
        else settle[1](r[2]);
      }
    },
    // deliverOne settles the one tool call id with the JSON text value of its result (Go sends
    // a single small result so, without a batch array around it).
    deliverOne(value, id) {
      const settle = mapGet(calls, id);
      if (settle === undefined) return;
      mapDelete(calls, id);
      pendingCalls--;
      settle[0](jsonParse(value));
    },
    // part hands Go the next long string of the tool input it is checking (ADR 62).
    part() {
      return parts === undefined ? undefined : parts[nextPart++];
    },
    // describe renders a thrown value as error text, quoted as JSON: Go reads strings from QuickJS
    // as C strings, which would end at a NUL in the text.
    describe(e) {
      return q(errorText(e));
    },
  };
})
