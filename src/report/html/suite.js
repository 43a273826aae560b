// A suite's report: summary cards, filters kept in the URL fragment, and one row per
// scenario (its trials as the matrix's cells), rendered in chunks; a scenario's detail
// is built only when its row is opened.

const CHUNK = 200;

function isFlaky(scenario) {
  const trials = scenario.trials || [];
  if (trials.length < 2) return false;
  const passed = trials.filter((t) => t.exit_code === 0).length;
  return passed > 0 && passed < trials.length;
}

function isFailed(scenario) {
  return scenario.result === "failed" || scenario.result === "error";
}

// The filters, read from and written to the fragment: #f=failed,flaky&label=k=v&q=text
function readFilters() {
  const params = new URLSearchParams(location.hash.slice(1));
  return {
    only: new Set((params.get("f") || "").split(",").filter(Boolean)),
    label: params.get("label") || "",
    q: params.get("q") || "",
  };
}

function writeFilters(filters) {
  const params = new URLSearchParams();
  if (filters.only.size) params.set("f", [...filters.only].sort().join(","));
  if (filters.label) params.set("label", filters.label);
  if (filters.q) params.set("q", filters.q);
  const hash = params.toString();
  history.replaceState(null, "", hash ? "#" + hash : location.pathname + location.search);
}

function matches(scenario, filters) {
  if (filters.only.size) {
    const hit = (filters.only.has("failed") && isFailed(scenario))
      || (filters.only.has("partial") && scenario.result === "partial")
      || (filters.only.has("flaky") && scenario.flaky);
    if (!hit) return false;
  }
  if (filters.label) {
    const [key, value] = filters.label.split("=");
    const labels = scenario.labels || {};
    if (!(key in labels) || (value !== undefined && String(labels[key]) !== value)) return false;
  }
  if (filters.q) {
    const q = filters.q.toLowerCase();
    const text = (scenario.id + " " + (scenario.description || "") + " " + (scenario.file || "")).toLowerCase();
    if (!text.includes(q)) return false;
  }
  return true;
}

function suiteTotals(scenarios) {
  const totals = { flaky: 0, tokens: 0, cost: 0, hasTokens: false, hasCost: false };
  for (const scenario of scenarios) {
    if (scenario.flaky) totals.flaky += 1;
    for (const trial of scenario.trials || []) {
      const usage = conversationTotals(trial);
      totals.tokens += usage.tokens;
      totals.cost += usage.cost;
      totals.hasTokens = totals.hasTokens || usage.hasTokens;
      totals.hasCost = totals.hasCost || usage.hasCost;
    }
  }
  return totals;
}

function reproduce(scenario) {
  const pack = typeof DATA.pack === "string" ? DATA.pack : "PACK";
  const quote = (s) => /^[A-Za-z0-9_./:=@%+-]+$/.test(s) ? s : "'" + s.replace(/'/g, "'\\''") + "'";
  const parts = ["promptexec", "run", quote(pack)];
  if (scenario.file) parts.push(quote(scenario.file));
  parts.push("--filter", quote(scenario.id));
  return parts.join(" ");
}

function trialCells(scenario) {
  return el("span.cells", { "aria-label": "trials" }, (scenario.trials || []).map((trial, i) => {
    const status = trial.exit_code === 0 ? "passed" : trial.exit_code === 4 ? "pending" : "failed";
    return el("span.cell." + tone(status), { title: "trial " + (i + 1) + ": " + status });
  }));
}

function assertionRows(scenario) {
  const rows = (scenario.assertions || []).slice().sort((a, b) => (a.outcome === "failed" ? 0 : 1) - (b.outcome === "failed" ? 0 : 1));
  return rows.map((a) => el("tr." + tone(a.outcome), null,
    el("td", null, badge(a.skipped ? "skipped" : a.outcome)),
    el("td", null, el("code", { text: a.type })),
    el("td", { text: a.place || "" }),
    el("td", { text: a.message || "" }),
    el("td", { text: (a.passes !== undefined ? a.passes + "/" + a.trials : "") }),
    el("td", null, a.detail ? pre(show(a.detail)) : null)));
}

function scenarioDetail(scenario) {
  const box = el("div.detail");
  append(box, [
    scenario.description ? el("p.desc", { text: scenario.description }) : null,
    el("p.facts", null, scenario.file ? ["file ", el("code", { text: scenario.file })] : null,
      " · ", ms(scenario.duration_ms), scenario.model && scenario.model.calls ? " · " + scenario.model.calls + " model call(s)" : null),
    command(reproduce(scenario)),
  ]);
  if ((scenario.problems || []).length) {
    box.appendChild(el("ul.problems", null, scenario.problems.map((p) => el("li", { text: show(p) }))));
  }
  if ((scenario.unplayed_turns || []).length) {
    box.appendChild(el("div.warnbox", null, el("strong", { text: "turns not played: " }), show(scenario.unplayed_turns)));
  }
  if ((scenario.assertions || []).length) {
    box.appendChild(el("h4", { text: "Assertions" }));
    box.appendChild(table(["outcome", "type", "where", "message", "passes", "detail"], assertionRows(scenario), "assertions"));
  }
  (scenario.trials || []).forEach((trial, i) => {
    box.appendChild(conversationDetail(trial, "Trial " + (i + 1)));
  });
  return box;
}

function scenarioRow(scenario) {
  const row = el("div.row", { role: "listitem", "data-row-id": scenario.id, "data-status": scenario.result });
  const head = el("button.row-head", { type: "button", "aria-expanded": "false" },
    badge(scenario.flaky ? scenario.result + " · flaky" : scenario.result),
    el("span.row-id", { text: scenario.id }),
    el("span.row-desc", { text: scenario.description || "" }),
    el("span.labels", null, Object.entries(scenario.labels || {}).map(([k, v]) => el("span.label", { text: k + "=" + v }))),
    trialCells(scenario),
    el("span.row-ms", { text: ms(scenario.duration_ms) }));
  head.addEventListener("click", () => {
    const open = head.getAttribute("aria-expanded") === "true";
    head.setAttribute("aria-expanded", open ? "false" : "true");
    if (open) { row.querySelector(".detail").remove(); return; }
    row.appendChild(scenarioDetail(scenario));
  });
  row.appendChild(head);
  return row;
}

function filterBar(filters, labels, onChange) {
  const box = el("section.filters", { "aria-label": "filters" });
  for (const word of ["failed", "partial", "flaky"]) {
    const input = el("input", { type: "checkbox", id: "only-" + word });
    input.checked = filters.only.has(word);
    input.addEventListener("change", () => {
      if (input.checked) filters.only.add(word); else filters.only.delete(word);
      onChange();
    });
    box.appendChild(el("label.toggle", null, input, " " + word));
  }
  const select = el("select", { id: "label", "aria-label": "label" }, el("option", { value: "", text: "any label" }),
    labels.map((l) => el("option", { value: l, text: l })));
  select.value = filters.label;
  select.addEventListener("change", () => { filters.label = select.value; onChange(); });
  const search = el("input", { type: "search", id: "q", placeholder: "search id, description, file", "aria-label": "search" });
  search.value = filters.q;
  let pending = null;
  search.addEventListener("input", () => {
    clearTimeout(pending);
    pending = setTimeout(() => { filters.q = search.value; onChange(); }, 120);
  });
  append(box, [select, search]);
  return box;
}

function suiteView() {
  const scenarios = DATA.scenarios || [];
  for (const scenario of scenarios) scenario.flaky = isFlaky(scenario);
  const summary = DATA.summary || {};
  const totals = suiteTotals(scenarios);
  const model = summary.model || {};
  const tokens = totals.hasTokens ? totals.tokens
    : (model.input_tokens !== undefined ? (model.input_tokens || 0) + (model.output_tokens || 0) : "");
  const cost = typeof model.cost_usd === "number" ? model.cost_usd : totals.hasCost ? totals.cost : "";
  const shard = DATA.shard ? " · shard " + show(DATA.shard) : "";
  APP.appendChild(header("promptexec run " + (typeof DATA.pack === "string" ? DATA.pack : ""),
    num(summary.scenarios) + " scenario(s)" + shard + (DATA.jobs ? " · -j " + DATA.jobs : "")));
  APP.appendChild(cards([
    ["passed", num(summary.passed), "pass"],
    ["failed", num((summary.failed || 0) + (summary.errors || 0)), (summary.failed || summary.errors) ? "fail" : null],
    ["partial", num(summary.partial), summary.partial ? "warn" : null],
    ["flaky", num(totals.flaky), totals.flaky ? "warn" : null],
    summary.pending ? ["pending", num(summary.pending), "warn"] : null,
    ["time", ms(summary.duration_ms)],
    ["model calls", num(model.calls)],
    ["tokens", tokens === "" ? "" : num(tokens)],
    ["cost", cost === "" ? "" : dollars(cost)],
  ]));
  if ((DATA.warnings || []).length) {
    APP.appendChild(el("ul.warnings", null, DATA.warnings.map((w) => el("li", { text: show(w) }))));
  }
  const labels = [...new Set(scenarios.flatMap((s) => Object.entries(s.labels || {}).map(([k, v]) => k + "=" + v)))].sort();
  const filters = readFilters();
  const count = el("p.count");
  const list = el("div.rows", { role: "list", id: "rows" });
  let generation = 0;
  const draw = (first) => {
    writeFilters(filters);
    const shown = scenarios.filter((s) => matches(s, filters));
    count.textContent = shown.length + " of " + scenarios.length + " scenario(s)";
    list.textContent = "";
    document.body.dataset.rows = "drawing";
    const mine = ++generation;
    let at = 0;
    const step = () => {
      if (mine !== generation) return;
      const part = document.createDocumentFragment();
      for (const scenario of shown.slice(at, at + CHUNK)) part.appendChild(scenarioRow(scenario));
      list.appendChild(part);
      at += CHUNK;
      if (at < shown.length) setTimeout(step, 0);
      else document.body.dataset.rows = "complete";
    };
    step();
    if (first) rendered();
  };
  const bar = filterBar(filters, labels, () => draw(false));
  APP.appendChild(bar);
  APP.appendChild(count);
  APP.appendChild(list);
  draw(true);
  // A fragment edited by hand, or a link followed: the controls and rows follow it.
  window.addEventListener("hashchange", () => {
    Object.assign(filters, readFilters());
    for (const input of bar.querySelectorAll("input[type=checkbox]")) input.checked = filters.only.has(input.id.slice(5));
    bar.querySelector("#label").value = filters.label;
    bar.querySelector("#q").value = filters.q;
    draw(false);
  });
}
