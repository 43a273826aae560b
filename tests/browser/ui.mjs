// Drives the page of `promptexec ui` in headless Chromium and prints what it found as
// one JSON document on stdout.
//
//   node tests/browser/ui.mjs URL SHOTS_DIR --prompt ID --search TEXT --misspell FROM=TO
//       --inputs KEY=VALUE --markup ID --locked ID --new ID --history ITEM
//   node tests/browser/ui.mjs URL SHOTS_DIR --view HASH SELECTOR
//
// URL is the address `promptexec ui` printed (token included). The page is driven
// through every tab: the library searched and filtered, a prompt opened, edited with
// a misspelt variable (its errors and the caret after clicking one), fixed and saved
// twice, a prompt of markup shown as text, the locked prompt's save refused, a new
// prompt made, the stats, the reports (each shown in the frame, and a diff of two)
// and the history of one item.
// Screenshots of each view go to SHOTS_DIR/VIEW-{wide,phone}-{light,dark}.png.
// With --view, only the text of SELECTOR once view #HASH has rendered.
// Either way the document also holds every request to another origin, console
// errors, page errors and the answers with a failure status.
//
// The browser is launched by ./chromium.mjs (which names its environment).

import { mkdirSync } from "node:fs";
import path from "node:path";

import { launch } from "./chromium.mjs";

const [url, shots, ...rest] = process.argv.slice(2);
const option = (name, required = true) => {
  const at = rest.indexOf(name);
  if (at >= 0) return rest[at + 1];
  if (!required) return null;
  console.error(`usage: ui.mjs URL SHOTS_DIR … (${name} missing)`);
  process.exit(2);
};
// `--view HASH SELECTOR`: only the text of SELECTOR once view HASH has rendered.
const viewAt = rest.indexOf("--view");
const only = viewAt < 0 ? null : { hash: rest[viewAt + 1], selector: rest[viewAt + 2] };
const opts = only ? {} : {
  prompt: option("--prompt"), search: option("--search"), misspell: option("--misspell").split("="),
  markup: option("--markup"), locked: option("--locked"), inputs: option("--inputs"), fresh: option("--new"), history: option("--history"),
};
const origin = new URL(url).origin;
const attr = (value) => JSON.stringify(value);

const browser = await launch();
const context = browser.context;
const page = await context.newPage();
page.setDefaultTimeout(15000);
const out = { requests: [], consoleErrors: [], pageErrors: [], failedLoads: [] };
page.on("request", (request) => {
  const target = request.url();
  if (!target.startsWith(origin + "/") && !target.startsWith("data:")) out.requests.push(target);
});
page.on("response", (response) => {
  if (response.status() >= 400) out.failedLoads.push(`${response.status()} ${new URL(response.url()).pathname}`);
});
page.on("console", (message) => {
  if (message.type() !== "error") return;
  // A failed fetch is reported as its own line; the answers are kept above.
  if (/^Failed to load resource: the server responded with a status of \d+/.test(message.text())) return;
  out.consoleErrors.push(message.text());
});
page.on("pageerror", (error) => out.pageErrors.push(String(error)));

/// Goes to `#hash` and waits until the view has rendered.
async function visit(hash) {
  await page.evaluate((h) => { location.hash = h; }, hash);
  await rendered(hash);
}
async function rendered(hash) {
  await page.waitForFunction((h) => document.body.dataset.rendered === h, hash);
}
const texts = (selector) => page.$$eval(selector, (nodes) => nodes.map((n) => n.textContent));
const ids = () => page.$$eval("#prompt-list [data-prompt-id]", (nodes) => nodes.map((n) => n.dataset.promptId));
const listSeq = () => page.$eval("#prompt-list", (n) => Number(n.dataset.seq || 0));
async function listAfter(action) {
  const before = await listSeq();
  await action();
  await page.waitForFunction((b) => Number(document.querySelector("#prompt-list").dataset.seq || 0) > b, before);
  return ids();
}
const views = [];
async function shoot(name) { views.push([name, page.url()]); }

if (only) {
  await page.goto(url + only.hash);
  await rendered(only.hash);
  out.text = await page.textContent(only.selector);
  await browser.close();
  console.log(JSON.stringify(out, null, 2));
  process.exit(0);
}

try {
  // The library: everything, a search, a tag.
  await page.goto(url);
  await page.waitForFunction(() => document.body.dataset.ready === "1");
  out.listed = await ids();
  out.tags = await page.$$eval("#tags [data-tag]", (nodes) => nodes.map((n) => n.dataset.tag));
  await shoot("library");
  out.found = await listAfter(() => page.fill("#search", opts.search));
  await page.waitForFunction((q) => document.querySelector("#prompt-list").dataset.query === q, opts.search);
  out.found = await ids();
  out.foundNote = await page.textContent("#list-note");
  await listAfter(() => page.fill("#search", ""));
  out.taggedLocked = await listAfter(() => page.click(`#tags [data-tag="policy"]`));
  await listAfter(() => page.click(`#tags [data-tag="policy"]`));
  out.sortedById = await listAfter(() => page.selectOption("#sort", "id"));

  // One prompt opened: versions, audit, then the editor.
  await page.click(`[data-prompt-id=${attr(opts.prompt)}] a`);
  await rendered(`#prompt/${encodeURIComponent(opts.prompt)}`);
  out.versions = await page.$$eval("#versions tbody tr", (rows) => rows.map((r) => Number(r.dataset.version)));
  out.audit = await page.$$eval("#audit tbody tr", (rows) => rows.map((r) => [...r.cells].map((c) => c.textContent)));
  await shoot("prompt");
  await page.click("#edit");
  await rendered(`#edit/${encodeURIComponent(opts.prompt)}`);
  await page.fill("#inputs", opts.inputs);
  await page.waitForFunction(() => document.querySelector("#preview").dataset.ok === "1");
  out.preview = await page.$$eval("#preview .message", (nodes) => nodes.map((n) => [n.dataset.role, n.querySelector("pre").textContent]));
  const original = await page.inputValue("#editor-text");

  // A misspelt variable: its error where the renderer places it, the caret moved there.
  const [from, to] = opts.misspell;
  out.editedText = original.replace(`{{${from}}}`, `{{${to}}}`);
  await page.fill("#editor-text", out.editedText);
  await page.waitForFunction(() => document.querySelector("#errors button[data-line]:not([data-line=''])"));
  out.errors = await texts("#errors button");
  out.lint = await page.$$eval("#lint li[data-rule]", (nodes) => nodes.map((n) => n.dataset.rule));
  out.previewOkWithError = await page.$eval("#preview", (n) => n.dataset.ok);
  await shoot("edit");
  await page.click("#errors li.error button[data-line]");
  out.caret = await page.$eval("#caret", (n) => [Number(n.dataset.line), Number(n.dataset.col), n.textContent]);
  out.caretOffset = await page.$eval("#editor-text", (n) => n.selectionStart);

  // Answers out of order: the first of two previews is held back until the second
  // is shown; the older answer is dropped, not shown over the newer.
  let held = null;
  const holding = new Promise((resolve) => {
    page.route("**/api/preview", (route) => {
      if (held) return route.continue();
      held = route;
      resolve();
    });
  });
  await page.fill("#editor-text", original.replace("Hello", "First draft:"));
  await holding;
  await page.fill("#editor-text", original.replace("Hello", "Second draft:"));
  await page.waitForFunction(() => document.querySelector("#preview").textContent.includes("Second draft:"));
  const dropped = await page.evaluate(() => Number(document.body.dataset.previewDropped || 0));
  await held.continue();
  await page.waitForFunction((d) => Number(document.body.dataset.previewDropped || 0) > d, dropped);
  out.afterLateAnswer = await page.$$eval("#preview pre", (nodes) => nodes.map((n) => n.textContent).join("\n"));
  await page.unroute("**/api/preview");

  // Typed fast: each key a preview request; the last text is the one shown.
  await page.fill("#editor-text", original);
  await page.focus("#editor-text");
  await page.keyboard.press("Control+End");
  await page.keyboard.type("Thanks for waiting.");
  await page.waitForFunction(() => [...document.querySelectorAll("#preview pre")].some((p) => p.textContent.includes("Thanks for waiting.")));
  out.typedPreview = await page.$$eval("#preview pre", (nodes) => nodes.map((n) => n.textContent).join("\n"));
  out.errorsAfterFix = await texts("#errors button");

  // Saved: a new version; saved again: unchanged; the diff against the saved version.
  const saved = async () => {
    const before = await page.$eval("#save-status", (n) => Number(n.dataset.done || 0));
    await page.click("#save");
    await page.waitForFunction((b) => Number(document.querySelector("#save-status").dataset.done || 0) > b, before);
    return page.textContent("#save-status");
  };
  out.saved = await saved();
  out.savedAgain = await saved();
  await page.click("#diff");
  await page.waitForFunction(() => document.querySelector("#draft-diff").dataset.done);
  out.draftDiff = await page.textContent("#draft-diff");

  // The prompt again: two versions, and the diff of the two.
  await visit(`#prompt/${encodeURIComponent(opts.prompt)}`);
  await page.waitForSelector("#version-diff[data-pair]");
  out.versionsAfterSave = await page.$$eval("#versions tbody tr", (rows) => rows.map((r) => Number(r.dataset.version)));
  out.versionDiff = await page.$$eval("#version-diff [data-op]:not([data-op=same])", (lines) => lines.map((l) => l.textContent));

  // A prompt whose fields are markup: shown as text in every view.
  out.markup = 0;
  for (const hash of [`#prompt/${encodeURIComponent(opts.markup)}`, `#edit/${encodeURIComponent(opts.markup)}`, "#stats", "#library"]) {
    await visit(hash);
    out.markup += await page.$$eval("#app img, #app script, #app b, #app i", (nodes) => nodes.length);
  }
  out.markupTitle = await page.$eval(`[data-prompt-id=${attr(opts.markup)}] .title`, (n) => n.textContent).catch(() => null);
  out.title = await page.title();

  // The locked prompt: the save is refused, and why is shown.
  await visit(`#edit/${encodeURIComponent(opts.locked)}`);
  await page.fill("#editor-text", (await page.inputValue("#editor-text")) + "One more line.\n");
  out.lockedSave = await saved();
  out.lockedSaveClass = await page.$eval("#save-status", (n) => n.className);

  // A new prompt.
  await visit("#new");
  await page.fill("#new-id", opts.fresh);
  out.created = await saved();
  out.createdUrl = new URL(page.url()).hash;

  // Stats: every prompt version, then the one prompt.
  await visit("#stats");
  out.stats = await page.$$eval("#stats [data-stat]", (cards) => Object.fromEntries(cards.map((c) => [c.dataset.stat, {
    rating: c.querySelector(".rating").textContent, uses: c.querySelector(".uses").textContent,
    rank: c.querySelector(".rank").textContent,
  }])));
  out.usesChart = await page.$$eval("#uses-chart rect.bar", (bars) => bars.map((b) => [b.dataset.label, Number(b.dataset.value)]));
  await shoot("stats");
  await page.selectOption("#stats-prompt", opts.prompt);
  await rendered(`#stats/${encodeURIComponent(opts.prompt)}`);
  out.statsNarrowed = await page.$$eval("#stats [data-stat]", (cards) => cards.map((c) => c.dataset.stat));

  // Reports: each shown in the frame; the diff of the two.
  await visit("#reports");
  out.reports = await page.$$eval("#reports [data-report-path]", (rows) => rows.map((r) => r.dataset.reportPath));
  const frameShows = async (click) => {
    const loaded = page.waitForEvent("framenavigated", (f) => f !== page.mainFrame());
    await click();
    const frame = await loaded;
    await frame.waitForFunction(() => document.body && document.body.dataset.rendered === "1");
    return frame.evaluate(() => ({
      kind: document.body.dataset.kind,
      rows: [...document.querySelectorAll("[data-row-id]")].map((n) => n.getAttribute("data-row-id")),
    }));
  };
  out.reportFrame = await frameShows(() => page.click(`[data-report-path=${attr(out.reports[0])}] button`));
  await shoot("reports");
  for (const p of out.reports.slice(0, 2)) await page.check(`[data-report-path=${attr(p)}] input[type=checkbox]`);
  out.diffFrame = await frameShows(() => page.click("#report-diff"));
  out.diffShown = await page.textContent("#report-shown");

  // History: the items, then one item's chart.
  await visit("#history");
  out.historyItems = await page.$$eval("#history-items [data-history-id]", (rows) => Object.fromEntries(rows.map((r) => [r.dataset.historyId, r.querySelector(".flaky") ? "flaky" : "steady"])));
  await page.click(`[data-history-id=${attr(opts.history)}] a`);
  await rendered(`#history/${encodeURIComponent(opts.history)}`);
  out.historyChart = await page.$$eval("#history-chart rect.bar", (bars) => bars.map((b) => [b.dataset.report, b.dataset.result]));
  out.historyFlaky = await page.$$eval("#history-detail .flaky", (nodes) => nodes.length);
  await shoot("history");

  // Screenshots: each view, wide and phone, light and dark.
  mkdirSync(shots, { recursive: true });
  out.shots = [];
  for (const scheme of ["light", "dark"]) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const [name, address] of views) {
      for (const [size, width, height] of [["wide", 1280, 900], ["phone", 390, 844]]) {
        await page.setViewportSize({ width, height });
        await page.goto("about:blank");
        await page.goto(address);
        await rendered(new URL(address).hash || "#library");
        const file = path.join(shots, `${name}-${size}-${scheme}.png`);
        await page.screenshot({ path: file, fullPage: true });
        out.shots.push(file);
        if (size === "phone") {
          out.overflow = out.overflow || {};
          const wide = await page.evaluate(() => document.documentElement.scrollWidth);
          if (wide > 390) out.overflow[name] = wide;
        }
      }
    }
  }
} catch (error) {
  // What was found so far, and the page as it was, say where it stopped.
  mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: path.join(shots, "failure.png"), fullPage: true }).catch(() => {});
  console.error(`stopped at ${page.url()}: ${error.stack}\nfound so far: ${JSON.stringify(out, null, 2)}`);
  await browser.close();
  process.exit(1);
}

await browser.close();
console.log(JSON.stringify(out, null, 2));
