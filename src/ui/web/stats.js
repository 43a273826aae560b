// The page of promptexec ui: stats. The numbers of `prompt stats` per prompt
// version, as charts: uses per day, pass and success rates, rating, score and rank;
// and the uses of the whole library (or of the prompt chosen) per day.

VIEWS.stats = {
  async render(id, view) {
    const [stats, prompts] = await Promise.all([api("/api/stats" + query([["id", id]])), api("/api/prompts?sort=id")]);
    const choose = el("select", { id: "stats-prompt", "aria-label": "Prompt" },
      el("option", { value: "", text: "all prompts" }),
      prompts.map((p) => el("option", { value: p.id, text: p.id, selected: p.id === id })));
    choose.addEventListener("change", () => { location.hash = choose.value ? "#stats/" + enc(choose.value) : "#stats"; });
    view.append(
      el("div", { class: "toolbar" }, el("h2", { text: "Stats" }), el("label", { class: "inline" }, "Prompt ", choose)),
      el("section", { class: "panel", id: "stats-overall" },
        el("h3", { text: id ? `Uses per day: ${id}` : "Uses per day: the whole library" }),
        usesChart(stats, "uses-chart", id ? `uses of ${id} per day` : "uses of the library per day")),
      el("div", { id: "stats", class: "cards" }, stats.map(statCard)));
    if (!stats.length) view.querySelector("#stats").append(el("p", { class: "note", text: "No prompt versions." }));
  },
};

/// Uses per day summed over `entries`, over every day from the first use to the last.
function usesChart(entries, chartId, name, width) {
  const perDay = new Map();
  for (const entry of entries) for (const d of entry.per_day || []) perDay.set(d.day, (perDay.get(d.day) || 0) + d.uses);
  const points = daySpan([...perDay.keys()]).map((day) => ({ label: day, value: perDay.get(day) || 0 }));
  return barChart(points, { name, id: chartId, width: width || 560 });
}

/// A rate with its counts, or what is missing.
function rateText(rate, part, whole, none) {
  return whole ? `${percent(rate)} (${part}/${whole})` : none;
}

function statCard(s) {
  const key = `${s.id}@${s.version}`;
  const purposes = Object.entries(s.uses_by_purpose || {}).map(([k, v]) => `${k} ${v}`).join(", ");
  const rating = s.rating === null || s.rating === undefined ? "unrated" : `${fixed(s.rating, 2)} of 5 (${s.ratings} rating${s.ratings === 1 ? "" : "s"})`;
  return el("article", { class: "card", "data-stat": key },
    el("h3", {}, el("a", { class: "id", href: "#prompt/" + enc(s.id), text: s.id }), " ", el("span", { class: "version", text: "v" + s.version }),
      el("span", { class: "rank", text: s.rank ? `rank ${s.rank}` : "unranked" })),
    el("dl", { class: "figures" },
      el("dt", { text: "uses" }), el("dd", { class: "uses", text: `${s.uses}${purposes ? ` (${purposes})` : ""}` }),
      el("dt", { text: "pass rate" }), el("dd", { class: "pass-rate" }, meter(s.pass_rate, rateText(s.pass_rate, s.checks_passed, s.checks_total, "no checks recorded"), "pass rate")),
      el("dt", { text: "success rate" }), el("dd", { class: "success-rate" }, meter(s.success_rate, rateText(s.success_rate, s.successes, s.outcomes, "no outcomes recorded"), "success rate")),
      el("dt", { text: "rating" }), el("dd", { class: "rating" }, meter(s.rating === null ? null : s.rating / 5, rating, "mean rating")),
      el("dt", { text: "score" }), el("dd", { class: "score" }, meter(s.score, fixed(s.score, 3), "score"))),
    s.per_day && s.per_day.length ? usesChart([s], null, `uses of ${key} per day`, 320) : el("p", { class: "note", text: "no uses recorded" }));
}
