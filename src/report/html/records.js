// The reports of `test`, `check` and `diff`: a table each, failures opened.

function expandable(cells, detail, open, id, status) {
  const row = el("tr.item." + tone(status), { "data-row-id": id, "data-status": status });
  cells.forEach((c) => row.appendChild(el("td", null, c)));
  if (!detail) return [row];
  const more = el("tr.more", null, el("td", { colspan: cells.length }, detail));
  more.hidden = !open;
  row.classList.add("clickable");
  row.setAttribute("aria-expanded", open ? "true" : "false");
  row.addEventListener("click", () => {
    more.hidden = !more.hidden;
    row.setAttribute("aria-expanded", more.hidden ? "false" : "true");
  });
  return [row, more];
}

function testView() {
  const summary = DATA.summary || {};
  APP.appendChild(header("promptexec test", (DATA.files || []).length + " case file(s)"));
  APP.appendChild(cards([
    ["passed", num(summary.passed), "pass"],
    ["failed", num(summary.failed), summary.failed ? "fail" : null],
    ["errors", num(summary.errors), summary.errors ? "fail" : null],
    ["not run", num(summary.not_run)],
    ["time", ms(summary.duration_ms)],
  ]));
  for (const file of DATA.files || []) {
    const rows = [];
    for (const c of file.cases || []) {
      const failed = c.status !== "passed";
      const detail = el("div.detail", null,
        c.message ? pre(c.message, "err") : null,
        c.actual !== undefined ? [el("div.io-label", { text: "what it answered" }), pre(show(c.actual))] : null,
        c.expected !== undefined ? [el("div.io-label", { text: "expected" }), pre(show(c.expected))] : null,
        c.actual && c.actual.stderr_tail ? [el("div.io-label", { text: "stderr (tail)" }), pre(c.actual.stderr_tail)] : null);
      rows.push(...expandable([badge(c.status), c.name, c.kind, el("code", { text: c.target || "" }), ms(c.duration_ms)],
        detail, failed, c.name, c.status));
    }
    APP.appendChild(el("section.block", null, el("h2", null, el("code", { text: file.file })),
      file.error ? pre(show(file.error), "err") : null,
      table(["status", "case", "kind", "target", "time"], rows, "items")));
  }
  rendered();
}

function checkView() {
  const extensions = DATA.extensions || [];
  const probes = extensions.flatMap((e) => e.probes || []);
  const failed = probes.filter((p) => !p.passed).length;
  APP.appendChild(header("promptexec check", extensions.length + " extension(s)" + (DATA.seed !== undefined ? " · seed " + DATA.seed : "")));
  APP.appendChild(cards([
    ["result", DATA.passed ? "passed" : "failed", DATA.passed ? "pass" : "fail"],
    ["extensions", num(extensions.length)],
    ["probes passed", num(probes.length - failed), "pass"],
    ["probes failed", num(failed), failed ? "fail" : null],
    ["fuzz cases", num(DATA.cases)],
    ["time", ms(probes.reduce((s, p) => s + (p.duration_ms || 0), 0))],
  ]));
  if (DATA.error) APP.appendChild(pre(show(DATA.error), "err"));
  for (const extension of extensions) {
    const rows = [];
    for (const probe of extension.probes || []) {
      const status = probe.passed ? "passed" : (probe.advice ? "partial" : "failed");
      const detail = probe.passed && !probe.hint ? null : el("div.detail", null,
        probe.reason ? pre(probe.reason) : null,
        probe.hint ? el("p", null, el("strong", { text: "hint: " }), probe.hint) : null,
        probe.reproduce ? command(probe.reproduce) : null);
      rows.push(...expandable([badge(status), el("code", { text: probe.probe }), probe.reason || "", ms(probe.duration_ms)],
        detail, !probe.passed, extension.name + "/" + probe.probe, status));
    }
    APP.appendChild(el("section.block", null,
      el("h2", null, el("code", { text: extension.name }), " ", el("span.sub", { text: extension.kind || "" })),
      table(["status", "probe", "reason", "time"], rows, "items")));
  }
  rendered();
}

const DIFF_ORDER = ["regressed", "fixed", "new", "removed", "flaky", "unverifiable", "changed", "unchanged"];

function diffView() {
  const summary = DATA.summary || {};
  const base = DATA.base && DATA.base.file ? DATA.base.file : "base";
  const head = DATA.head && DATA.head.file ? DATA.head.file : "head";
  APP.appendChild(header("promptexec diff", base + " → " + head));
  APP.appendChild(cards(DIFF_ORDER.filter((s) => s in summary).map((s) => [s, num(summary[s]), summary[s] ? tone(s) : null])));
  const gate = DATA.gate;
  if (gate) {
    APP.appendChild(el("section.gate." + (gate.failed ? "fail" : "pass"), null,
      el("strong", { text: gate.failed ? "the gate fails" : "the gate passes" }),
      (gate.reasons || []).length ? el("ul", null, gate.reasons.map((r) => el("li", { text: show(r) }))) : null));
  }
  const items = (DATA.items || []).slice().sort((a, b) => DIFF_ORDER.indexOf(a.status) - DIFF_ORDER.indexOf(b.status));
  const rows = items.map((item) => el("tr.item." + tone(item.status), { "data-row-id": item.id, "data-status": item.status },
    el("td", null, badge(item.status)), el("td", null, el("code", { text: item.id })),
    el("td", null, (item.changes || []).length ? el("ul.changes", null, item.changes.map((c) =>
      el("li", null, el("span.kind", { text: c.kind }), " ", c.text))) : null)));
  APP.appendChild(el("section.block", null, table(["status", "id", "changes"], rows, "items")));
  rendered();
}

function main() {
  try {
    if (KIND === "suite") suiteView();
    else if (KIND === "conversation") conversationView(DATA);
    else if (KIND === "test") testView();
    else if (KIND === "check") checkView();
    else if (KIND === "diff") diffView();
  } catch (err) {
    APP.appendChild(el("pre.err", { text: "the report could not be shown: " + err }));
    throw err;
  }
}

main();
