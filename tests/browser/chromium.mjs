// Headless Chromium for the page tests, through playwright-core: launched with a
// fresh profile and without any of its calls to the outside, closed with the
// profile removed.
//
// PROMPTEXEC_BROWSER_MODULES names the node_modules folder holding playwright-core
// (default: target/browser/node_modules); CHROMIUM the browser (default /usr/bin/chromium).

import { createRequire } from "node:module";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

const modules = process.env.PROMPTEXEC_BROWSER_MODULES || path.resolve("target/browser/node_modules");
const require = createRequire(path.join(modules, "x.js"));
const { chromium } = require("playwright-core");

const FLAGS = [
  "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync",
];

/// A browser context at 1280x900; `close()` closes it and removes its profile.
export async function launch() {
  const profile = mkdtempSync(path.join(tmpdir(), "promptexec-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: FLAGS,
    viewport: { width: 1280, height: 900 },
  });
  return { context, close: async () => { await context.close(); rmSync(profile, { recursive: true, force: true }); } };
}
