// The page of promptexec ui: reports. The saved reports under `--reports DIR`, each
// shown as its HTML page in a frame, the diff of two, and the history of one item
// across the reports.

function reportTabs(current) {
  return el("nav", { class: "subtabs", "aria-label": "Reports views" },
    el("a", { href: "#reports", text: "Reports", "aria-current": current === "reports" ? "page" : null }),
    el("a", { href: "#history", text: "History", "aria-current": current === "history" ? "page" : null }));
}

const NO_REPORTS = "start with --reports DIR to see reports";

VIEWS.reports = {
  async render(chosen, view) {
    const listing = await api("/api/reports");
    view.append(reportTabs("reports"));
    if (listing.dir === null || listing.dir === undefined) {
      view.append(el("p", { id: "reports-none", class: "note", text: NO_REPORTS }));
      return;
    }
    const frame = el("iframe", { id: "report-frame", title: "Report", class: "report-frame" });
    const diffButton = el("button", { id: "report-diff", type: "button", text: "Diff the two chosen", disabled: true });
    const shown = el("p", { id: "report-shown", class: "note" });
    const picked = [];
    const show = (path, src, label) => {
      history.replaceState(null, "", "#reports/" + enc(path));
      frame.src = src;
      frame.dataset.path = path;
      shown.textContent = label;
      frame.scrollIntoView({ block: "nearest" });
    };
    const rows = listing.reports.map((r) => {
      if (r.error) {
        return el("tr", { "data-report-path": r.path, class: "unreadable" },
          el("td", {}), el("td", { text: r.path }), el("td", { colspan: 3, class: "failure", text: r.error }));
      }
      const box = el("input", { type: "checkbox", "aria-label": "choose " + r.path });
      box.addEventListener("change", () => {
        const at = picked.indexOf(r.path);
        if (box.checked && at < 0) picked.push(r.path);
        if (!box.checked && at >= 0) picked.splice(at, 1);
        while (picked.length > 2) {
          const dropped = picked.shift();
          const other = view.querySelector(`tr[data-report-path="${CSS.escape(dropped)}"] input`);
          if (other) other.checked = false;
        }
        diffButton.disabled = picked.length !== 2;
      });
      return el("tr", { "data-report-path": r.path, class: r.failed ? "failed" : "passed" },
        el("td", {}, box),
        el("td", {}, el("button", { type: "button", class: "link", text: r.path,
          onclick: () => show(r.path, pageUrl("/reports/view", [["path", r.path]]), r.path) })),
        el("td", { text: r.kind }),
        el("td", { text: r.modified }),
        el("td", { class: "counts" }, el("span", { class: "good", text: `${r.passed} passed` }), " ",
          el("span", { class: r.failed ? "bad" : "", text: `${r.failed} failed` })));
    });
    diffButton.addEventListener("click", () => {
      // The older report is the base (the list is newest first).
      const order = listing.reports.map((r) => r.path);
      const [base, head] = [...picked].sort((a, b) => order.indexOf(b) - order.indexOf(a));
      show(`${base}..${head}`, pageUrl("/reports/diff", [["base", base], ["head", head]]), `diff ${base} → ${head}`);
    });
    view.append(
      el("p", { class: "note", text: `${listing.reports.length} report(s) in ${listing.dir}, newest first` }),
      el("div", { class: "scroll" }, el("table", { id: "reports" },
        el("thead", {}, el("tr", {}, ["", "report", "kind", "modified", "result"].map((h) => el("th", { text: h })))),
        el("tbody", {}, rows))),
      el("div", { class: "toolbar" }, diffButton, shown),
      frame);
    if (!listing.reports.length) view.append(el("p", { class: "note", text: "No JSON reports in that folder yet." }));
    // `#reports/P` shows report P; `#reports/A..B` the diff of A and B.
    const pair = chosen.split("..");
    if (pair.length === 2) show(chosen, pageUrl("/reports/diff", [["base", pair[0]], ["head", pair[1]]]), `diff ${pair[0]} → ${pair[1]}`);
    else if (chosen) show(chosen, pageUrl("/reports/view", [["path", chosen]]), chosen);
  },
};

VIEWS.history = {
  async render(id, view) {
    const listing = await api("/api/reports");
    view.append(reportTabs("history"));
    if (listing.dir === null || listing.dir === undefined) {
      view.append(el("p", { id: "reports-none", class: "note", text: NO_REPORTS }));
      return;
    }
    const [items, chosen] = await Promise.all([
      api("/api/reports/history"),
      id ? api("/api/reports/history" + query([["id", id]])) : null,
    ]);
    if (chosen) view.append(historyPanel(chosen));
    view.append(el("div", { class: "scroll" }, el("table", { id: "history-items" },
      el("thead", {}, el("tr", {}, ["item", "kind", "reports", "pass rate", "last", ""].map((h) => el("th", { text: h })))),
      el("tbody", {}, items.items.map((item) => el("tr", { "data-history-id": item.id, class: item.id === id ? "chosen" : "" },
        el("td", {}, el("a", { href: "#history/" + enc(item.id), text: item.id })),
        el("td", { text: item.kind }),
        el("td", { text: item.reports }),
        el("td", {}, meter(item.pass_rate, percent(item.pass_rate), "pass rate")),
        el("td", { class: item.last === "passed" ? "good" : "bad", text: item.last }),
        el("td", {}, item.flaky ? el("span", { class: "flaky", title: "its results disagree", text: "flaky" }) : null)))))));
  },
};

/// One item's results across the reports: a column per report, its height the
/// trials passed, coloured by the result; flaky reports marked above.
function historyPanel(h) {
  const width = 560, height = 150, left = 8, top = 18, plot = 100;
  const chart = svg("svg", { id: "history-chart", class: "chart", viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": `results of ${h.id} per report, oldest first` });
  chart.append(svg("title", { text: `results of ${h.id} per report, oldest first` }));
  chart.append(svg("line", { class: "axis", x1: left, y1: top + plot, x2: width, y2: top + plot }));
  const step = (width - left) / Math.max(1, h.points.length);
  const barWidth = Math.max(2, Math.min(48, step * 0.7));
  h.points.forEach((p, i) => {
    const share = p.trials ? p.trials_passed / p.trials : p.pass ? 1 : 0;
    const x = left + i * step + (step - barWidth) / 2;
    const barHeight = Math.max(4, share * plot);
    chart.append(svg("rect", { class: "bar " + (p.pass ? "pass" : "fail"), x, y: top + plot - barHeight, width: barWidth, height: barHeight, "data-report": p.report, "data-result": p.result },
      svg("title", { text: `${p.report} (${p.modified}): ${p.result}, ${p.trials_passed}/${p.trials} trials` })));
    if (p.flaky) chart.append(svg("text", { class: "flaky-mark", x: x + barWidth / 2, y: top - 4, "text-anchor": "middle", text: "~" }));
    chart.append(svg("text", { class: "tick", x: x + barWidth / 2, y: height - 18, "text-anchor": "middle", text: String(i + 1) }));
  });
  return el("section", { class: "panel", id: "history-detail", "data-id": h.id },
    el("h3", {}, el("span", { class: "id", text: h.id }), " ", el("span", { class: "note", text: `pass rate ${percent(h.pass_rate)}` }),
      h.flaky ? el("span", { class: "flaky", text: "flaky" }) : null),
    chart,
    el("ol", { class: "points" }, h.points.map((p) => el("li", { class: p.pass ? "good" : "bad" },
      `${p.report} · ${p.modified} · ${p.result} · ${p.trials_passed}/${p.trials} trials`,
      p.flaky ? el("span", { class: "flaky", text: "flaky" }) : null))));
}
