// The cell prelude. It is evaluated once per runtime, before any user code, as a global script whose
// value is a function. Go calls that function with its host bridge and receives the internal entry
// points (begin, deliver, take). Nothing here is reachable from user code except the
// 13 helper globals it installs; the bridge stays captured in this closure.
(function (host) {
  "use strict";
  const G = globalThis;
  const jsonStringify = JSON.stringify;
  const jsonParse = JSON.parse;
  const PromiseCtor = Promise;
  const PromiseReject = Promise.reject.bind(Promise);
  const StringCtor = String;
  const NumberCtor = Number;
  const isFiniteNumber = Number.isFinite;
  const mathTrunc = Math.trunc;
  const ErrorCtor = Error;
  const defineProperty = Object.defineProperty;
  const getOwnPropertyNames = Object.getOwnPropertyNames;
  const getOwnPropertySymbols = Object.getOwnPropertySymbols;
  const apply = Reflect.apply;
  const promiseThen = Promise.prototype.then;
  const stringToLowerCase = String.prototype.toLowerCase;
  const stringTrim = String.prototype.trim;
  const stringStartsWith = String.prototype.startsWith;
  const regexpExec = RegExp.prototype.exec;
  const EXIT = "__codex_code_mode_exit__";

  // Standard ECMAScript globals that stay. Everything else QuickJS or qjs defines goes (console,
  // print, std, os, bjson, gc, navigator, performance, scriptArgs, timers, queueMicrotask,
  // DOMException, InternalError, QJS_PROXY_VALUE), and so do the globals Codex removes from V8
  // (SharedArrayBuffer, Atomics, WebAssembly).
  const keep = new Set([
    "Object", "Function", "Array", "Number", "parseFloat", "parseInt", "Infinity", "NaN",
    "undefined", "Boolean", "String", "Symbol", "Date", "Promise", "RegExp", "Error",
    "AggregateError", "EvalError", "RangeError", "ReferenceError", "SyntaxError", "TypeError",
    "URIError", "globalThis", "JSON", "Math", "Intl", "ArrayBuffer", "Uint8Array", "Int8Array",
    "Uint16Array", "Int16Array", "Uint32Array", "Int32Array", "Float16Array", "Float32Array",
    "Float64Array", "Uint8ClampedArray", "BigUint64Array", "BigInt64Array", "DataView", "Map",
    "BigInt", "Set", "WeakMap", "WeakSet", "Proxy", "Reflect", "FinalizationRegistry", "WeakRef",
    "decodeURI", "decodeURIComponent", "encodeURI", "encodeURIComponent", "escape", "unescape",
    "eval", "isFinite", "isNaN", "Iterator", "Temporal",
  ]);
  for (const name of getOwnPropertyNames(G)) {
    if (!keep.has(name)) delete G[name];
  }
  for (const sym of getOwnPropertySymbols(G)) {
    if (sym !== Symbol.toStringTag) delete G[sym];
  }

  function define(name, value) {
    defineProperty(G, name, { value, writable: true, configurable: true, enumerable: false });
  }

  function isObject(v) {
    return v !== null && typeof v === "object";
  }

  // Codex's text conversion: primitives through String, everything else through JSON.stringify
  // (whose exceptions propagate), falling back to String when stringify yields undefined.
  function toText(v) {
    const t = typeof v;
    if (v === undefined || v === null || t === "boolean" || t === "number" || t === "bigint" || t === "string") {
      return StringCtor(v);
    }
    const s = jsonStringify(v);
    return s === undefined ? StringCtor(v) : s;
  }

  // The error_text of an uncaught value: the stack of an object with a string stack, else String(v).
  // QuickJS stacks lack V8's "Name: message" header line, so it is prepended for Error objects.
  function errorText(e) {
    try {
      if (isObject(e) && typeof e.stack === "string") {
        const stack = e.stack;
        // QuickJS's own stacks are bare frame lists ("    at f (file:1:2)\n"); a stack the
        // script assigned itself is kept as is.
        if (e instanceof ErrorCtor && (stack === "" || apply(stringStartsWith, stack, ["    at "]))) {
          const head = StringCtor(e);
          return stack === "" ? head : head + "\n" + stack.replace(/\n$/, "");
        }
        return stack;
      }
      return StringCtor(e);
    } catch (_) {
      try {
        return Object.prototype.toString.call(e);
      } catch (_) {
        return "uncaught exception";
      }
    }
  }

  function schemeOf(url) {
    const m = apply(regexpExec, /^([A-Za-z][A-Za-z0-9+.\-]*):/, [url]);
    return m ? apply(stringToLowerCase, m[1], []) : "";
  }

  function checkImageURL(url) {
    const scheme = schemeOf(url);
    if (scheme === "data") return url;
    if (scheme === "http" || scheme === "https") {
      throw "Tool call failed: remote image URLs are not supported in tool outputs. Pass a base64 data URI instead";
    }
    throw "Tool call failed: invalid image output. Pass a base64 data URI instead";
  }

  const DETAILS = ["auto", "low", "high", "original"];
  function normalizeDetail(d) {
    if (typeof d !== "string") throw "image detail must be a string when provided";
    const lower = apply(stringToLowerCase, d, []);
    if (DETAILS.indexOf(lower) < 0) throw "image detail must be one of: auto, low, high, original";
    return lower;
  }

  function mcpDataURL(item) {
    const data = item.data;
    if (typeof data !== "string" || data === "") return "";
    if (schemeOf(data) !== "") return data;
    let mime = item.mimeType;
    if (mime === undefined || mime === null) mime = item.mime_type;
    if (typeof mime !== "string" || mime === "") mime = "application/octet-stream";
    return "data:" + mime + ";base64," + data;
  }

  const IMAGE_SHAPE = "image expects a non-empty image URL string, an object with image_url and optional detail, or a raw MCP image block";

  function emit(items) {
    host("o" + jsonStringify(items));
  }

  function image(item, detail) {
    let url;
    let hint;
    if (typeof item === "string") {
      url = item;
    } else if (isObject(item) && !Array.isArray(item)) {
      if (item.image_url !== undefined) {
        url = item.image_url;
        if (typeof url !== "string") throw IMAGE_SHAPE;
        hint = item.detail;
      } else if (item.type !== undefined) {
        if (item.type !== "image") throw "image only accepts MCP image blocks, got " + jsonStringify(StringCtor(item.type));
        url = mcpDataURL(item);
        const meta = item._meta;
        if (isObject(meta)) hint = meta["codex/imageDetail"];
      } else {
        throw IMAGE_SHAPE;
      }
    } else {
      throw IMAGE_SHAPE;
    }
    if (url === "") throw IMAGE_SHAPE;
    checkImageURL(url);
    let chosen = "high";
    if (detail !== undefined && detail !== null) chosen = normalizeDetail(detail);
    else if (hint !== undefined && hint !== null) chosen = normalizeDetail(hint);
    emit([{ type: "input_image", image_url: url, detail: chosen }]);
    return undefined;
  }

  const AUDIO_SHAPE = "audio expects a non-empty audio URL string, an object with audio_url, or a raw MCP audio block";
  function audio(item) {
    let url;
    if (typeof item === "string") {
      url = item;
    } else if (isObject(item) && !Array.isArray(item)) {
      if (item.audio_url !== undefined) {
        url = item.audio_url;
        if (typeof url !== "string") throw AUDIO_SHAPE;
      } else if (item.type !== undefined) {
        if (item.type !== "audio") throw "audio only accepts MCP audio blocks, got " + jsonStringify(StringCtor(item.type));
        url = mcpDataURL(item);
      } else {
        throw AUDIO_SHAPE;
      }
    } else {
      throw AUDIO_SHAPE;
    }
    if (url === "") throw AUDIO_SHAPE;
    if (schemeOf(url) !== "data") throw "Tool call failed: invalid audio output. Pass a base64 data URI instead";
    emit([{ type: "input_audio", audio_url: url }]);
    return undefined;
  }

  const GENERATED_SHAPE = "generatedImage expects an object with image_url and optional output_hint";
  function generatedImage(item) {
    if (!isObject(item) || Array.isArray(item)) throw GENERATED_SHAPE;
    const url = item.image_url;
    if (typeof url !== "string" || url === "") throw GENERATED_SHAPE;
    checkImageURL(url);
    const hint = item.output_hint;
    const items = [{ type: "input_image", image_url: url, detail: "high" }];
    if (hint !== undefined && hint !== null) {
      if (typeof hint !== "string") throw "generatedImage output_hint must be a string when provided";
      items.push({ type: "input_text", text: hint });
    }
    emit(items);
    return undefined;
  }

  function text(v) {
    emit([{ type: "input_text", text: toText(v) }]);
    return undefined;
  }

  function notify(v) {
    const t = toText(v);
    if (apply(stringTrim, t, []) === "") throw "notify expects non-empty text";
    host("n" + t);
    return undefined;
  }

  function store(key, value) {
    const k = StringCtor(key);
    let json;
    try {
      json = jsonStringify(value);
    } catch (_) {
      json = undefined;
    }
    if (typeof json !== "string") {
      throw "Unable to store " + jsonStringify(k) + ". Only plain serializable objects can be stored.";
    }
    // JSON text never holds a raw newline, so the first one ends it.
    host("s" + json + "\n" + k);
    return undefined;
  }

  function load(key) {
    const json = host("l" + StringCtor(key));
    return json === undefined ? undefined : jsonParse(json);
  }

  function yield_control() {
    host("y");
    return undefined;
  }

  function exit() {
    throw EXIT;
  }

  // Timers live in Go: JS keeps the callbacks, Go keeps the clocks. A timer never keeps the cell
  // alive; the cell completes when the module's evaluation promise settles.
  let nextTimer = 0;
  const timers = new Map();
  // queue holds what Go takes at the end of the turn, one record a line (JSON text never holds a
  // raw newline): "0 id toolIndex[ inputJSON]" for a tool call, "1 id delayMs" for a timer.
  // Building a string is cheaper in QuickJS than stringifying arrays at take time.
  let queue = "";

  function setTimeout(callback, delay) {
    if (typeof callback !== "function") throw "setTimeout expects a function callback";
    let ms = NumberCtor(delay);
    if (!isFiniteNumber(ms) || ms <= 0) ms = 0;
    ms = mathTrunc(ms);
    const id = ++nextTimer;
    timers.set(id, callback);
    queue += "1 " + id + " " + ms + "\n";
    return id;
  }

  function clearTimeout(id) {
    if (id === undefined || id === null) return undefined;
    const n = NumberCtor(id);
    if (!isFiniteNumber(n) || n <= 0) return undefined;
    timers.delete(mathTrunc(n));
    return undefined;
  }

  let nextCall = 0;
  const calls = new Map(); // id -> [resolve, reject]
  // One shared executor: a closure per call costs measurably in QuickJS.
  let capturedResolve, capturedReject;
  function captureSettlers(resolve, reject) {
    capturedResolve = resolve;
    capturedReject = reject;
  }

  function makeTool(index, name) {
    const fn = function (input) {
      // A missing argument is undefined too; reading `arguments` would make QuickJS build an
      // arguments object on every call (about 2 µs here).
      let json = "";
      if (input !== undefined) {
        const s = jsonStringify(input);
        if (s !== undefined) json = " " + s;
      }
      const id = ++nextCall;
      const promise = new PromiseCtor(captureSettlers);
      calls.set(id, [capturedResolve, capturedReject]);
      queue += "0 " + id + " " + index + json + "\n";
      return promise;
    };
    defineProperty(fn, "name", { value: name });
    return fn;
  }

  // Code built at run time passes through Go, which rewrites its dynamic import() calls, so no
  // path leads to QuickJS's own modules. The cost: eval is always indirect (global scope).
  const originalEval = eval;
  function safeSource(src) {
    return host("r" + src);
  }
  function safeEval(src) {
    if (typeof src !== "string") return src;
    return originalEval(safeSource(src));
  }
  const functionKinds = [
    [Function, "function"],
    [Object.getPrototypeOf(async function () {}).constructor, "async function"],
    [Object.getPrototypeOf(function* () {}).constructor, "function*"],
    [Object.getPrototypeOf(async function* () {}).constructor, "async function*"],
  ];
  let safeFunction;
  for (const [original, keyword] of functionKinds) {
    const wrapper = function (...args) {
      const body = args.length > 0 ? StringCtor(args[args.length - 1]) : "";
      const params = args.slice(0, -1).map(StringCtor).join(",");
      return originalEval(safeSource("(" + keyword + " anonymous(" + params + "\n) {\n" + body + "\n})"));
    };
    defineProperty(wrapper, "name", { value: original.name });
    wrapper.prototype = original.prototype;
    defineProperty(original.prototype, "constructor", { value: wrapper, writable: true, configurable: true, enumerable: false });
    Object.setPrototypeOf(wrapper, Object.getPrototypeOf(original));
    if (original === Function) safeFunction = wrapper;
  }
  define("eval", safeEval);
  define("Function", safeFunction);

  define("text", text);
  define("image", image);
  define("audio", audio);
  define("generatedImage", generatedImage);
  define("notify", notify);
  define("store", store);
  define("load", load);
  define("yield_control", yield_control);
  define("exit", exit);
  define("setTimeout", setTimeout);
  define("clearTimeout", clearTimeout);

  // setup installs the cell's tools. spec is JSON: [[normalizedName, description], ...].
  function setup(spec) {
    const list = jsonParse(spec);
    const tools = {};
    const all = [];
    for (let i = 0; i < list.length; i++) {
      const name = list[i][0];
      tools[name] = makeTool(i, name);
      all.push({ name, description: list[i][1] });
    }
    define("tools", tools);
    define("ALL_TOOLS", all);
  }

  // fire runs the timer callback id, if it was not cleared. A throwing callback fails the cell.
  function fire(id) {
    const callback = timers.get(id);
    if (callback === undefined) return;
    timers.delete(id);
    try {
      callback();
    } catch (e) {
      host("f" + errorText(e));
    }
  }

  // The entry points return undefined: Go relies on it to skip an exception check per call.
  // Go runs the pending jobs after each begin or deliver and then calls take.
  return {
    // begin installs the tools and imports the registered module; the module's settlement
    // completes the cell.
    begin(spec) {
      setup(spec);
      const p = import("exec_main.mjs");
      apply(promiseThen, p, [
        () => host("d"),
        (e) => (e === EXIT ? host("d") : host("f" + errorText(e))),
      ]);
    },
    // take hands Go everything queued since the last turn, in one crossing.
    take() {
      if (queue === "") return undefined;
      const q = queue;
      queue = "";
      return q;
    },
    // deliver settles tool promises and fires timers: batch is JSON [[id, 1, value],
    // [id, 0, errorString], [timerId, 2], ...].
    deliver(batch) {
      const list = jsonParse(batch);
      for (let i = 0; i < list.length; i++) {
        const r = list[i];
        if (r[1] === 2) {
          fire(r[0]);
          continue;
        }
        const settle = calls.get(r[0]);
        if (settle === undefined) continue;
        calls.delete(r[0]);
        if (r[1] === 1) settle[0](r[2]);
        else settle[1](r[2]);
      }
    },
  };
})
