// The page of promptexec ui: library. The list of prompts (search, tag filters,
// sort) and one prompt opened: its versions, a diff of any two, its audit records.

/// What the list shows; kept across visits of the tab.
const libraryState = { q: "", tags: new Set(), sort: "rank", known: new Set() };
let listSeq = 0;

VIEWS.library = {
  async render(_rest, view) {
    const search = el("input", { id: "search", type: "search", placeholder: "Search prompts", "aria-label": "Search prompts", value: libraryState.q, autocomplete: "off" });
    const sort = el("select", { id: "sort", "aria-label": "Sort" },
      [["rank", "rank"], ["recent", "recent"], ["id", "id"]].map(([value, label]) => el("option", { value, text: label, selected: value === libraryState.sort })));
    const chips = el("div", { id: "tags", class: "chips", role: "group", "aria-label": "Tags" });
    const list = el("ul", { id: "prompt-list", class: "rows" });
    const note = el("p", { class: "note", id: "list-note" });
    view.append(
      el("div", { class: "toolbar" }, search, el("label", { class: "inline" }, "Sort ", sort),
        el("a", { id: "new-prompt", class: "button", href: "#new", text: "New prompt" })),
      chips, note, list);

    let timer = null;
    search.addEventListener("input", () => {
      clearTimeout(timer);
      timer = setTimeout(() => { libraryState.q = search.value; refreshList(list, chips, note); }, 150);
    });
    sort.addEventListener("change", () => { libraryState.sort = sort.value; refreshList(list, chips, note); });
    await refreshList(list, chips, note);
    search.focus();
  },
};

/// Fetches the listing for the current state and shows it; an older answer that
/// arrives after a newer one is dropped.
async function refreshList(list, chips, note) {
  const seq = ++listSeq;
  const pairs = [["q", libraryState.q.trim()], ["sort", libraryState.sort], ...[...libraryState.tags].map((t) => ["tag", t])];
  let prompts;
  try {
    prompts = await api("/api/prompts" + query(pairs));
  } catch (error) {
    if (seq === listSeq) list.replaceChildren(el("li", {}, failure(error)));
    return;
  }
  if (seq !== listSeq) return;
  for (const prompt of prompts) for (const tag of prompt.tags || []) libraryState.known.add(tag);
  showChips(chips, list, note);
  list.replaceChildren(...prompts.map(promptRow));
  note.textContent = libraryState.q.trim()
    ? `${prompts.length} found for “${libraryState.q.trim()}” (best match first)`
    : `${prompts.length} prompt(s)`;
  list.dataset.query = libraryState.q.trim();
  list.dataset.seq = String(seq);
}

function showChips(chips, list, note) {
  const tags = [...libraryState.known].sort();
  chips.replaceChildren(...tags.map((tag) => {
    const on = libraryState.tags.has(tag);
    return el("button", {
      type: "button", class: "chip", "data-tag": tag, "aria-pressed": on ? "true" : "false", text: tag,
      onclick: () => {
        if (libraryState.tags.has(tag)) libraryState.tags.delete(tag);
        else libraryState.tags.add(tag);
        refreshList(list, chips, note);
      },
    });
  }));
}

function lockMark(locked) {
  return locked ? el("span", { class: "lock", title: "locked: changes are refused", text: "locked" }) : null;
}

function ratingText(prompt) {
  return prompt.rating === null || prompt.rating === undefined ? "unrated" : `★ ${fixed(prompt.rating, 1)} (${prompt.ratings})`;
}

function promptRow(prompt) {
  return el("li", { class: "row", "data-prompt-id": prompt.id },
    el("a", { class: "row-main", href: "#prompt/" + enc(prompt.id) },
      el("span", { class: "id", text: prompt.id }),
      el("span", { class: "title", text: prompt.title || prompt.description || "" })),
    el("span", { class: "meta" },
      el("span", { class: "version", text: "v" + prompt.version }),
      (prompt.tags || []).map((t) => el("span", { class: "tag", text: t })),
      lockMark(prompt.locked),
      el("span", { class: "rating", text: ratingText(prompt) })));
}

/// One prompt: `#prompt/ID`.
VIEWS.prompt = {
  async render(id, view) {
    const [prompt, history, audit] = await Promise.all([
      api(`/api/prompts/${enc(id)}`),
      api(`/api/prompts/${enc(id)}/history`),
      api(`/api/prompts/${enc(id)}/audit`),
    ]);
    view.append(
      el("p", {}, el("a", { href: "#library", text: "← Library" })),
      el("div", { class: "heading", id: "prompt-head", "data-prompt": prompt.id },
        el("h2", {}, el("span", { class: "id", text: prompt.id }), " ", el("span", { class: "version", text: "v" + prompt.version })),
        lockMark(prompt.locked),
        el("a", { id: "edit", class: "button", href: "#edit/" + enc(prompt.id), text: "Edit" })),
      el("p", { class: "title", text: [prompt.title, prompt.description].filter(Boolean).join(" — ") }),
      el("p", { class: "meta" }, (prompt.tags || []).map((t) => el("span", { class: "tag", text: t })),
        el("span", { class: "rating", text: ratingText(prompt) })),
      versionsPanel(prompt, history),
      auditPanel(audit));
    const diff = view.querySelector("#diff-show");
    if (history.length > 1) diff.click();
  },
};

function versionsPanel(prompt, history) {
  const rows = history.map((v) => el("tr", { "data-version": v.version },
    el("td", { text: "v" + v.version }), el("td", { text: v.author }), el("td", { text: v.created_at }),
    el("td", { class: "hash", text: (v.content_hash || "").replace(/^sha256:/, "").slice(0, 12) })));
  const choice = (id, chosen) => el("select", { id, "aria-label": id === "diff-from" ? "From version" : "To version" },
    history.map((v) => el("option", { value: v.version, text: "v" + v.version, selected: v.version === chosen })));
  const latest = prompt.latest_version || prompt.version;
  const from = choice("diff-from", Math.max(1, latest - 1));
  const to = choice("diff-to", latest);
  const out = el("div", { id: "version-diff", class: "diff" });
  const show = el("button", {
    id: "diff-show", type: "button", text: "Show diff",
    onclick: async () => {
      try {
        const answer = await api(`/api/prompts/${enc(prompt.id)}/diff` + query([["from", from.value], ["to", to.value]]));
        out.replaceChildren(diffLines(answer.lines));
        out.dataset.pair = `${answer.from}-${answer.to}`;
      } catch (error) {
        out.replaceChildren(failure(error));
      }
    },
  });
  return el("section", { class: "panel", id: "versions" },
    el("h3", { text: "Versions" }),
    el("div", { class: "scroll" }, el("table", {},
      el("thead", {}, el("tr", {}, ["version", "author", "created", "hash"].map((h) => el("th", { text: h })))),
      el("tbody", {}, rows))),
    el("div", { class: "toolbar" }, el("label", { class: "inline" }, "From ", from), el("label", { class: "inline" }, "to ", to), show),
    out);
}

/// Lines of a diff ({op, text}), each marked and coloured by its op.
function diffLines(lines) {
  const sign = { same: "  ", removed: "- ", added: "+ " };
  const changed = lines.some((l) => l.op !== "same");
  return el("pre", { class: "diff-lines" },
    changed ? lines.map((l) => el("span", { class: "line op-" + l.op, "data-op": l.op, text: (sign[l.op] || "  ") + l.text + "\n" }))
      : el("span", { class: "line op-same", text: "(no difference)\n" }));
}

function auditPanel(records) {
  const body = records.length
    ? el("div", { class: "scroll" }, el("table", { id: "audit" },
      el("thead", {}, el("tr", {}, ["at", "who", "version", "purpose", "success", "variables"].map((h) => el("th", { text: h })))),
      el("tbody", {}, records.map((r) => el("tr", { "data-seq": r.seq },
        el("td", { text: r.at }), el("td", { text: r.who }), el("td", { text: "v" + r.version }),
        el("td", { text: r.purpose || "–" }),
        el("td", { text: r.success === null || r.success === undefined ? "–" : r.success ? "yes" : "no" }),
        el("td", {}, el("code", { text: JSON.stringify(r.variables || {}) })))))))
    : el("p", { class: "note", id: "audit", text: "No audit records (renders of an auditable prompt and runs are recorded)." });
  return el("section", { class: "panel" }, el("h3", { text: "Audit" }), body);
}
