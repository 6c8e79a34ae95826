// Behaviour of the generated V1 TypeScript codecs (gen/ts/wirev1) beyond the fixture tree: the
// exact error texts of the cases Codex's peers reject (the same texts as the Go codec), i64/u64
// beyond 2^53, preservation of arbitrary JSON, encoder validation and the lane table of docs/protocol/v1.md#websocket-and-lanes.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  checkWireExecuteRequestSemantics,
  decodeClientToHost,
  decodeDelegateResponse,
  encodeClientToHost,
  JsonNumber,
  laneOf,
  marshalClientToHost,
  marshalHostToClient,
  parseJSON,
  stringifyJSON,
  unmarshalClientToHost,
  unmarshalDelegateResponse,
  unmarshalHostToClient,
  unmarshalWireExecuteRequest,
  unmarshalWireWaitOutcome,
  WireDecodeError,
  WireEncodeError,
  type ClientHello,
  type DelegateResponse,
  type DelegateResponseResult,
  type HostResponse,
  type HostResponseResult,
  type RuntimeResponseResult,
  type WireResult,
  type WireRuntimeResponse,
  unmarshalDelegateResponseResult,
  unmarshalHostResponseResult,
  unmarshalRuntimeResponseResult,
  type OperationCancel,
} from "../../gen/ts/wirev1/index.js";

function rejects(decode: () => unknown, message: string): void {
  assert.throws(decode, (err: unknown) => {
    assert.ok(err instanceof WireDecodeError, `not a WireDecodeError: ${String(err)}`);
    assert.equal(err.message, message);
    return true;
  });
}

const hello = (fields: string) =>
  `{"type":"connection/hello","supportedVersions":[1],"requiredCapabilities":[],"optionalCapabilities":[]${fields}}`;
const execute = (fields: string) =>
  `{"tool_call_id":"c","enabled_tools":[],"source":"s","yield_time_ms":null,"max_output_tokens":null${fields}}`;

test("unknown fields are rejected at every level, naming the path and the allowed keys", () => {
  rejects(
    () => unmarshalClientToHost(hello(`,"unexpected":true`)),
    "unknown field `unexpected`, expected one of `supportedVersions`, `requiredCapabilities`, `optionalCapabilities`",
  );
  rejects(
    () => unmarshalClientToHost(`{"type":"operation/request","id":1,"request":{"method":"session/open","sessionId":"s","cellExecutionLimits":{"maxYieldTimeMs":1,"x":0}}}`),
    "request.cellExecutionLimits: unknown field `x`, expected `maxYieldTimeMs` or `maxHeapSizeBytes`",
  );
  rejects(
    () => unmarshalWireWaitOutcome(`{"LiveCell":{"Yielded":{"cell_id":"1","content_items":[{"type":"input_text","text":"t","x":1}]}}}`),
    "LiveCell.Yielded.content_items[0]: unknown field `x`, expected `text`",
  );
});

test("extra keys on notification/delivered are ignored and not re-encoded (serde quirk)", () => {
  const v = unmarshalDelegateResponse(`{"type":"notification/delivered","extra":{"a":1}}`);
  assert.deepEqual(v, { type: "notification/delivered" });
  rejects(
    () => unmarshalDelegateResponse(`{"type":"tool/result","result":1,"extra":1}`),
    "unknown field `extra`, expected `result`",
  );
});

test("protocol version 0 is rejected", () => {
  rejects(
    () => unmarshalClientToHost(`{"type":"connection/hello","supportedVersions":[0],"requiredCapabilities":[],"optionalCapabilities":[]}`),
    "supportedVersions[0]: invalid value: integer `0`, expected a non-zero u32",
  );
  rejects(
    () => unmarshalHostToClient(`{"type":"connection/ready","selectedVersion":0,"capabilities":[]}`),
    "selectedVersion: invalid value: integer `0`, expected a non-zero u32",
  );
  rejects(
    () => unmarshalClientToHost(`{"type":"connection/hello","supportedVersions":[],"requiredCapabilities":[],"optionalCapabilities":[]}`),
    "supportedVersions: at least one protocol version is required",
  );
});

test("empty and blank session ids are rejected", () => {
  for (const id of ["", " ", "\\t\\n", "\\u00a0"]) {
    rejects(
      () => unmarshalClientToHost(`{"type":"operation/request","id":1,"request":{"method":"session/shutdown","sessionId":"${id}"}}`),
      "request.sessionId: identifier must not be empty",
    );
  }
  // A cell id is transparent: empty is fine.
  const closed = unmarshalHostToClient(`{"type":"cell/closed","sessionId":"s","cellId":""}`);
  assert.deepEqual(closed, { type: "cell/closed", sessionId: "s", cellId: "" });
});

test("duplicate and overlapping capabilities are rejected", () => {
  rejects(
    () => unmarshalClientToHost(`{"type":"connection/hello","supportedVersions":[1],"requiredCapabilities":[],"optionalCapabilities":["b","a","b"]}`),
    "optionalCapabilities: duplicate capability `b`",
  );
  rejects(
    () => unmarshalClientToHost(`{"type":"connection/hello","supportedVersions":[1,1],"requiredCapabilities":[],"optionalCapabilities":[]}`),
    "supportedVersions: duplicate protocol version 1",
  );
  // The smallest common capability is named.
  rejects(
    () => unmarshalClientToHost(`{"type":"connection/hello","supportedVersions":[1],"requiredCapabilities":["z","b"],"optionalCapabilities":["z","b"]}`),
    "capability `b` cannot be both required and optional",
  );
  rejects(
    () => unmarshalClientToHost(`{"type":"connection/hello","supportedVersions":[1],"requiredCapabilities":[" "],"optionalCapabilities":[]}`),
    "requiredCapabilities[0]: identifier must not be empty",
  );
});

test("i32 overflow of max_output_tokens is rejected; a negative value decodes but fails the semantic check", () => {
  rejects(
    () => unmarshalWireExecuteRequest(execute("").replace(`"max_output_tokens":null`, `"max_output_tokens":2147483648`)),
    "max_output_tokens: invalid value: integer `2147483648`, expected i32",
  );
  const negative = unmarshalWireExecuteRequest(execute("").replace(`"max_output_tokens":null`, `"max_output_tokens":-2147483648`));
  assert.equal(negative.max_output_tokens, -2147483648);
  assert.throws(() => checkWireExecuteRequestSemantics(negative), {
    message: "invalid code-mode execute request: out of range integral type conversion attempted",
  });
  checkWireExecuteRequestSemantics({ ...negative, max_output_tokens: 0 });
});

test("external unions need exactly one PascalCase key", () => {
  rejects(
    () => unmarshalWireWaitOutcome(`{"liveCell":{"Yielded":{"cell_id":"1","content_items":[]}}}`),
    "unknown variant `liveCell`, expected `LiveCell` or `MissingCell`",
  );
  rejects(
    () => unmarshalWireWaitOutcome(`{"LiveCell":{"yielded":{"cell_id":"1","content_items":[]}}}`),
    "LiveCell: unknown variant `yielded`, expected one of `Yielded`, `Terminated`, `Result`",
  );
  rejects(
    () => unmarshalWireWaitOutcome(`{}`),
    "invalid value: map with 0 keys, expected exactly one key naming a variant of WireWaitOutcome",
  );
  rejects(
    () => unmarshalWireWaitOutcome(`{"LiveCell":{"Result":{"cell_id":"1","content_items":[]}},"MissingCell":{"Result":{"cell_id":"1","content_items":[]}}}`),
    "invalid value: map with 2 keys, expected exactly one key naming a variant of WireWaitOutcome",
  );
});

test("tags: missing, wrong type and unknown values", () => {
  rejects(() => unmarshalClientToHost(`{"id":1}`), "missing field `type`");
  rejects(() => unmarshalClientToHost(`{"type":1,"id":1}`), "type: invalid type: integer `1`, expected variant identifier");
  rejects(
    () => unmarshalClientToHost(`{"type":"Operation/Cancel","id":1}`),
    "type: unknown variant `Operation/Cancel`, expected one of `connection/hello`, `operation/request`, `operation/cancel`, `delegate/response`",
  );
  rejects(() => unmarshalClientToHost(`[]`), "invalid type: array, expected internally tagged enum ClientToHost");
  rejects(() => unmarshalClientToHost(`"x"`), `invalid type: string "x", expected internally tagged enum ClientToHost`);
});

test("missing required keys and null where not allowed", () => {
  rejects(() => unmarshalClientToHost(`{"type":"operation/cancel"}`), "missing field `id`");
  rejects(() => unmarshalClientToHost(`{"type":"operation/cancel","id":null}`), "id: invalid type: null, expected i64");
  rejects(() => unmarshalDelegateResponse(`{"type":"tool/result"}`), "missing field `result`");
  // tool/result.result is a required JSON value: null is a value there.
  assert.deepEqual(unmarshalDelegateResponse(`{"type":"tool/result","result":null}`), { type: "tool/result", result: null });
});

test("i64 ids: numbers while safe, bigints beyond 2^53, exact in both directions", () => {
  const cancel = (id: string) => unmarshalClientToHost(`{"type":"operation/cancel","id":${id}}`) as OperationCancel;
  assert.equal(cancel("9007199254740991").id, 9007199254740991);
  assert.equal(cancel("9007199254740993").id, 9007199254740993n);
  assert.equal(cancel("-9223372036854775808").id, -9223372036854775808n);
  assert.equal(cancel("-0").id, 0);
  for (const id of ["9223372036854775807", "-9223372036854775808", "9007199254740993", "-5"]) {
    assert.equal(marshalClientToHost(cancel(id)), `{"type":"operation/cancel","id":${id}}`);
  }
  rejects(() => cancel("9223372036854775808"), "id: invalid value: integer `9223372036854775808`, expected i64");
  rejects(() => cancel("1.0"), "id: invalid type: floating point `1.0`, expected i64");
  rejects(() => cancel("1e2"), "id: invalid type: floating point `1e2`, expected i64");
  rejects(() => cancel(`"1"`), `id: invalid type: string "1", expected i64`);
  // Encoders take either representation.
  assert.equal(marshalClientToHost({ type: "operation/cancel", id: 2n ** 62n }), `{"type":"operation/cancel","id":4611686018427387904}`);
  assert.equal(marshalClientToHost({ type: "operation/cancel", id: 7n }), `{"type":"operation/cancel","id":7}`);
  // u64 up to 2^64-1.
  const w = unmarshalClientToHost(
    `{"type":"operation/request","id":1,"request":{"method":"session/wait","sessionId":"s","request":{"cell_id":"1","yield_time_ms":18446744073709551615}}}`,
  );
  assert.equal(
    marshalClientToHost(w),
    `{"type":"operation/request","id":1,"request":{"method":"session/wait","sessionId":"s","request":{"cell_id":"1","yield_time_ms":18446744073709551615}}}`,
  );
});

test("decodeX on JSON.parse output: exact where JSON.parse is, lossy where it already lost the lexeme", () => {
  const exact = decodeClientToHost(JSON.parse(`{"type":"operation/cancel","id":9007199254740991}`));
  assert.deepEqual(exact, { type: "operation/cancel", id: 9007199254740991 });
  // JSON.parse turned 1.0 into 1 and 2^63 into a double before the decoder saw them; only the
  // text decoders (unmarshalX) can reject the first and carry the second exactly.
  assert.deepEqual(decodeClientToHost(JSON.parse(`{"type":"operation/cancel","id":1.0}`)), { type: "operation/cancel", id: 1 });
  rejects(() => unmarshalClientToHost(`{"type":"operation/cancel","id":1.0}`), "id: invalid type: floating point `1.0`, expected i64");
  rejects(
    () => decodeClientToHost(JSON.parse(`{"type":"operation/cancel","id":9223372036854775807}`)),
    "id: invalid value: integer `9223372036854775808`, expected i64",
  );
  // JSON.parse lets a lone surrogate escape through; the decoders refuse it as the parsers do.
  rejects(
    () => decodeClientToHost(JSON.parse(`{"type":"operation/request","id":1,"request":{"method":"session/shutdown","sessionId":"\\ud800"}}`)),
    "request.sessionId: invalid unicode: lone surrogate in string",
  );
  rejects(
    () => decodeDelegateResponse(JSON.parse(`{"type":"tool/result","result":{"\\udc00":1}}`)),
    "result: invalid unicode: lone surrogate in string",
  );
  // Values that are not JSON at all are refused with the path.
  rejects(() => decodeClientToHost({ type: "operation/cancel", id: Number.NaN }), "id: invalid type: NaN is not a JSON value");
  rejects(() => decodeClientToHost({ type: "operation/cancel", id: () => 1 }), "id: invalid type: a function is not a JSON value");
});

test("arbitrary JSON values keep their lexemes, order and escapes", () => {
  const text = `{"type":"tool/result","result":{"b":1.50,"a":[1e2,-0,12345678901234567890,"<&>\\u2028é\\u0001"],"n":null}}`;
  const v = unmarshalDelegateResponse(text);
  const out = stringifyJSON(parseJSON(text));
  assert.equal(out, text.replace("\\u2028", "\u2028"));
  assert.equal(marshalClientToHost({ type: "delegate/response", id: 1, result: { status: "ok", value: v } }),
    `{"type":"delegate/response","id":1,"result":{"status":"ok","value":${out}}}`);
  assert.ok(v.type === "tool/result" && (v.result as { b: JsonNumber }).b instanceof JsonNumber);
  rejects(() => unmarshalDelegateResponse(`{"type":"tool/result","result":{"a":1,"a":2}}`), "result: duplicate field `a`");
});

test("objects inside free-form JSON values keep their key order, except integer-like keys (JS property order)", () => {
  const v = unmarshalDelegateResponse(`{"type":"tool/result","result":{"b":1,"a":2,"10":3,"2":4}}`);
  // Go keeps document order byte for byte; a JS object lists array-index keys first. The value is
  // the same JSON object (and serde_json's Value, which Codex uses for tool results, sorts keys anyway).
  assert.equal(stringifyJSON(v.type === "tool/result" ? v.result : null), `{"2":4,"10":3,"b":1,"a":2}`);
});

test("the strict parser rejects what serde_json rejects, with serde_json's texts and positions", () => {
  rejects(() => parseJSON(`{"a":1} x`), "trailing characters at line 1 column 9");
  rejects(() => parseJSON(`{`), "EOF while parsing an object at line 1 column 1");
  rejects(() => parseJSON(`"\\udc00"`), "lone leading surrogate in hex escape at line 1 column 7");
  rejects(() => parseJSON(`"\\ud800x"`), "unexpected end of hex escape at line 1 column 8");
  rejects(() => parseJSON(`"a\u0001"`), "control character (\\u0000-\\u001F) found while parsing a string at line 1 column 3");
  rejects(() => parseJSON(`01`), "invalid number at line 1 column 2");
  rejects(() => parseJSON(`[1,]`), "trailing comma at line 1 column 4");
  rejects(() => parseJSON(`["é" x]`), "expected `,` or `]` at line 1 column 7"); // columns count UTF-8 bytes
  rejects(() => parseJSON(""), "EOF while parsing a value at line 1 column 0");
  assert.ok(parseJSON("1".repeat(200000)) instanceof JsonNumber);
  rejects(() => parseJSON("[".repeat(129) + "]".repeat(129)), "recursion limit exceeded at line 1 column 129");
  parseJSON("[".repeat(128) + "]".repeat(128));
  rejects(() => parseJSON(new Uint8Array([0x22, 0xff, 0x22])), "invalid unicode in JSON document");
  assert.equal(parseJSON(new TextEncoder().encode(`"é"`)), "é");
});

test("encoders sort sets, order keys canonically and refuse what would not decode", () => {
  const msg: ClientHello = {
    type: "connection/hello",
    supportedVersions: [1],
    requiredCapabilities: [],
    optionalCapabilities: ["session-cell-execution-resource-limits", "dual-websocket-v1"],
  };
  assert.equal(
    marshalClientToHost(msg),
    `{"type":"connection/hello","supportedVersions":[1],"requiredCapabilities":[],"optionalCapabilities":["dual-websocket-v1","session-cell-execution-resource-limits"]}`,
  );
  // Byte order, not UTF-16 order: U+1F600 (surrogates D83D DE00) sorts after U+FF5E.
  assert.deepEqual(encodeClientToHost({ ...msg, optionalCapabilities: ["😀", "～"] }), {
    ...msg,
    optionalCapabilities: ["～", "😀"],
  });
  assert.throws(() => encodeClientToHost({ ...msg, requiredCapabilities: ["dual-websocket-v1"] }), (err: unknown) => {
    assert.ok(err instanceof WireEncodeError);
    assert.equal(err.message, "cannot encode ClientToHost: capability `dual-websocket-v1` cannot be both required and optional");
    return true;
  });
  assert.throws(() => marshalClientToHost({ type: "operation/cancel", id: 1.5 }), {
    message: "cannot encode ClientToHost: id: invalid type: floating point `1.5`, expected i64",
  });
  // Optional-as-null fields are emitted as null, omitted ones are left out.
  assert.equal(
    marshalClientToHost({
      type: "operation/request",
      id: 1,
      request: { method: "session/execute", sessionId: "s", request: { tool_call_id: "c", enabled_tools: [], source: "", yield_time_ms: null, max_output_tokens: null } },
    }),
    `{"type":"operation/request","id":1,"request":{"method":"session/execute","sessionId":"s","request":${execute("")}}}`.replace(`"source":"s"`, `"source":""`),
  );
  assert.equal(
    marshalHostToClient({ type: "connection/ready", selectedVersion: 1, capabilities: [] }),
    `{"type":"connection/ready","selectedVersion":1,"capabilities":[]}`,
  );
});

test("WireResult<T> is the shape of every result union", () => {
  const results: [WireResult<HostResponse>, WireResult<WireRuntimeResponse>, WireResult<DelegateResponse>] = [
    unmarshalHostResponseResult(`{"status":"ok","value":{"type":"session/closed","sessionId":"s"}}`),
    unmarshalRuntimeResponseResult(`{"status":"error","message":"m"}`),
    unmarshalDelegateResponseResult(`{"status":"ok","value":{"type":"notification/delivered"}}`),
  ];
  const back: [HostResponseResult, RuntimeResponseResult, DelegateResponseResult] = results;
  assert.deepEqual(back.map((r) => r.status), ["ok", "error", "ok"]);
});

test("connection/ready keeps the pairing token; cellExecutionLimits and its fields are omitted when absent", () => {
  const ready = `{"type":"connection/ready","selectedVersion":1,"capabilities":["dual-websocket-v1"],"bulkConnectionToken":"0f8fad5b-d9cb-469f-a165-70867728950e"}`;
  assert.equal(marshalHostToClient(unmarshalHostToClient(ready)), ready);
  // null decodes as absent and is not re-encoded.
  assert.equal(
    marshalHostToClient(unmarshalHostToClient(`{"type":"connection/ready","selectedVersion":1,"capabilities":[],"bulkConnectionToken":null}`)),
    `{"type":"connection/ready","selectedVersion":1,"capabilities":[]}`,
  );
  const open = (limits: string) =>
    marshalClientToHost(unmarshalClientToHost(`{"type":"operation/request","id":1,"request":{"method":"session/open","sessionId":"s"${limits}}}`));
  assert.equal(open(""), `{"type":"operation/request","id":1,"request":{"method":"session/open","sessionId":"s"}}`);
  assert.equal(open(`,"cellExecutionLimits":null`), `{"type":"operation/request","id":1,"request":{"method":"session/open","sessionId":"s"}}`);
  assert.equal(
    open(`,"cellExecutionLimits":{"maxHeapSizeBytes":16777216,"maxYieldTimeMs":null}`),
    `{"type":"operation/request","id":1,"request":{"method":"session/open","sessionId":"s","cellExecutionLimits":{"maxHeapSizeBytes":16777216}}}`,
  );
});

test("lane table of docs/protocol/v1.md#websocket-and-lanes", () => {
  const c = (s: string) => laneOf(unmarshalClientToHost(s));
  const h = (s: string) => laneOf(unmarshalHostToClient(s));
  assert.equal(c(hello("")), "control");
  assert.equal(c(`{"type":"operation/request","id":1,"request":{"method":"session/shutdown","sessionId":"s"}}`), "control");
  assert.equal(c(`{"type":"operation/cancel","id":1}`), "control");
  assert.equal(c(`{"type":"delegate/response","id":1,"result":{"status":"ok","value":{"type":"notification/delivered"}}}`), "control");
  assert.equal(c(`{"type":"delegate/response","id":1,"result":{"status":"ok","value":{"type":"tool/result","result":1}}}`), "bulk");
  assert.equal(c(`{"type":"delegate/response","id":1,"result":{"status":"error","message":"m"}}`), "bulk");
  assert.equal(h(`{"type":"connection/ready","selectedVersion":1,"capabilities":[]}`), "control");
  assert.equal(h(`{"type":"connection/rejected","reason":{"type":"invalidHello","message":"m"}}`), "control");
  assert.equal(h(`{"type":"operation/response","id":1,"result":{"status":"error","message":"${"x".repeat(128 * 1024)}"}}`), "control");
  assert.equal(h(`{"type":"execute/initialResponse","id":1,"result":{"status":"error","message":"m"}}`), "control");
  assert.equal(h(`{"type":"cell/closed","sessionId":"s","cellId":"1"}`), "control");
  assert.equal(h(`{"type":"delegate/request","id":1,"sessionId":"s","request":{"type":"notification/send","callId":"c","cellId":"1","text":"t"}}`), "control");
  assert.equal(
    h(`{"type":"delegate/request","id":1,"sessionId":"s","request":{"type":"tool/invoke","invocation":{"cell_id":"1","runtime_tool_call_id":"r","tool_name":{"name":"t","namespace":null},"tool_kind":"function","input":null}}}`),
    "bulk",
  );
  assert.equal(h(`{"type":"delegate/cancel","id":1}`), "bulk");
});
