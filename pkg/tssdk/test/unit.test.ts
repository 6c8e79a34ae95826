// Unit tests of the SDK's pure logic: cell IDs across generations, UUIDs and recent IDs, error
// texts, outcome conversion, the admission state (pending-limit bookkeeping among it) and tool
// results; and the lease opening against an in-memory fake host (connect's router transport).
import { test } from "node:test";
import assert from "node:assert/strict";
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { Code, ConnectError, createRouterTransport } from "@connectrpc/connect";
import {
  CellClosedSchema,
  CodeModeHost,
  ExecutionOutcomeSchema,
  ImageDetail,
  NotificationSchema,
  ToolCallSchema,
  ToolKind,
  WaitResponseSchema,
  SessionEventSchema,
} from "../../../gen/ts/pb/codex/code_mode/v1/code_mode_pb.js";
import { completionRequest, toolOutput } from "../src/binding.js";
import { boundText, codeName, errorText, RequestError, statusText, PENDING_LIMIT_TEXT, STALE_GENERATION_TEXT, StaleGenerationError } from "../src/errors.js";
import { checkHostIdentifier, newUuid, parseCallbackUuid, publicCellId, RecentIds, remoteCellId } from "../src/ids.js";
import { runtimeOutcomeFromProto, waitOutcomeFromProto } from "../src/outcome.js";
import { limitsToProto, openSession } from "../src/session.js";
import { MAX_PENDING_CALLBACKS, SessionState, displayToolName, toolKey } from "../src/state.js";

const isStale = (e: unknown): boolean => e instanceof StaleGenerationError && e.message === STALE_GENERATION_TEXT;

test("generation 1 keeps the host's cell IDs, even ones that look prefixed", () => {
  for (const id of ["1", "42", "g2:42", "graphics:1", "g1:1"]) {
    assert.equal(publicCellId(1, id), id);
    assert.equal(remoteCellId(1, id), id);
  }
});

test("later generations prefix public IDs and strip wire IDs", () => {
  assert.equal(publicCellId(2, "42"), "g2:42");
  assert.equal(remoteCellId(2, "g2:42"), "42");
  assert.equal(publicCellId(3, "1"), "g3:1");
  assert.equal(remoteCellId(3, "g3:1"), "1");
  assert.equal(remoteCellId(2, publicCellId(2, "g2:7")), "g2:7", "a wire ID that looks prefixed round-trips");
});

test("IDs of another generation are refused with Codex's text, without echoing them", () => {
  for (const id of ["42", "g1:42", "g3:42", "g22:42", "G2:42", "x".repeat(10_000)]) {
    assert.throws(() => remoteCellId(2, id), isStale, id.slice(0, 20));
  }
  assert.equal(new StaleGenerationError().message, "cell belongs to a stale code-mode host generation");
});

test("host identifiers must be non-empty and at most 256 bytes of UTF-8", () => {
  assert.throws(() => checkHostIdentifier("", "cell ID"), { message: "gRPC code-mode host returned an empty cell ID" });
  checkHostIdentifier("x".repeat(256), "cell ID");
  assert.throws(() => checkHostIdentifier("x".repeat(257), "cell ID"), { message: "gRPC code-mode host returned cell ID exceeding 256 bytes" });
  assert.throws(() => checkHostIdentifier("é".repeat(129), "session ID"), { message: "gRPC code-mode host returned session ID exceeding 256 bytes" });
});

test("UUIDs: fresh ones are version 4; every spelling of one parses to its canonical form", () => {
  const id = newUuid();
  assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.notEqual(newUuid(), id);
  const canonical = "0f8fad5b-d9cb-469f-a165-70867728950e";
  for (const spelling of [canonical, canonical.toUpperCase(), "0f8fad5bd9cb469fa16570867728950e", `urn:uuid:${canonical}`, `{${canonical}}`]) {
    assert.equal(parseCallbackUuid(spelling, "tool invocation ID"), canonical, spelling);
  }
  for (const bad of ["", "1", "0f8fad5b-d9cb-469f-a165-70867728950", "0f8fad5b-d9cb-469f-a165-70867728950g"]) {
    assert.throws(() => parseCallbackUuid(bad, "tool invocation ID"), { message: "code-mode tool invocation ID must be a UUID" });
  }
});

test("recent IDs forget the oldest past their bound, and a removed ID is no member", () => {
  const r = new RecentIds(3);
  assert.equal(r.remember("a"), true);
  assert.equal(r.remember("a"), false);
  r.remember("b");
  r.remember("c");
  r.remember("d");
  assert.equal(r.has("a"), false);
  assert.deepEqual(["b", "c", "d"].map((x) => r.has(x)), [true, true, true]);
  assert.equal(r.remove("c"), true);
  assert.equal(r.has("c"), false);
  assert.equal(r.size, 2);
});

test("failure texts: connect-go's status spelling, bounded to 512 bytes on a UTF-8 boundary", () => {
  assert.equal(codeName(Code.FailedPrecondition), "failed_precondition");
  assert.equal(codeName(Code.DeadlineExceeded), "deadline_exceeded");
  assert.equal(codeName(Code.Canceled), "canceled");
  assert.equal(statusText(new ConnectError("unknown code-mode session x", Code.NotFound)), "not_found: unknown code-mode session x");
  assert.equal(new RequestError("wait", new ConnectError("gone", Code.Unavailable)).message, "gRPC code-mode wait failed: unavailable: gone");
  assert.equal(boundText("short"), "short");
  const long = boundText("é".repeat(400));
  assert.ok(new TextEncoder().encode(long).length <= 512);
  assert.ok(long.endsWith("..."));
  assert.equal(long, "é".repeat(254) + "...", "cut before the character the bound splits");
  const request = new RequestError("execution", new ConnectError("x".repeat(1000), Code.Internal));
  assert.equal(new TextEncoder().encode(request.message).length, 512);
  assert.equal(errorText(new Error("boom")), "boom");
  assert.equal(errorText("plain"), "plain");
  assert.equal(errorText(42), "42");
});

test("outcomes convert to the discriminated union, with the client's refusals", () => {
  const items = [
    { item: { case: "text" as const, value: { text: "hi" } } },
    { item: { case: "image" as const, value: { imageUrl: "data:image/png;base64,AA==", detail: ImageDetail.HIGH } } },
    { item: { case: "image" as const, value: { imageUrl: "data:image/png;base64,AA==" } } },
    { item: { case: "audio" as const, value: { audioUrl: "data:audio/wav;base64,AA==" } } },
  ];
  const yielded = runtimeOutcomeFromProto(create(ExecutionOutcomeSchema, { cellId: "3", contentItems: items, outcome: { case: "yielded", value: {} }, codeModeHostDurationNs: 7n }));
  assert.deepEqual(yielded, {
    kind: "yielded",
    cellId: "3",
    hostDurationNs: 7n,
    contentItems: [
      { type: "input_text", text: "hi" },
      { type: "input_image", imageUrl: "data:image/png;base64,AA==", detail: "high" },
      { type: "input_image", imageUrl: "data:image/png;base64,AA==" },
      { type: "input_audio", audioUrl: "data:audio/wav;base64,AA==" },
    ],
  });
  const failed = runtimeOutcomeFromProto(create(ExecutionOutcomeSchema, { cellId: "1", outcome: { case: "completed", value: { errorText: "boom" } } }));
  assert.deepEqual(failed, { kind: "result", cellId: "1", contentItems: [], hostDurationNs: 0n, errorText: "boom" });
  const ok = runtimeOutcomeFromProto(create(ExecutionOutcomeSchema, { cellId: "1", outcome: { case: "completed", value: {} } }));
  assert.equal("errorText" in ok, false, "a successful result has no errorText at all");
  assert.equal(runtimeOutcomeFromProto(create(ExecutionOutcomeSchema, { cellId: "1", outcome: { case: "terminated", value: {} } })).kind, "terminated");

  const missing = waitOutcomeFromProto(create(WaitResponseSchema, { state: { case: "missingCell", value: { cellId: "9", outcome: { case: "completed", value: { errorText: "exec cell 9 not found" } } } } }));
  assert.deepEqual(missing, { kind: "missing", cellId: "9", contentItems: [], hostDurationNs: 0n, errorText: "exec cell 9 not found" });
  const live = waitOutcomeFromProto(create(WaitResponseSchema, { state: { case: "liveCell", value: { cellId: "9", outcome: { case: "yielded", value: {} } } } }));
  assert.equal(live.kind, "yielded");

  assert.throws(() => waitOutcomeFromProto(create(WaitResponseSchema, {})), { message: "code-mode wait omitted its outcome" });
  assert.throws(() => runtimeOutcomeFromProto(create(ExecutionOutcomeSchema, { cellId: "1" })), { message: "code-mode execution omitted its outcome" });
  assert.throws(() => runtimeOutcomeFromProto(create(ExecutionOutcomeSchema, { cellId: "", outcome: { case: "yielded", value: {} } })), {
    message: "gRPC code-mode host returned an empty cell ID",
  });
  assert.throws(() => runtimeOutcomeFromProto(create(ExecutionOutcomeSchema, { cellId: "1", contentItems: [{}], outcome: { case: "yielded", value: {} } })), {
    message: "code-mode execution returned an empty content item",
  });
  for (const detail of [ImageDetail.UNSPECIFIED, 9 as ImageDetail]) {
    const bad = create(ExecutionOutcomeSchema, { cellId: "1", contentItems: [{ item: { case: "image", value: { imageUrl: "x", detail } } }], outcome: { case: "yielded", value: {} } });
    assert.throws(() => runtimeOutcomeFromProto(bad), { message: `code-mode image has invalid detail value ${detail}` });
  }
});

test("tool names: default namespaces are one, and display as Codex does", () => {
  assert.equal(toolKey({ name: "a" }), toolKey({ name: "a", namespace: "" }));
  assert.equal(toolKey({ name: "a" }), toolKey({ name: "a", namespace: "functions" }));
  assert.notEqual(toolKey({ name: "a" }), toolKey({ name: "a", namespace: "mcp__x__" }));
  assert.equal(displayToolName({ name: "a", namespace: "functions" }), "a");
  assert.equal(displayToolName({ name: "tool", namespace: "mcp__x__" }), "mcp__x__tool");
});

// The admission state, fed with the host's messages as the binding feeds it.
const execution = "exec-1";
function stateWithExecution(): SessionState<string> {
  const st = new SessionState<string>();
  st.beginExecution(execution, "call-1", [
    { toolName: { name: "echo" }, kind: ToolKind.FUNCTION, tool: "echo-impl" },
    { toolName: { name: "raw", namespace: "ns__" }, kind: ToolKind.FREEFORM, tool: "raw-impl" },
  ]);
  st.admitExecution(execution, "1");
  st.markReady(execution);
  return st;
}
function call(fields: { invocationId?: string; name?: string; namespace?: string; kind?: ToolKind; executionId?: string; cellId?: string } = {}) {
  return create(ToolCallSchema, {
    sessionId: "s",
    executionId: fields.executionId ?? execution,
    cellId: fields.cellId ?? "1",
    invocationId: fields.invocationId ?? newUuid(),
    runtimeToolCallId: "tool-1",
    toolName: fields.namespace === undefined ? { name: fields.name ?? "echo" } : { name: fields.name ?? "echo", namespace: fields.namespace },
    toolKind: fields.kind ?? ToolKind.FUNCTION,
    sequence: 1n,
  });
}
function notification(fields: { callId?: string; executionId?: string } = {}) {
  return create(NotificationSchema, { notificationId: newUuid(), executionId: fields.executionId ?? execution, cellId: "1", callId: fields.callId ?? "call-1", text: "t" });
}

test("tool calls are admitted with their execution's implementation, by canonical name and kind", () => {
  const st = stateWithExecution();
  const echo = st.admitInvocation(call({ namespace: "functions" }));
  assert.equal(echo.kind, "admitted");
  assert.equal(echo.kind === "admitted" ? echo.tool : "", "echo-impl");
  assert.equal(st.admitInvocation(call({ name: "raw", namespace: "ns__", kind: ToolKind.FREEFORM })).kind, "admitted");
  assert.deepEqual(st.admitInvocation(call({ name: "raw", namespace: "ns__" })), { kind: "rejected", reason: "code-mode tool ns__raw is not enabled for this execution" });
  assert.deepEqual(st.admitInvocation(call({ name: "other" })), { kind: "rejected", reason: "code-mode tool other is not enabled for this execution" });
  assert.equal(st.pending, 2);
});

test("the pending limit: 1,024 tool calls and notifications together, then refusals until one ends", () => {
  const st = stateWithExecution();
  const ids: string[] = [];
  for (let i = 0; i < MAX_PENDING_CALLBACKS - 1; i++) {
    const id = newUuid();
    ids.push(id);
    assert.equal(st.admitInvocation(call({ invocationId: id })).kind, "admitted");
  }
  assert.equal(st.admitNotification(notification()).kind, "admitted", "notifications share the limit");
  assert.equal(st.pending, 1_024);
  assert.deepEqual(st.admitInvocation(call()), { kind: "rejected", reason: PENDING_LIMIT_TEXT });
  assert.deepEqual(st.admitNotification(notification()), { kind: "rejected", reason: PENDING_LIMIT_TEXT });
  assert.equal(PENDING_LIMIT_TEXT, "code-mode host exceeded its pending delegate callback limit");
  st.finishInvocation(ids[0]!);
  assert.equal(st.pending, 1_023);
  assert.equal(st.admitInvocation(call()).kind, "admitted");
  st.finishNotification(execution);
  assert.equal(st.pending, 1_023);
});

test("reused invocation IDs, foreign call IDs and reused cells are fatal", () => {
  const st = stateWithExecution();
  const id = newUuid();
  st.admitInvocation(call({ invocationId: id }));
  assert.throws(() => st.admitInvocation(call({ invocationId: id })), { message: "code-mode tool invocation ID was reused" });
  st.finishInvocation(id);
  assert.throws(() => st.admitInvocation(call({ invocationId: id.toUpperCase() })), { message: "code-mode tool invocation ID was reused" });
  assert.throws(() => st.admitNotification(notification({ callId: "call-2" })), { message: "code-mode notification call ID does not match its execution" });
  assert.throws(() => st.admitInvocation(call({ invocationId: "nope" })), { message: "code-mode tool invocation ID must be a UUID" });
  st.beginExecution("exec-2", "call-2", []);
  assert.throws(() => st.admitExecution("exec-2", "1"), { message: "code-mode host reused active cell ID 1" });
});

test("cancellations: a call cancelled before it arrived is dropped, an active one is aborted", () => {
  const st = stateWithExecution();
  const early = newUuid();
  st.cancelInvocation(early);
  assert.deepEqual(st.admitInvocation(call({ invocationId: early })), { kind: "preCancelled" });
  const active = st.admitInvocation(call());
  assert.equal(active.kind, "admitted");
  const inv = active.kind === "admitted" ? active.signal : undefined;
  const id = newUuid();
  const second = st.admitInvocation(call({ invocationId: id }));
  st.cancelInvocation(id);
  assert.equal(second.kind === "admitted" && second.signal.aborted, true);
  assert.equal(inv?.aborted, false);
});

test("a closed cell: its calls are aborted, later calls answered closed, and it retires after its notifications", () => {
  const st = stateWithExecution();
  const active = st.admitInvocation(call());
  const n = st.admitNotification(notification());
  assert.equal(n.kind, "admitted");
  assert.equal(st.closeCell(create(CellClosedSchema, { executionId: execution, cellId: "1", finalToolCallSequence: 1n })), "", "a notification is still in flight");
  assert.equal(active.kind === "admitted" && active.signal.aborted, true);
  assert.deepEqual(st.admitInvocation(call()), { kind: "closedCell" });
  assert.equal(st.notificationsSettled("1")?.aborted, false);
  assert.equal(st.finishNotification(execution), "1", "the last notification retires the cell");
  assert.deepEqual(st.admitInvocation(call()), { kind: "closedCell" }, "unknown executions are closed too");
  assert.equal(st.pending, 0);
});

test("closing the state aborts every callback, returns the live cells once and fails later operations", () => {
  const st = stateWithExecution();
  const a = st.admitInvocation(call());
  const failure = new Error("gRPC code-mode session lease closed unexpectedly");
  assert.deepEqual(st.close(failure), ["1"]);
  assert.deepEqual(st.close(failure), []);
  assert.equal(a.kind === "admitted" && a.signal.aborted, true);
  assert.throws(() => st.admitInvocation(call()), failure);
  assert.equal(st.pending, 0);
});

test("tool results: undefined is null, unserializable values fail, oversized completions are replaced", () => {
  assert.deepEqual(toolOutput(undefined), { ok: true, json: new TextEncoder().encode("null") });
  assert.deepEqual(toolOutput({ a: 1 }), { ok: true, json: new TextEncoder().encode('{"a":1}') });
  assert.deepEqual(toolOutput(10n), { ok: false, message: "tool result is not valid JSON" });
  const big = toolOutput("x".repeat(5_000));
  const replaced = completionRequest("s", "i", big, 2_000);
  assert.equal(replaced.outcome.case, "failed");
  assert.match(replaced.outcome.case === "failed" ? replaced.outcome.value.message : "", /^code-mode tool result of \d+ encoded bytes exceeds the gRPC message limit of 2000 bytes$/);
  const fits = completionRequest("s", "i", big, 10_000);
  assert.equal(fits.outcome.case, "succeeded");
  const failure = completionRequest("s", "i", { ok: false, message: "m".repeat(70_000) }, 64 * 1024 * 1024);
  assert.equal(failure.outcome.case === "failed" ? failure.outcome.value.message.length : 0, 70_000, "failure messages are not truncated");
});

test("session limits are sent only when one is set", () => {
  assert.equal(limitsToProto(undefined), undefined);
  assert.equal(limitsToProto({}), undefined);
  assert.equal(limitsToProto({ maxYieldTimeMs: 5_000 })?.maxYieldTimeMs, 5_000n);
  assert.equal(limitsToProto({ maxHeapSizeBytes: 1n })?.maxYieldTimeMs, undefined);
});

/** A fake host whose OpenSession sends `events` and then ends. */
function fakeHost(events: MessageInitShape<typeof SessionEventSchema>[]) {
  return createRouterTransport(({ service }) => {
    service(CodeModeHost, {
      async *openSession() {
        for (const event of events) {
          yield create(SessionEventSchema, event);
        }
      },
    });
  });
}

test("a lease must open with its opening event", async () => {
  await assert.rejects(openSession({ transport: fakeHost([]) }), { message: "gRPC code-mode session lease ended before opening" });
  await assert.rejects(openSession({ transport: fakeHost([{ event: { case: "toolCallCancelled", value: { invocationId: newUuid() } } }]) }), {
    message: "gRPC code-mode session lease omitted its opening event",
  });
  await assert.rejects(openSession({ transport: fakeHost([{ event: { case: "opened", value: { sessionId: "" } } }]) }), {
    message: "gRPC code-mode host returned an empty session ID",
  });
});

test("a lease that ends before the subscription is registered fails the opening", async () => {
  // The fake host's subscription is unimplemented: its stream fails.
  await assert.rejects(openSession({ transport: fakeHost([{ event: { case: "opened", value: { sessionId: newUuid() } } }]) }), (e: unknown) => {
    return e instanceof Error && /^gRPC code-mode (session lease closed unexpectedly|tool subscription failed: unimplemented)/.test(e.message);
  });
});

test("dropped waits hold back only their cell's next wait, and a retired cell keeps no entry", () => {
  const st = new SessionState<string>();
  const first = Promise.resolve();
  const second = Promise.resolve();
  const other = Promise.resolve();
  st.dropWait("1", first);
  st.dropWait("1", second);
  st.dropWait("2", other);
  assert.deepEqual(st.retiringWaits("1"), [first, second]);
  st.waitRetired("1", first);
  assert.deepEqual(st.retiringWaits("1"), [second]);
  st.waitRetired("1", second);
  assert.deepEqual(st.retiringWaits("1"), []);
  assert.equal(st.retiringCells, 1, "cell 1 kept an entry after its last dropped wait retired");
  assert.deepEqual(st.retiringWaits("2"), [other]);
});
