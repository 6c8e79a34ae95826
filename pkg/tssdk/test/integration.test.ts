// The SDK against the real host binary (services/codemode-host, built by tools/test-ts.sh) on
// 127.0.0.1, over every transport of the matrix: Connect on HTTP/1.1 and gRPC on HTTP/2 from
// connect-node, Connect and gRPC-Web from connect-web on Node's fetch (the browsers' transports).
// Nothing here sleeps: tests wait for the events they expect.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { Code } from "@connectrpc/connect";
import {
  openSession,
  RequestError,
  RuntimeError,
  SESSION_RESET_TEXT,
  SessionResetError,
  STALE_GENERATION_TEXT,
  StaleGenerationError,
  type CodeModeSession,
  type ToolCallContext,
  type WaitOutcome,
} from "../src/index.js";
import { deferred, TestHost, transports, type TransportCase } from "./host.js";

/** The texts of an outcome's content items. */
function texts(o: WaitOutcome): string[] {
  return o.contentItems.flatMap((i) => (i.type === "input_text" ? [i.text] : []));
}

const timeout = 120_000;

for (const tc of transports) {
  describe(tc.name, { timeout }, () => {
    let host: TestHost;
    before(async () => {
      host = await TestHost.start();
    });
    after(async () => {
      assert.equal(await host.stop(), 0, "the host drains and exits 0 on SIGTERM");
    });

    /** Runs fn on a fresh session of the shared host, closing it (and its connections) after. */
    async function withSession(fn: (s: CodeModeSession) => Promise<void>, options: { serverTruncation?: boolean } = {}): Promise<void> {
      const c = tc.make(host.url);
      const s = await openSession({ transport: c.transport, ...options });
      try {
        await fn(s);
      } finally {
        await s.close();
        c.close();
      }
    }

    test("a cell calls a tool registered in TypeScript and gets its result", () =>
      withSession(async (s) => {
        const calls: { input: unknown; ctx: ToolCallContext }[] = [];
        s.registerTool("echo", async (input, ctx) => {
          calls.push({ input, ctx });
          return { got: input, cell: ctx.cellId };
        });
        const o = await s.execute(`const r = await tools.echo({ x: 1 }); text(JSON.stringify(r));`);
        assert.equal(o.kind, "result");
        assert.equal(o.kind === "result" ? o.errorText : "", undefined);
        assert.deepEqual(texts(o), [JSON.stringify({ got: { x: 1 }, cell: o.cellId })]);
        assert.equal(calls.length, 1);
        const ctx = calls[0]!.ctx;
        assert.deepEqual(ctx.toolName, { name: "echo" });
        assert.equal(ctx.runtimeToolCallId, "tool-1");
        assert.equal(ctx.sequence, 1n);
        // The call's signal is released once its completion was acknowledged, which can come after
        // the cell's outcome (the outcome travels on the Execute stream, the acknowledgement is the
        // CompleteToolCall response): wait for the event rather than read the flag.
        if (!ctx.signal.aborted) {
          await new Promise((released) => ctx.signal.addEventListener("abort", released, { once: true }));
        }
        assert.equal(ctx.signal.aborted, true, "a completed call's signal is released");
        assert.equal(s.generation, 1);
        assert.equal(s.acknowledgedNotifications, true, "the host confirms the acknowledgements header");
      }));

    test("Promise.all of several calls runs them at once", () =>
      withSession(async (s) => {
        // Every call waits until all five arrived: calls run one at a time would never finish.
        const all = deferred();
        let arrived = 0;
        s.registerTool("double", async (input) => {
          if (++arrived === 5) {
            all.resolve();
          }
          await all.promise;
          return (input as { i: number }).i * 2;
        });
        const o = await s.execute(`const r = await Promise.all([1, 2, 3, 4, 5].map((i) => tools.double({ i }))); text(r.join(","));`);
        assert.equal(o.kind, "result");
        assert.deepEqual(texts(o), ["2,4,6,8,10"]);
      }));

    test("a tool that throws rejects the cell's promise with the error's text", () =>
      withSession(async (s) => {
        s.registerTool("fail", () => {
          throw new Error("boom: the tool failed");
        });
        const caught = await s.execute(`try { await tools.fail({}); text("resolved"); } catch (e) { text("caught " + e); }`);
        assert.deepEqual(texts(caught), ["caught boom: the tool failed"]);
        const uncaught = await s.execute(`await tools.fail();`);
        assert.equal(uncaught.kind, "result");
        assert.equal(uncaught.kind === "result" ? uncaught.errorText : undefined, "boom: the tool failed");
      }));

    test("notifications arrive as events before the cell's result, then the cell closes", () =>
      withSession(async (s) => {
        const seen: { text: string; callId: string; cellId: string }[] = [];
        s.on("notification", async (n) => {
          seen.push({ text: n.text, callId: n.callId, cellId: n.cellId });
        });
        const closed = deferred<string>();
        s.on("cellClosed", (e) => closed.resolve(e.cellId));
        const o = await s.execute(`notify("hello"); notify("world"); text("done");`, { toolCallId: "call-notify" });
        assert.deepEqual(texts(o), ["done"]);
        assert.deepEqual(seen, [
          { text: "hello", callId: "call-notify", cellId: o.cellId },
          { text: "world", callId: "call-notify", cellId: o.cellId },
        ]);
        assert.equal(await closed.promise, o.cellId);
      }));

    test("a yielded cell keeps running; wait returns its new output, then the cell is missing", () =>
      withSession(async (s) => {
        const gate = deferred<string>();
        s.registerTool("gate", () => gate.promise);
        const first = await s.execute(`text("before"); yield_control(); text(await tools.gate()); text("after");`, { yieldTimeMs: 60_000 });
        assert.equal(first.kind, "yielded");
        assert.deepEqual(texts(first), ["before"]);
        gate.resolve("opened");
        const second = await s.wait(first.cellId, { yieldTimeMs: 60_000 });
        assert.equal(second.kind, "result");
        assert.deepEqual(texts(second), ["opened", "after"]);
        const third = await s.wait(first.cellId);
        assert.equal(third.kind, "missing");
        assert.equal(third.kind === "missing" ? third.errorText : "", `exec cell ${first.cellId} not found`);
      }));

    test("an aborted wait is cancelled on the host, and the next wait observes the cell", () =>
      withSession(async (s) => {
        const gate = deferred<string>();
        s.registerTool("gate", () => gate.promise);
        const first = await s.execute(`text("a"); yield_control(); await tools.gate(); text("b");`, { yieldTimeMs: 60_000 });
        assert.equal(first.kind, "yielded");
        const abort = new AbortController();
        const waiting = s.wait(first.cellId, { yieldTimeMs: 60_000, signal: abort.signal });
        abort.abort(new Error("the caller gave up"));
        await assert.rejects(waiting, { message: "the caller gave up" });
        gate.resolve("go");
        const next = await s.wait(first.cellId, { yieldTimeMs: 60_000 });
        assert.equal(next.kind, "result");
        assert.deepEqual(texts(next), ["b"]);
      }));

    test("a second concurrent wait is refused with the runtime's text", () =>
      withSession(async (s) => {
        const gate = deferred<string>();
        const waitingOnGate = deferred();
        s.registerTool("gate", () => {
          waitingOnGate.resolve();
          return gate.promise;
        });
        const started = await s.start(`yield_control(); await tools.gate();`, { yieldTimeMs: 60_000 });
        assert.equal((await started.outcome).kind, "yielded");
        await waitingOnGate.promise;
        const observing = s.wait(started.cellId, { yieldTimeMs: 60_000 });
        // The first wait may reach the host after the second; retry until the host refuses one.
        let refusal: unknown;
        for (let i = 0; i < 100 && refusal === undefined; i++) {
          try {
            await s.wait(started.cellId, { yieldTimeMs: 0 });
          } catch (e) {
            refusal = e;
          }
        }
        assert.ok(refusal instanceof RuntimeError, `expected a RuntimeError, got ${String(refusal)}`);
        assert.equal(refusal.message, `exec cell ${started.cellId} already has an active observer`);
        gate.resolve("done");
        assert.equal((await observing).kind, "result");
      }));

    test("terminate stops a cell looping forever", () =>
      withSession(async (s) => {
        const cell = await s.start(`text("spinning"); while (true) {}`, { yieldTimeMs: 60_000 });
        const stopped = await s.terminate(cell.cellId);
        assert.equal(stopped.kind, "terminated");
        assert.equal(stopped.cellId, cell.cellId);
        assert.equal((await cell.outcome).kind, "terminated");
        const after = await s.wait(cell.cellId);
        assert.equal(after.kind, "missing");
      }));

    test("aborting execute terminates the admitted cell", () =>
      withSession(async (s) => {
        const running = deferred<string>();
        s.registerTool("started", (_input, ctx) => {
          running.resolve(ctx.cellId);
          return null;
        });
        const abort = new AbortController();
        const executing = s.execute(`await tools.started(); while (true) {}`, { yieldTimeMs: 60_000, signal: abort.signal });
        const cellId = await running.promise;
        abort.abort(new Error("stop it"));
        await assert.rejects(executing, { message: "stop it" });
        const after = await s.wait(cellId);
        assert.equal(after.kind, "missing");
      }));

    test("yieldNow ends an execute's and a wait's observation at once; the cell keeps running", () =>
      withSession(async (s) => {
        // hold(n) fires yield signal n, then blocks the cell until the test releases it. The yield
        // times are far beyond the test's timeout: only the early yield can end these observations.
        const signals = [new AbortController(), new AbortController()];
        const releases = [deferred(), deferred()];
        s.registerTool("hold", async (input) => {
          const n = input as number;
          signals[n]!.abort();
          await releases[n]!.promise;
          return null;
        });
        const hour = 3_600_000;
        const first = await s.execute(`text("one"); await tools.hold(0); text("two"); await tools.hold(1); text("three");`, {
          yieldTimeMs: hour,
          yieldNow: signals[0]!.signal,
        });
        assert.equal(first.kind, "yielded");
        assert.deepEqual(texts(first), ["one"]);
        // The wait is on its way (or already waiting on the host) when hold(1) fires its signal.
        const waiting = s.wait(first.cellId, { yieldTimeMs: hour, yieldNow: signals[1]!.signal });
        releases[0]!.resolve();
        const second = await waiting;
        assert.equal(second.kind, "yielded");
        assert.deepEqual(texts(second), ["two"]);
        // A signal aborted before the wait takes what is there without waiting: nothing new yet.
        const third = await s.wait(first.cellId, { yieldTimeMs: hour, yieldNow: AbortSignal.abort() });
        assert.equal(third.kind, "yielded");
        assert.deepEqual(texts(third), []);
        releases[1]!.resolve();
        const last = await s.wait(first.cellId, { yieldTimeMs: hour });
        assert.equal(last.kind, "result");
        assert.deepEqual(texts(last), ["three"]);
      }));

    test("serverTruncation: the host truncates execute, wait and terminate outcomes to their budgets in Codex's format", () =>
      withSession(
        async (s) => {
          assert.equal(s.serverTruncation, true, "the host confirms it truncates");
          // Codex's format, as its own host writes it (pkg/grpc/grpchost's TestServerTruncationOverGRPC).
          const truncated = (c: string): string =>
            `Warning: truncated output (original token count: 1001)\nTotal output lines: 1\n\n${c.repeat(20)}…991 tokens truncated…${c.repeat(17)}END`;
          const executed = await s.execute(`text("x".repeat(4000) + "END")`, { maxOutputTokens: 10 });
          assert.equal(executed.kind, "result");
          assert.deepEqual(texts(executed), [truncated("x")]);

          const yielded = await s.execute(`text("y"); yield_control(); text("w".repeat(4000) + "END")`, { yieldTimeMs: 60_000, maxOutputTokens: 10 });
          assert.equal(yielded.kind, "yielded");
          assert.deepEqual(texts(yielded), ["y"]);
          const waited = await s.wait(yielded.cellId, { yieldTimeMs: 60_000, maxOutputTokens: 10 });
          assert.equal(waited.kind, "result");
          assert.deepEqual(texts(waited), [truncated("w")]);

          // The tool call proves the text is written: terminating earlier could end the cell first.
          const reached = deferred();
          s.registerTool("gate", () => {
            reached.resolve();
            return new Promise(() => {});
          });
          const cell = await s.start(`text("q".repeat(800)); await tools.gate();`, { yieldTimeMs: 60_000 });
          await reached.promise;
          const stopped = await s.terminate(cell.cellId, { maxOutputTokens: 3 });
          assert.equal(stopped.kind, "terminated");
          assert.deepEqual(texts(stopped), ["Warning: truncated output (original token count: 200)\nTotal output lines: 1\n\nqqqqqq…197 tokens truncated…qqqqqq"]);
        },
        { serverTruncation: true },
      ));

    test("without serverTruncation outputs come whole, whatever the budget", () =>
      withSession(async (s) => {
        assert.equal(s.serverTruncation, false);
        const o = await s.execute(`text("x".repeat(4000) + "END")`, { maxOutputTokens: 10 });
        assert.deepEqual(texts(o), ["x".repeat(4000) + "END"]);
      }));

    test("stored values carry across the cells of a session", () =>
      withSession(async (s) => {
        const one = await s.execute(`store("k", { a: [1, 2] }); text("stored");`);
        assert.deepEqual(texts(one), ["stored"]);
        const two = await s.execute(`text(JSON.stringify(load("k")));`);
        assert.deepEqual(texts(two), ['{"a":[1,2]}']);
        assert.notEqual(one.cellId, two.cellId);
      }));
  });
}

/** Restarts of the host: the session opens the next generation and refuses the old one's IDs. */
async function restartCase(tc: TransportCase): Promise<void> {
  let host = await TestHost.start();
  const c = tc.make(host.url);
  const s = await openSession({ transport: c.transport });
  try {
    const lost = deferred<{ generation: number; error: Error }>();
    s.on("sessionLost", (e) => lost.resolve(e));
    const closed: string[] = [];
    s.on("cellClosed", (e) => {
      closed.push(e.cellId);
    });

    const first = await s.execute(`store("k", 1); text("one");`);
    assert.equal(first.cellId, "1");
    const running = await s.start(`yield_control(); while (true) {}`, { yieldTimeMs: 60_000 });
    assert.equal(running.cellId, "2");
    assert.equal((await running.outcome).kind, "yielded");

    const address = host.address;
    assert.equal(await host.stop(), 0);
    const loss = await lost.promise;
    assert.equal(loss.generation, 1);
    assert.ok(closed.includes("2"), "the lost generation's live cell is reported closed");
    host = await TestHost.start(address);

    const second = await s.execute(`text(String(load("k")));`);
    assert.equal(second.cellId, "g2:1");
    assert.deepEqual(texts(second), ["undefined"], "stored values of the lost generation are gone");
    assert.equal(s.generation, 2);
    const third = await s.execute(`text("three");`);
    assert.equal(third.cellId, "g2:2");

    for (const stale of ["1", "2", "g1:1", "g3:1"]) {
      await assert.rejects(s.wait(stale), (e: unknown) => e instanceof StaleGenerationError && e.message === STALE_GENERATION_TEXT);
      await assert.rejects(s.terminate(stale), (e: unknown) => e instanceof StaleGenerationError && e.message === STALE_GENERATION_TEXT);
    }
    const missing = await s.wait("g2:2");
    assert.equal(missing.kind, "missing");
    assert.equal(missing.cellId, "g2:2");
    assert.equal(missing.kind === "missing" ? missing.errorText : "", "exec cell 2 not found");
  } finally {
    await s.close();
    c.close();
    await host.stop();
  }
}

describe("host restarts", { timeout }, () => {
  for (const tc of transports) {
    test(`after a restart cells are g2:1, g2:2 and stale IDs are refused: ${tc.name}`, () => restartCase(tc));
  }
});

/**
 * Per-session routing (docs/protocol/grpc.md#routing) behind the test host's sticky front: the session sends its
 * host's route on every request, and when its host is taken out, the next request reaches a host
 * that says the route was lost: that request fails with the reset (no replay), the lost cells
 * close, and the next cell runs as g2:1 without the lost stored values.
 */
async function routeLostCase(tc: TransportCase): Promise<void> {
  const host = await TestHost.start("127.0.0.1:0", 2);
  const c = tc.make(host.url);
  const s = await openSession({ transport: c.transport });
  try {
    const lost = deferred<{ generation: number; error: Error }>();
    s.on("sessionLost", (e) => lost.resolve(e));
    const closed: string[] = [];
    s.on("cellClosed", (e) => {
      closed.push(e.cellId);
    });
    s.registerTool("echo", (input) => input);
    const first = await s.execute(`store("k", 1); text(JSON.stringify(await tools.echo({ a: 1 })));`);
    assert.deepEqual(texts(first), ['{"a":1}']);
    const running = await s.start(`yield_control(); await new Promise(() => {});`, { yieldTimeMs: 60_000 });
    assert.equal(running.cellId, "2");
    assert.equal((await running.outcome).kind, "yielded");

    assert.equal(await host.command("out 0"), "ok");
    await assert.rejects(
      s.execute(`text("never runs")`),
      (e: unknown) => e instanceof SessionResetError && e.message === SESSION_RESET_TEXT && e.message === "Stored values and running cells were lost",
    );
    const loss = await lost.promise;
    assert.equal(loss.generation, 1);
    assert.ok(loss.error instanceof SessionResetError);
    assert.ok(closed.includes("2"), "the lost generation's live cell is reported closed");
    await assert.rejects(s.wait("2"), (e: unknown) => e instanceof StaleGenerationError);

    const next = await s.execute(`text(String(load("k"))); text(JSON.stringify(await tools.echo({ b: 2 })));`);
    assert.equal(next.cellId, "g2:1");
    assert.deepEqual(texts(next), ["undefined", '{"b":2}']);
    assert.equal(s.generation, 2);
    const waited = await s.wait("g2:1");
    assert.equal(waited.kind, "missing");
  } finally {
    await s.close();
    c.close();
    await host.stop();
  }
}

/** OpenSession admission: UNAVAILABLE and RESOURCE_EXHAUSTED are retried, at most 5 attempts; other codes are not. */
async function admissionCase(tc: TransportCase): Promise<void> {
  const host = await TestHost.start("127.0.0.1:0", 2);
  const c = tc.make(host.url);
  let opens = 0;
  const attempts = async (): Promise<number> => {
    const total = Number(await host.command("opens"));
    const n = total - opens;
    opens = total;
    return n;
  };
  try {
    assert.equal(await host.command("refuse 14 8 14 8"), "ok");
    const s = await openSession({ transport: c.transport });
    assert.equal(await attempts(), 5, "four refusals, then the fifth attempt is admitted");
    assert.deepEqual(texts(await s.execute(`text("admitted")`)), ["admitted"]);
    await s.close();

    assert.equal(await host.command("refuse 14 14 14 14 8"), "ok");
    await assert.rejects(openSession({ transport: c.transport }), (e: unknown) => e instanceof RequestError && e.cause.code === Code.ResourceExhausted);
    assert.equal(await attempts(), 5, "five refusals fail the opening with the last one");
    assert.equal(await host.command("refuse 13"), "ok");
    await assert.rejects(openSession({ transport: c.transport }), (e: unknown) => e instanceof RequestError && e.cause.code === Code.Internal);
    assert.equal(await attempts(), 1, "INTERNAL is not retried");
    assert.equal(await host.command("refuse 5"), "ok");
    await assert.rejects(openSession({ transport: c.transport }), (e: unknown) => e instanceof RequestError);
    assert.equal(await attempts(), 1, "NOT_FOUND is not retried");
  } finally {
    c.close();
    await host.stop();
  }
}

describe("routing behind a sticky front", { timeout }, () => {
  for (const tc of transports) {
    test(`a lost route resets the session to g2: without replaying the request: ${tc.name}`, () => routeLostCase(tc));
    test(`OpenSession admission is retried on UNAVAILABLE and RESOURCE_EXHAUSTED only: ${tc.name}`, () => admissionCase(tc));
  }
});
