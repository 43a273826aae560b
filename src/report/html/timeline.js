// One conversation's record (a run's report, or one trial of a scenario): a latency
// waterfall per turn, then every event in order.

function conversationTotals(record) {
  const totals = { tokens: 0, cost: 0, hasTokens: false, hasCost: false, latency: 0 };
  for (const event of record.events || []) {
    if (event.event !== "model_call") continue;
    totals.latency += event.latency_ms || 0;
    const usage = event.usage;
    if (usage) {
      totals.hasTokens = true;
      totals.tokens += (usage.input_tokens || 0) + (usage.output_tokens || 0);
      if (typeof usage.cost_usd === "number") { totals.hasCost = true; totals.cost += usage.cost_usd; }
    }
  }
  return totals;
}

// The model calls and tool calls of each turn, laid end to end in the order they ran.
function waterfall(record) {
  const turns = new Map();
  let turn = 0;
  for (const event of record.events || []) {
    if (typeof event.turn === "number") turn = event.turn;
    let span = null;
    if (event.event === "model_call") {
      span = { kind: "model", label: "model call " + turn + "." + (event.round || 1), ms: event.latency_ms || 0 };
    } else if (event.event === "tool_call") {
      span = { kind: "tool", label: event.name, ms: event.duration_ms || 0, status: event.status };
    } else if (event.event === "eval" && event.duration_ms > 0) {
      span = { kind: "eval", label: "eval " + event.eval_id, ms: event.duration_ms };
    }
    if (!span) continue;
    if (!turns.has(turn)) turns.set(turn, []);
    turns.get(turn).push(span);
  }
  if (!turns.size) return null;
  const box = el("div.waterfall", null, el("h4", { text: "Latency by turn" }));
  for (const [number, spans] of turns) {
    const total = spans.reduce((sum, s) => sum + s.ms, 0);
    const scale = Math.max(total, 1);
    const rows = el("div.wf-turn", null, el("div.wf-title", { text: (number ? "turn " + number : "session") + " · " + ms(total) }));
    let offset = 0;
    for (const span of spans) {
      const bar = el("div.wf-bar." + span.kind + (span.status && tone(span.status) === "fail" ? ".fail" : ""));
      bar.style.marginLeft = (offset / scale * 100).toFixed(2) + "%";
      bar.style.width = Math.max(span.ms / scale * 100, 0.5).toFixed(2) + "%";
      rows.appendChild(el("div.wf-row", null,
        el("span.wf-label", { text: span.label }), el("span.wf-track", null, bar), el("span.wf-ms", { text: ms(span.ms) })));
      offset += span.ms;
    }
    box.appendChild(rows);
  }
  return box;
}

function usageText(usage) {
  if (!usage) return null;
  const parts = [num(usage.input_tokens) + " in", num(usage.output_tokens) + " out"];
  if (typeof usage.cost_usd === "number") parts.push(dollars(usage.cost_usd));
  return parts.join(" · ");
}

function item(cls, title, meta, body) {
  return el("li.ev." + cls, null,
    el("div.ev-head", null, el("span.ev-title", null, title), meta ? el("span.ev-meta", null, meta) : null),
    body);
}

function eventNode(event) {
  switch (event.event) {
    case "user":
      return item("user", "user", "turn " + event.turn, el("div.msg", { text: event.content }));
    case "assistant": {
      const calls = (event.tool_calls || []).map((c) => el("div.call-ask", null, "asks ", el("code", { text: c.name }), " ", pre(show(c.args))));
      return item("assistant", "assistant", "turn " + event.turn, [event.content ? el("div.msg", { text: event.content }) : null, calls]);
    }
    case "model_call":
      return item("model", "model call", [ms(event.latency_ms), usageText(event.usage) ? " · " + usageText(event.usage) : "", event.answered_by ? " · " + event.answered_by : ""], null);
    case "model_finding":
      return item("warn", "model finding", "turn " + event.turn, el("div", { text: event.finding }));
    case "tool_started":
      return null;
    case "tool_call":
      return item("tool " + tone(event.status), [el("code", { text: event.name }), " ", badge(event.status)], ms(event.duration_ms),
        el("div.io", null, el("div.io-label", { text: "arguments" }), pre(show(event.args)),
          el("div.io-label", { text: "result" }), pre(show(event.content))));
    case "hook":
      return item("hook " + (String(event.action).startsWith("deny") || event.action === "block" ? "fail" : "info"),
        ["hook ", el("code", { text: event.hook }), " ", badge(String(event.action))], event.phase,
        event.reason ? el("div", { text: event.reason }) : null);
    case "hooks_ran":
      return item("quiet", "hooks ran: " + (event.hooks || []).join(", "), event.phase, null);
    case "guardrail":
      return item("guard " + (event.fails_run ? "fail" : "warn"), ["guardrail ", el("code", { text: event.validator })],
        [event.direction, " · ", event.enforced], el("div", { text: event.detail }));
    case "injected":
      return item("warn", ["injected failure in ", el("code", { text: event.tool })], event.mode, null);
    case "pending":
      return item("warn", ["pending ", el("code", { text: event.tool })], event.reason, el("div", { text: event.message }));
    case "decision":
      return item(event.approved ? "pass" : "fail", ["decision on ", el("code", { text: event.tool }), " ", badge(event.approved ? "passed" : "rejected")],
        event.by, event.note ? el("div", { text: event.note }) : null);
    case "eval":
      return item("eval " + tone(event.status), ["eval ", el("code", { text: event.eval_id }), " ", badge(event.status)],
        ["score " + (typeof event.score === "number" ? event.score : "-"), " · ", ms(event.duration_ms)],
        [event.explanation ? el("div", { text: event.explanation }) : null, event.error ? el("div.err", { text: event.error }) : null]);
    case "extension_failed":
      return item("fail", ["extension ", el("code", { text: event.name }), " failed"], [event.kind, " · ", event.phase],
        [el("div", { text: event.reason }), event.stderr_tail ? [el("div.io-label", { text: "stderr (tail)" }), pre(event.stderr_tail)] : null]);
    case "workflow":
      return item("info", "workflow → " + event.state, event.from ? "from " + event.from : null, event.refused ? el("div", { text: "refused: " + event.refused }) : null);
    case "turn_end":
      return item("quiet", "turn " + event.turn + " ends: " + show(event.reason), null, null);
    case "session_start":
      return item("quiet", "session starts", event.prompt, event.system_prompt ? el("details", null, el("summary", { text: "system prompt" }), pre(event.system_prompt)) : null);
    case "session_end":
      return item("quiet", "session ends", event.turns + " turn(s)", null);
    case "eval_point":
      return null;
    default:
      return item("quiet", event.event || "event", null, pre(show(event)));
  }
}

function timeline(record) {
  const list = el("ol.timeline");
  for (const event of record.events || []) {
    const node = eventNode(event);
    if (node) list.appendChild(node);
  }
  return list;
}

// A conversation's views, under a heading.
function conversationDetail(record, heading) {
  const totals = record.totals || {};
  const usage = conversationTotals(record);
  const facts = [
    record.exit_code !== undefined ? badge(record.exit_code === 0 ? "passed" : record.exit_code === 4 ? "pending" : "failed") : null,
    totals.turns !== undefined ? " " + totals.turns + " turn(s)" : null,
    totals.tool_calls !== undefined ? " · " + totals.tool_calls + " tool call(s)" : null,
    totals.duration_ms !== undefined ? " · " + ms(totals.duration_ms) : null,
    usage.hasTokens ? " · " + num(usage.tokens) + " tokens" : null,
    usage.hasCost ? " · " + dollars(usage.cost) : null,
  ];
  return el("section.trial", null,
    heading ? el("h3", null, heading, " ", facts) : el("p.facts", null, facts),
    (record.warnings || []).length ? el("ul.warnings", null, record.warnings.map((w) => el("li", { text: show(w) }))) : null,
    waterfall(record), el("h4", { text: "Timeline" }), timeline(record));
}

function conversationView(record) {
  const usage = conversationTotals(record);
  const totals = record.totals || {};
  const evals = totals.evals || {};
  APP.appendChild(header("promptexec run " + (record.prompt || ""), record.scenario ? "mock scenario " + record.scenario : null));
  APP.appendChild(cards([
    ["result", record.exit_code === 0 ? "passed" : "exit " + record.exit_code, record.exit_code === 0 ? "pass" : "fail"],
    ["turns", num(totals.turns)],
    ["tool calls", num(totals.tool_calls)],
    ["tool errors", num(totals.tool_errors), totals.tool_errors ? "fail" : null],
    ["evals passed", num(evals.passed)],
    ["evals failed", num(evals.failed), evals.failed ? "fail" : null],
    ["time", ms(totals.duration_ms)],
    ["tokens", usage.hasTokens ? num(usage.tokens) : ""],
    ["cost", usage.hasCost ? dollars(usage.cost) : ""],
  ]));
  APP.appendChild(conversationDetail(record, null));
  rendered();
}
