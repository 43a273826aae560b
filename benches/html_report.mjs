// Time to first render of the HTML report of 5,000 scenarios, against the report of the
// bundled suite's 5 scenarios measured in the same run, in headless Chromium.
//
// The bundled suite is played once (`run --json`); its report is repeated, the ids
// renamed, into a report of 5,000 scenarios; both are rendered by `report show
// --format html`, then opened in turn, round after round, by tests/browser/report.mjs.
// Usage: node benches/html_report.mjs [ROUNDS]   (release build; benches/all builds it)

import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const bin = process.env.BENCH_PROMPTEXEC || path.join(root, "target/release/promptexec");
const rounds = Number(process.argv[2] || 7);
const SCENARIOS = 5000;
const dir = mkdtempSync(path.join(tmpdir(), "promptexec-html-bench-"));

const promptexec = (args) => {
  try {
    return execFileSync(bin, args, { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
  } catch (err) {
    if (err.status === 0 || err.status === 1) return err.stdout;
    throw err;
  }
};

const small = path.join(dir, "small.json");
promptexec(["-c", "runtimeconfig.example.yaml", "run", "examples/assistant.pack.json", "examples/scenarios", "-q", "--json", small]);
const report = JSON.parse(readFileSync(small, "utf8"));

const big = structuredClone(report);
big.scenarios = [];
big.index = [];
for (let i = 0; big.scenarios.length < SCENARIOS; i++) {
  const from = report.scenarios[i % report.scenarios.length];
  const copy = structuredClone(from);
  copy.id = `${from.id}-${String(i).padStart(4, "0")}`;
  for (const trial of copy.trials) trial.scenario = copy.id;
  big.scenarios.push(copy);
  const entry = structuredClone(report.index[i % report.index.length]);
  entry.id = copy.id;
  big.index.push(entry);
}
const times = SCENARIOS / report.scenarios.length;
for (const key of ["scenarios", "passed", "partial", "failed", "errors", "pending", "interrupted", "duration_ms"]) {
  if (typeof big.summary[key] === "number") big.summary[key] *= times;
}
if (big.manifest) big.manifest.ids = big.scenarios.map((s) => s.id);
const bigJson = path.join(dir, "big.json");
writeFileSync(bigJson, JSON.stringify(big, null, 2) + "\n");

const pages = [];
for (const [name, json] of [["5 scenarios", small], [`${SCENARIOS} scenarios`, bigJson]]) {
  const page = path.join(dir, path.basename(json, ".json") + ".html");
  promptexec(["report", "show", json, "--format", "html", "--output", page]);
  pages.push({ name, page, bytes: statSync(page).size });
}

const out = execFileSync("node", [path.join(root, "tests/browser/report.mjs"), "time", String(rounds), ...pages.map((p) => p.page)],
  { cwd: root, encoding: "utf8", env: { ...process.env, PROMPTEXEC_BROWSER_MODULES: process.env.PROMPTEXEC_BROWSER_MODULES || path.join(root, "target/browser/node_modules") } });
const timed = JSON.parse(out);
const base = timed[0].median_ms;
console.log(`time to first render, median of ${rounds} rounds (headless Chromium, file://)`);
for (const [i, t] of timed.entries()) {
  const mb = (pages[i].bytes / 1048576).toFixed(1);
  console.log(`  ${pages[i].name.padEnd(15)} ${t.median_ms.toFixed(0).padStart(6)} ms  ${(t.median_ms / base).toFixed(2)}x  (${mb} MiB page)`);
}
