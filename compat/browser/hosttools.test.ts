// The playground beside a host with tools of its own (codemode-host --tools FILE), in a real
// browser: the page lists the host's tools, labelled as run by the host, and stops offering its
// own tool of the same name (the host refuses a cell whose client tool has a host tool's name); a
// cell calls the host's tools and the page's; the call log lists only the page's calls and says
// why (the host runs its tools and does not report their calls to the client). Without --tools
// the page says the host has none. tools/test-browser.sh builds the host and installs Chromium;
// every wait is for a selector or a page condition, never for a fixed time.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type Browser, type Page } from "playwright-core";
import { artifacts, launchChromium, openPage, startHost, stopHosts } from "./harness.js";



let browser: Browser;
let page: Page;
const pageErrors: string[] = [];

/**
 * A manifest of two host tools: host_upper upper-cases its input's JSON on the host (tr), and
 * echo, whose name is also a tool of the page, answers "from the host".
 */
function writeManifest(): string {
  const dir = mkdtempSync(join(tmpdir(), "codemode-hosttools-"));
  const manifest = join(dir, "tools.json");
  const env = { pass: ["PATH"] };
  writeFileSync(
    manifest,
    JSON.stringify({
      tools: [
        { name: "host_upper", description: "Upper-cases its input on the host.", command: ["sh", "-c", "tr a-z A-Z"], env, input_schema: { type: "object" } },
        { name: "echo", description: "Answers from the host.", command: ["sh", "-c", `cat >/dev/null; printf '"from the host"'`], env, input_schema: { type: "object" } },
      ],
    }),
  );
  return manifest;
}

before(async () => {
  browser = await launchChromium();
  page = await openPage(browser, { width: 1400, height: 1200 }, pageErrors);
  mkdirSync(artifacts, { recursive: true });
});

after(async () => {
  await browser?.close();
  await stopHosts();
});

async function screenshot(name: string): Promise<void> {
  await page.screenshot({ path: join(artifacts, `hosttools-${name}.png`), fullPage: true });
}

/**
 * Replaces the text of the cell's CodeMirror editor as a user would (see playground.test.ts:
 * one text insertion after select-all and Delete).
 */
async function setSource(text: string): Promise<void> {
  const editor = "#source .cm-content";
  await page.click(editor);
  await page.keyboard.press("ControlOrMeta+A");
  await page.keyboard.press("Delete");
  await page.keyboard.insertText(text);
  assert.equal(await page.locator(editor).innerText(), text);
}

test("the page lists the host's tools, labelled as run by the host, and stops offering its own echo", async () => {
  await page.goto((await startHost("--tools", writeManifest())) + "/");
  await page.waitForSelector('#connection[data-state="connected"]');
  await page.waitForSelector('#host-tools-state[data-state="listed"]');
  assert.deepEqual(await page.locator("#host-tools li code").allInnerTexts(), ["tools.host_upper", "tools.echo"]);
  assert.deepEqual(await page.locator("#host-tools li .by-host").allInnerTexts(), ["run by the host", "run by the host"]);
  assert.match(await page.locator("#host-tools li").first().innerText(), /Upper-cases its input on the host\./);
  assert.match(await page.locator("#host-tools-state").innerText(), /The host runs them on its own machine/);
  // The page's own echo is still listed, struck out: the host's echo is the one cells get.
  assert.deepEqual(await page.locator("#tools li[data-shadowed] code").allInnerTexts(), ["tools.echo"]);
  assert.match(await page.locator("#tools li[data-shadowed]").innerText(), /\(not offered: cells get the host's tools\.echo\)$/);
  await screenshot("listed");
});

test("a cell calls the host's tools and the page's; the call log lists the page's calls and says why", async () => {
  await setSource(`text(JSON.stringify(await tools.host_upper({ text: "hi" })));
text(await tools.echo({}));
text((await tools.add({ a: 1, b: 2 })).sum);`);
  await page.click("#run");
  await page.waitForSelector('#state[data-state="completed"]');
  const output = await page.locator("#output").innerText();
  assert.match(output, /Script completed/);
  assert.match(output, /\{"TEXT":"HI"\}\nfrom the host\n3\n/);
  const logged = await page.$$eval("#calls tbody tr", (rows) => rows.map((r) => r.getAttribute("data-tool")));
  assert.deepEqual(logged, ["add"]);
  assert.equal(await page.locator("#calls-note").isVisible(), true);
  assert.match(await page.locator("#calls-note").innerText(), /Calls of the host's tools \(tools\.host_upper, tools\.echo\) run on the host, which does not report them to the page/);
  await screenshot("called");
});

test("the description covers the page's offered tools and says the host's are shown to a model too", async () => {
  await page.click("#description-toggle");
  await page.waitForSelector('#description[data-state="done"]');
  const description = await page.locator("#description").innerText();
  assert.match(description, /declare const tools: \{ add\(/);
  assert.doesNotMatch(description, /declare const tools: \{ echo\(/);
  assert.match(await page.locator("#description-note").innerText(), /A model is also shown the host's tools \(tools\.host_upper, tools\.echo\)/);
});

test("a tool written in the page cannot take a host tool's name", async () => {
  await page.fill("#new-tool-name", "host_upper");
  await page.click("#add-tool");
  await page.waitForSelector('#add-tool-status[data-state="error"]');
  assert.equal(await page.locator("#add-tool-status").innerText(), "the host has a tool named host_upper");
  assert.deepEqual(pageErrors, []);
});

test("without --tools the page says the host has none of its own", async () => {
  await page.goto((await startHost()) + "/");
  await page.waitForSelector('#connection[data-state="connected"]');
  await page.waitForSelector('#host-tools-state[data-state="none"]');
  assert.match(await page.locator("#host-tools-state").innerText(), /^none: the host was started without a tool manifest/);
  assert.equal(await page.locator("#host-tools li").count(), 0);
  assert.equal(await page.locator("#tools li[data-shadowed]").count(), 0);
  assert.equal(await page.locator("#calls-note").isVisible(), false);
  assert.deepEqual(pageErrors, []);
});
