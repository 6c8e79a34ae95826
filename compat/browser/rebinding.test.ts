// DNS rebinding in a real browser: a web page whose own name (evil.example) comes to resolve to
// 127.0.0.1 calls the loopback host as its own origin. Chromium is told so with
// --host-resolver-rules, the state a rebinding attack reaches: the page's origin is
// http://evil.example:PORT and its requests reach codemode-host's listener, with
// "Host: evil.example:PORT". The host (no token) must refuse them — the page, a session, a unary
// call — and run nothing; the same script from the host's own loopback origin opens a session,
// so the refusal is what stops it. tools/test-browser.sh builds the host and installs Chromium.
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type Browser, type Page } from "playwright-core";
import { launchChromium, patience, startHost, stopHosts } from "./harness.js";



let port: string;
let browser: Browser;
let page: Page;
let marker: string;

/** A manifest whose one tool, whoami, records in marker that it ran on the host's machine. */
function writeManifest(): string {
  const dir = mkdtempSync(join(tmpdir(), "codemode-rebinding-"));
  marker = join(dir, "ran");
  const manifest = join(dir, "tools.json");
  writeFileSync(manifest, JSON.stringify({
    tools: [{ name: "whoami", description: "Runs id -un on the host.", command: ["sh", "-c", `id -un >> ${marker} && cat`], input_schema: { type: "object" } }],
  }));
  return manifest;
}

before(async () => {
  port = new URL(await startHost("--tools", writeManifest())).port;
  browser = await launchChromium("--host-resolver-rules=MAP evil.example 127.0.0.1");
  page = await browser.newPage();
  page.setDefaultTimeout(patience);
});

after(async () => {
  await browser?.close();
  await stopHosts();
});

/** What the attacking script saw of one request. */
interface Seen {
  status: number;
  body: string;
}

/**
 * The attack, run as the page's own script: a unary Connect call, then OpenSession and, if a
 * session opens, an Execute whose cell calls the host's whoami tool. Every request is
 * same-origin for the browser.
 */
async function attack(): Promise<{ unary: Seen; open: Seen; execute?: Seen }> {
  return page.evaluate(async () => {
    const service = "/codex.code_mode.v1.CodeModeHost/";
    const envelope = (message: unknown): Uint8Array<ArrayBuffer> => {
      const json = new TextEncoder().encode(JSON.stringify(message));
      const out = new Uint8Array(5 + json.length);
      new DataView(out.buffer).setUint32(1, json.length);
      out.set(json, 5);
      return out;
    };
    /**
     * Reads a Connect stream's envelopes until one holds want (or the stream ends), and leaves
     * the stream open: the session lives as long as its OpenSession stream.
     */
    const readUntil = async (response: Response, want: string): Promise<string> => {
      const reader = response.body!.getReader();
      let text = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) {
          return text;
        }
        text += new TextDecoder().decode(value);
        if (text.includes(want)) {
          return text;
        }
      }
    };
    const unaryResponse = await fetch(service + "CloseSession", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ sessionId: "00000000-0000-4000-8000-000000000000" }) });
    const unary = { status: unaryResponse.status, body: await unaryResponse.text() };
    const streaming = { "content-type": "application/connect+json" };
    const openResponse = await fetch(service + "OpenSession", { method: "POST", headers: streaming, body: envelope({}) });
    const opened = await readUntil(openResponse, "sessionId");
    const open = { status: openResponse.status, body: opened };
    const session = /"sessionId":"([^"]+)"/.exec(opened)?.[1];
    if (session === undefined) {
      return { unary, open };
    }
    const executeResponse = await fetch(service + "Execute", {
      method: "POST",
      headers: streaming,
      body: envelope({ sessionId: session, executionId: "attack-1", toolCallId: "call-1", source: "text(JSON.stringify(await tools.whoami({})))", yieldTimeMs: "600000" }),
    });
    return { unary, open, execute: { status: executeResponse.status, body: await readUntil(executeResponse, "outcome") } };
  });
}

test("the playground under a rebound name is refused with 403", async () => {
  const response = await page.goto(`http://evil.example:${port}/`);
  assert.equal(response?.status(), 403);
  assert.match(await response!.text(), new RegExp(`^Host "evil.example:${port}" is not a loopback name`));
});

test("a rebound page's script can neither call the host nor open a session, and no tool runs", async () => {
  // The probe answers under any name (it reveals nothing): the page now has the origin
  // http://evil.example:PORT, served from 127.0.0.1.
  const probe = await page.goto(`http://evil.example:${port}/healthz`);
  assert.equal(probe?.status(), 200);
  const seen = await attack();
  assert.equal(seen.unary.status, 403, seen.unary.body);
  assert.equal(JSON.parse(seen.unary.body).code, "permission_denied");
  assert.match(JSON.parse(seen.unary.body).message, new RegExp(`^Host "evil.example:${port}" is not a loopback name`));
  assert.doesNotMatch(seen.open.body, /sessionId/);
  assert.match(seen.open.body, /permission_denied/);
  assert.equal(seen.execute, undefined);
  assert.equal(existsSync(marker), false, "the host's tool ran");
});

test("the same script from the host's own loopback origin runs the tool: the Host check is what stopped it", async () => {
  await page.goto(`http://127.0.0.1:${port}/healthz`);
  const seen = await attack();
  assert.equal(seen.unary.status, 404, seen.unary.body); // served: the session is unknown
  assert.match(seen.open.body, /"sessionId":"/);
  assert.match(seen.execute?.body ?? "", /outcome/);
  assert.match(readFileSync(marker, "utf8"), /\S/);
});
