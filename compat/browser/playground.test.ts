// The playground in a real browser: builds nothing itself (tools/test-browser.sh built the host
// binary into .cache/codemode-host and installed Chromium), starts the host on a free port, opens
// http://ADDR/ in headless Chromium over HTTP/1.1 (Chromium's only protocol for cleartext http://)
// and drives the page as a user would: cells whose tools run in the page, Wait on a yielded cell,
// Terminate on an endless one. Assertions read the DOM; every wait is for a selector, never for a
// fixed time. A screenshot per step goes to .cache/browser/.
import assert from "node:assert/strict";
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type Browser, type Page } from "playwright-core";
import { artifacts, launchChromium, openPage, startHost, stopHosts } from "./harness.js";



let baseUrl: string;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];

before(async () => {
  baseUrl = await startHost();
  browser = await launchChromium();
  page = await openPage(browser, { width: 1400, height: 1000 }, pageErrors);
  mkdirSync(artifacts, { recursive: true });
});

after(async () => {
  await browser?.close();
  await stopHosts();
});

/** Waits until the cell's state is want; on a timeout the error shows the page's state and output. */
async function awaitState(want: string): Promise<void> {
  try {
    await page.waitForSelector(`#state[data-state="${want}"]`);
  } catch (e) {
    const shown = await page.evaluate(() => ({
      state: document.querySelector("#state")?.textContent,
      output: document.querySelector("#output")?.textContent,
    }));
    throw new Error(`state ${JSON.stringify(shown.state)}, want ${want}; output:\n${shown.output}\n(${(e as Error).message})`);
  }
}

const output = (): Promise<string> => page.locator("#output").innerText();

/** The tool-call log: one [tool, status, input, result] per row. */
async function calls(): Promise<string[][]> {
  return page.$$eval("#calls tbody tr", (rows) =>
    rows.map((r) => [r.getAttribute("data-tool") ?? "", r.getAttribute("data-status") ?? "", r.children[3]?.textContent ?? "", r.children[4]?.textContent ?? ""]),
  );
}

async function screenshot(name: string): Promise<void> {
  await page.screenshot({ path: join(artifacts, `playground-${name}.png`), fullPage: true });
}

test("the page loads from the host and opens a session over Connect", async () => {
  const response = await page.goto(baseUrl + "/");
  assert.equal(response?.status(), 200);
  assert.equal(response?.headers()["content-type"], "text/html; charset=utf-8");
  await page.waitForSelector('#connection[data-state="connected"]');
  assert.equal(await page.locator("#run").isEnabled(), true);
  const listed = await page.locator("#tools li code").allInnerTexts();
  assert.deepEqual(listed, ["tools.add", "tools.upper", "tools.fail", "tools.slow", "tools.echo"]);
});

/** The editable content of the cell's CodeMirror editor (Playwright's selectors pierce its shadow root). */
const editor = "#source .cm-content";

/**
 * Replaces the text of the CodeMirror editor at selector as a user would: select all, Delete,
 * then type (one text insertion, as an input method does). Typing over a selection of
 * highlighted lines would let Chromium's own editing merge them with an inline style, which the
 * page's policy refuses (a console error, harmless: CodeMirror redraws the lines), and the last
 * test asserts that the console stayed clean.
 */
async function setEditor(selector: string, text: string): Promise<void> {
  await page.click(selector);
  await page.keyboard.press("ControlOrMeta+A");
  await page.keyboard.press("Delete");
  await page.keyboard.insertText(text);
  assert.equal(await page.locator(selector).innerText(), text, `the text of ${selector}`);
}

test("the cell editor is CodeMirror and the page shows the exec description for its tools", async () => {
  await page.waitForSelector(editor);
  assert.match(await page.locator(editor).innerText(), /^notify\("adding three pairs"\);/);
  assert.ok((await page.locator("#source .cm-lineNumbers .cm-gutterElement").count()) > 5, "the editor shows line numbers");
  await page.click("#description-toggle");
  await page.waitForSelector('#description[data-state="done"]');
  const description = await page.locator("#description").innerText();
  assert.match(description, /declare const tools: \{ add\(args: \{ a: number; b: number; \}\): Promise<unknown>; \};/);
  assert.match(description, /Upper-cases a text/);
  assert.match(description, /yield_control/);
  await screenshot("description");
});

test("a cell calls the page's tools with Promise.all and sees a tool's exception", async () => {
  await page.selectOption("#example", "Promise.all and a tool that throws");
  await page.click("#run");
  await awaitState("completed");
  const text = await output();
  assert.match(text, /── cell 1: Script completed/);
  assert.match(text, /^sums: 3 7 11$/m);
  assert.match(text, /^SHOUT$/m);
  assert.match(text, /^fail rejected: .*no luck$/m);
  const log = await calls();
  assert.deepEqual(
    log.map(([tool, status]) => `${tool} ${status}`),
    ["add ok", "add ok", "add ok", "upper ok", "fail error"],
  );
  assert.deepEqual(log.slice(0, 3).map((row) => row[3]).sort(), ['{"sum":11}', '{"sum":3}', '{"sum":7}']);
  assert.equal(log[4]?.[3], "threw: no luck");
  assert.deepEqual(await page.locator("#notifications li").allInnerTexts(), ["cell 1: adding three pairs"]);
  await screenshot("promise-all");
});

test("a cell that yields is followed with Wait", async () => {
  await page.fill("#yield-ms", "60000"); // long: the observations end at yield_control() and at the cell's end only
  await setEditor(editor, `text("first part");\nyield_control();\nconst r = await tools.slow({ ms: 50 });\ntext("second part after " + r.waited + " ms");`);
  await page.click("#run");
  await awaitState("yielded");
  assert.equal(await page.locator("#cell").innerText(), "2");
  let text = await output();
  assert.match(text, /── cell 2: Script running with cell ID 2.*\nfirst part\n/);
  assert.doesNotMatch(text, /second part/);
  assert.equal(await page.locator("#wait").isEnabled(), true);
  await screenshot("yielded");
  await page.click("#wait");
  await awaitState("completed");
  text = await output();
  assert.match(text, /── cell 2: Script completed.*\nsecond part after 50 ms\n/);
  assert.deepEqual((await calls()).at(-1)?.slice(0, 2), ["slow", "ok"]);
  assert.equal(await page.locator("#wait").isEnabled(), false);
});

test("an endless cell is stopped with Terminate", async () => {
  await setEditor(editor, `text("spinning");\nwhile (true) {}`);
  await page.click("#run");
  await page.waitForSelector("#terminate:enabled");
  assert.equal(await page.locator("#cell").innerText(), "3");
  await page.click("#terminate");
  await awaitState("terminated");
  const text = await output();
  assert.match(text, /── cell 3: Script terminated/);
  assert.equal(await page.locator("#terminate").isEnabled(), false);
  // Run comes back once the cell's execute has ended too: the terminate's answer may come first.
  await page.waitForSelector("#run:enabled");
  await screenshot("terminated");
});

/** Runs the page's round-trip measurement and returns its line for bench.txt. */
async function measure(protocol: string): Promise<string> {
  await page.fill("#bench-n", "500");
  await page.click("#bench");
  await page.waitForSelector('#bench-result:is([data-state="done"], [data-state="error"])', { timeout: 600_000 });
  const result = await page.locator("#bench-result").innerText();
  assert.match(result, /^499 round trips: median \d+ µs, mean \d+ µs, p90 \d+ µs, min \d+ µs$/);
  assert.equal(await page.locator("#run").isEnabled(), true);
  return `${result} (Chromium ${browser.version()}, ${protocol} over HTTP/1.1, ${new Date().toISOString()})`;
}

test("the page measures a tool round trip (printed, and saved in .cache/browser/bench.txt)", async (t) => {
  const line = await measure("Connect");
  writeFileSync(join(artifacts, "bench.txt"), line + "\n");
  t.diagnostic(line);
});

test("the user writes a tool in TypeScript in the page; a cell calls it, and code that does not parse is refused", async () => {
  // The form starts with a working example in TypeScript: word_count, its types stripped, run in
  // a Web Worker of its own.
  assert.match(await page.locator("#new-tool-code .cm-content").innerText(), /\{ text \}: \{ text: string \}/);
  await page.click("#add-tool");
  await page.waitForSelector('#add-tool-status[data-state="done"]');
  assert.equal(await page.locator("#add-tool-status").innerText(), "added tools.word_count");
  assert.deepEqual((await page.locator("#tools li code").allInnerTexts()).at(-1), "tools.word_count");
  await page.waitForFunction(() => document.querySelector("#description")?.textContent?.includes("word_count(args: { text: string; })"));

  await setEditor(editor, `const counts = await Promise.all(["a b c", "one", ""].map((text) => tools.word_count({ text })));\ntext(counts.map((c) => c.words).join(","));`);
  await page.click("#run");
  await awaitState("completed");
  assert.match(await output(), /^3,1,0$/m);
  assert.deepEqual(
    (await calls()).slice(-3).map(([tool, status, , result]) => `${tool} ${status} ${result}`).sort(), // the calls of Promise.all may arrive in any order
    ['word_count ok {"words":0}', 'word_count ok {"words":1}', 'word_count ok {"words":3}'],
  );

  await page.fill("#new-tool-name", "broken");
  await setEditor("#new-tool-code .cm-content", "async (input) => {");
  await page.click("#add-tool");
  await page.waitForSelector('#add-tool-status[data-state="error"]');
  assert.match(await page.locator("#add-tool-status").innerText(), /SyntaxError|Unexpected/);
  await page.fill("#new-tool-name", "word_count");
  await page.click("#add-tool");
  await page.waitForSelector('#add-tool-status:has-text("already has a tool named word_count")');
  assert.equal(await page.locator("#tools li code").count(), 6, "the refused tools were not added");
  await screenshot("user-tool");
});

test("a script error is shown as Script failed, and nothing went wrong in the page", async () => {
  await setEditor(editor, `text("before the error");\nthrow new Error("boom");`);
  await page.click("#run");
  await awaitState("failed");
  const cell = await page.locator("#cell").innerText(); // the measurement's and the user tool's cells came before it
  assert.equal(cell, "6");
  const text = await output();
  assert.match(text, new RegExp(`── cell ${cell}: Script failed.*\\nbefore the error\\nError: boom\\n`));
  await screenshot("final");
  assert.deepEqual(pageErrors, []);
});

test("the page's tools check their inputs against their schemas: the host forwards them as written", async () => {
  await setEditor(editor, `for (const input of [{ a: 1 }, { a: "one", b: 2 }, { a: 1, b: 2 }]) {
  try { text(JSON.stringify(await tools.add(input))) } catch (e) { text("refused: " + e) }
}`);
  await page.click("#run");
  await awaitState("completed");
  const text = await output();
  assert.match(text, /^refused: tool `add` input does not match its input_schema: at '\/': missing properties 'b'$/m);
  assert.match(text, /^refused: tool `add` input does not match its input_schema: at '\/a': got string, want number$/m);
  assert.match(text, /^\{"sum":3\}$/m);
  const log = (await calls()).slice(-3);
  assert.deepEqual(log.map(([tool, status, input]) => `${tool} ${status} ${input}`), [
    'add error {"a":1}',
    'add error {"a":"one","b":2}',
    'add ok {"a":1,"b":2}',
  ]);
  assert.deepEqual(pageErrors, []);
});

test("the page reconnects over gRPC-Web and measures the round trip there too", async (t) => {
  await page.selectOption("#protocol", "grpc-web");
  await page.waitForSelector('#connection[data-state="connected"]');
  assert.match(await page.locator("#connection").innerText(), /over gRPC-Web$/);
  await setEditor(editor, `text(await tools.upper({ text: "over grpc-web" }));`);
  await page.click("#run");
  await awaitState("completed");
  assert.equal(await page.locator("#cell").innerText(), "1", "a new session numbers its cells from 1");
  assert.match(await output(), /^OVER GRPC-WEB$/m);
  const line = await measure("gRPC-Web");
  appendFileSync(join(artifacts, "bench.txt"), line + "\n");
  t.diagnostic(line);
  await screenshot("grpc-web");
  assert.deepEqual(pageErrors, []);
});
