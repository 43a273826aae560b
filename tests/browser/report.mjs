// Opens a promptexec HTML report from disk in headless Chromium and prints what it
// found as one JSON document on stdout.
//
//   node tests/browser/report.mjs inspect FILE [--open ID] [--shots DIR/NAME] [--hash H]
//     (opened at FILE#H) every row id, the filters checked, the text of row ID's
//     detail once opened, every request other than
//     the file itself (data: URLs aside), console errors and page errors; with --shots,
//     screenshots NAME-{wide,phone,phone-top}-{light,dark}.png
//   node tests/browser/report.mjs time ROUNDS FILE...
//     the median time to first render of each file (ms from navigation start to the
//     page's `first-render` mark), the files opened in turn, round after round
//
// The browser is launched by ./chromium.mjs (which names its environment).

import path from "node:path";
import { pathToFileURL } from "node:url";

import { launch } from "./chromium.mjs";

async function inspect(file, open, shots, hash) {
  const url = pathToFileURL(path.resolve(file)).href;
  const browser = await launch();
  const page = await browser.context.newPage();
  const requests = [];
  const consoleErrors = [];
  const pageErrors = [];
  page.on("request", (request) => {
    const target = request.url();
    if (target !== url && !target.startsWith("data:")) requests.push(target);
  });
  page.on("console", (message) => { if (message.type() === "error") consoleErrors.push(message.text()); });
  page.on("pageerror", (error) => pageErrors.push(String(error)));
  await page.goto(hash ? url + "#" + hash : url);
  await page.waitForFunction(() => document.body.dataset.rendered === "1");
  await page.waitForFunction(() => !document.body.dataset.rows || document.body.dataset.rows === "complete");
  const rows = await page.$$eval("[data-row-id]", (nodes) => nodes.map((n) => n.getAttribute("data-row-id")));
  // Elements the data could only have made by being read as markup.
  const markup = await page.$$eval("#app img, #app b, #app script, #app iframe", (nodes) => nodes.length);
  const result = { rows, title: await page.title(), markup, requests, consoleErrors, pageErrors };
  result.checked = await page.$$eval(".filters input:checked", (nodes) => nodes.map((n) => n.id));
  if (open) {
    const row = page.locator(`[data-row-id="${open.replace(/["\\]/g, "\\$&")}"]`);
    await row.locator(".row-head").click();
    await row.locator(".detail").waitFor();
    result.detail = await row.locator(".detail").innerText();
  }
  if (shots) {
    for (const scheme of ["light", "dark"]) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.setViewportSize({ width: 1280, height: 900 });
      await page.screenshot({ path: `${shots}-wide-${scheme}.png`, fullPage: true });
      await page.setViewportSize({ width: 390, height: 844 });
      await page.screenshot({ path: `${shots}-phone-${scheme}.png`, fullPage: true });
      await page.screenshot({ path: `${shots}-phone-top-${scheme}.png` });
    }
  }
  await browser.close();
  return result;
}

async function time(rounds, files) {
  const browser = await launch();
  const samples = files.map(() => []);
  for (let round = 0; round < rounds; round++) {
    for (const [i, file] of files.entries()) {
      const page = await browser.context.newPage();
      await page.goto(pathToFileURL(path.resolve(file)).href);
      await page.waitForFunction(() => document.body.dataset.rendered === "1");
      samples[i].push(await page.evaluate(() => performance.getEntriesByName("first-render")[0].startTime));
      await page.close();
    }
  }
  await browser.close();
  const median = (list) => { const s = [...list].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
  return files.map((file, i) => ({ file, median_ms: median(samples[i]), samples_ms: samples[i] }));
}

const [mode, ...rest] = process.argv.slice(2);
const option = (name) => { const at = rest.indexOf(name); return at < 0 ? null : rest.splice(at, 2)[1]; };
let out;
if (mode === "inspect") {
  const open = option("--open");
  const shots = option("--shots");
  const hash = option("--hash");
  out = await inspect(rest[0], open, shots, hash);
} else if (mode === "time") {
  out = await time(Number(rest[0]), rest.slice(1));
} else {
  console.error("usage: report.mjs inspect FILE [--open ID] [--shots PREFIX] [--hash H] | time ROUNDS FILE...");
  process.exit(2);
}
console.log(JSON.stringify(out, null, 2));
