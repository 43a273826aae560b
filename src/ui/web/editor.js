// The page of promptexec ui: editor. A prompt as its `.prompt` file, previewed and
// linted on every change; Save makes a new version, Diff compares with the saved one.

const NEW_TEXT = `---
name: new-prompt
description: What the prompt is for
input:
  schema:
    name: string
---
Hello {{name}}.
`;

/// `#edit` alone: which prompt to edit.
async function editChooser(view) {
  const prompts = await api("/api/prompts?sort=id");
  view.append(
    el("div", { class: "toolbar" }, el("h2", { text: "Edit a prompt" }), el("a", { id: "new-prompt", class: "button", href: "#new", text: "New prompt" })),
    el("ul", { class: "rows", id: "edit-choices" }, prompts.map((p) => el("li", { class: "row", "data-prompt-id": p.id },
      el("a", { class: "row-main", href: "#edit/" + enc(p.id) }, el("span", { class: "id", text: p.id }), el("span", { class: "title", text: p.title || "" })),
      el("span", { class: "meta" }, el("span", { class: "version", text: "v" + p.version }), lockMark(p.locked))))));
}

VIEWS.edit = {
  async render(id, view) {
    if (!id) return editChooser(view);
    const file = await api(`/api/prompts/${enc(id)}/file`);
    return editorView(view, { id: file.id, text: file.text, version: file.version, locked: file.locked });
  },
};

VIEWS.new = {
  render(_rest, view) {
    return editorView(view, { id: null, text: NEW_TEXT, version: null, locked: false });
  },
};

/// The inputs box read as an object: a JSON object, or `key=value` lines (a value
/// that reads as JSON is taken as that, else as text). Throws on bad input.
function readInputs(text) {
  const trimmed = text.trim();
  if (!trimmed) return {};
  if (trimmed.startsWith("{")) {
    const value = JSON.parse(trimmed);
    if (!value || typeof value !== "object" || Array.isArray(value)) throw new Error("the inputs must be a JSON object");
    return value;
  }
  const inputs = {};
  trimmed.split("\n").forEach((line, i) => {
    if (!line.trim()) return;
    const at = line.indexOf("=");
    if (at < 1) throw new Error(`line ${i + 1}: expected key=value`);
    const raw = line.slice(at + 1);
    let value = raw;
    try { value = JSON.parse(raw); } catch (_) { /* text */ }
    inputs[line.slice(0, at).trim()] = value;
  });
  return inputs;
}

/// Line and column (1-based; columns count characters, as the command line's
/// messages do) of `offset` (UTF-16) in `text`.
function position(text, offset) {
  const before = text.slice(0, offset);
  const start = before.lastIndexOf("\n") + 1;
  return { line: before.split("\n").length, col: [...before.slice(start)].length + 1 };
}

/// The offset (UTF-16) of line `line`, column `col` (1-based characters) in `text`.
function offsetOf(text, line, col) {
  let at = 0;
  for (let n = 1; n < line; n++) {
    const next = text.indexOf("\n", at);
    if (next < 0) return text.length;
    at = next + 1;
  }
  const end = text.indexOf("\n", at);
  const chars = [...text.slice(at, end < 0 ? text.length : end)].slice(0, Math.max(0, col - 1));
  return at + chars.join("").length;
}

let previewSent = 0;
let previewShown = 0;

function editorView(view, prompt) {
  let id = prompt.id;
  const text = el("textarea", { id: "editor-text", spellcheck: "false", wrap: "off", "aria-label": "The prompt as its .prompt file", value: prompt.text });
  const gutter = el("pre", { id: "gutter", class: "gutter", "aria-hidden": "true" });
  const caret = el("span", { id: "caret", class: "note", "aria-live": "off" });
  const remembered = "inputs:" + (id || "");
  const inputs = el("textarea", { id: "inputs", value: sessionStorage.getItem(remembered) || "", spellcheck: "false", rows: 3, placeholder: "inputs: a JSON object, or key=value lines (empty: the defaults)", "aria-label": "Inputs" });
  const inputsError = el("p", { id: "inputs-error", class: "failure", role: "alert" });
  const preview = el("div", { id: "preview", "aria-live": "polite" });
  const errors = el("ul", { id: "errors", class: "problems" });
  const lint = el("ul", { id: "lint", class: "problems" });
  const status = el("span", { id: "save-status", role: "status" });
  const draftDiff = el("div", { id: "draft-diff", class: "diff" });
  const idBox = id ? null : el("input", { id: "new-id", type: "text", placeholder: "new prompt id", "aria-label": "New prompt id", autocomplete: "off" });

  const versionMark = el("span", { class: "version", text: prompt.version ? "v" + prompt.version : "" });
  const heading = id
    ? el("h2", {}, el("a", { href: "#prompt/" + enc(id), class: "id", text: id }), " ", versionMark)
    : el("h2", { text: "New prompt" });
  view.append(
    el("div", { class: "toolbar" }, heading, prompt.locked ? lockMark(true) : null, idBox,
      el("button", { id: "save", type: "button", class: "primary", text: "Save" }),
      el("button", { id: "diff", type: "button", text: "Diff" }), status),
    el("div", { class: "editor-grid" },
      el("div", { class: "editor-pane" },
        el("div", { class: "editor-wrap" }, gutter, text), caret,
        el("label", { class: "stack" }, "Inputs", inputs), inputsError),
      el("div", { class: "preview-pane" },
        el("h3", { text: "Preview" }), preview,
        el("h3", { text: "Errors" }), errors,
        el("h3", { text: "Lint" }), lint)),
    el("section", { class: "panel" }, el("h3", { text: "Diff against the saved version" }), draftDiff));

  const numberLines = () => {
    const count = text.value.split("\n").length;
    if (gutter.dataset.count !== String(count)) {
      gutter.textContent = Array.from({ length: count }, (_, i) => i + 1).join("\n") + "\n";
      gutter.dataset.count = String(count);
    }
    gutter.scrollTop = text.scrollTop;
  };
  const showCaret = () => {
    const at = position(text.value, text.selectionStart);
    caret.textContent = `Ln ${at.line}, Col ${at.col}`;
    caret.dataset.line = String(at.line);
    caret.dataset.col = String(at.col);
  };
  const moveTo = (line, col) => {
    const at = offsetOf(text.value, line, col);
    text.focus();
    text.setSelectionRange(at, at);
    const lineHeight = parseFloat(getComputedStyle(text).lineHeight) || 18;
    text.scrollTop = Math.max(0, (line - 3) * lineHeight);
    showCaret();
    numberLines();
  };

  const showProblems = (list) => {
    errors.replaceChildren(...list.map((p) => {
      // As the command line prints it: `LINE:COL message`, warnings marked.
      const where = p.line ? `${p.line}:${p.col}` : "";
      const message = p.severity === "warning" ? "warning: " + p.message : p.message;
      return el("li", { class: "problem " + (p.severity || "error") },
        el("button", { type: "button", class: "link", "data-line": p.line || "", "data-col": p.col || "", text: (where ? where + " " : "") + message,
          onclick: () => { if (p.line) moveTo(p.line, p.col || 1); } }));
    }));
    if (!list.length) errors.append(el("li", { class: "note", text: "none" }));
  };
  const showLint = (report) => {
    const findings = (report && report.findings) || [];
    lint.replaceChildren(...findings.map((f) => el("li", { class: "problem " + f.level, "data-rule": f.rule },
      el("button", { type: "button", class: "link", text: `${f.line}:${f.col} ${f.rule} ${f.name} (${f.level}): ${f.message}`,
        onclick: () => moveTo(f.line, f.col) }),
      f.hint ? el("span", { class: "hint", text: f.hint }) : null)));
    if (!findings.length) lint.append(el("li", { class: "note", text: "no findings" }));
  };

  const runPreview = async () => {
    let values;
    try {
      values = readInputs(inputs.value);
      inputsError.textContent = "";
    } catch (error) {
      inputsError.textContent = "inputs: " + error.message;
      return;
    }
    const seq = ++previewSent;
    let answer;
    try {
      answer = await api("/api/preview", { method: "POST", body: { text: text.value, inputs: values, id: id || (idBox && idBox.value.trim()) || null } });
    } catch (error) {
      answer = { ok: false, messages: [], errors: [{ severity: "error", line: null, col: null, message: error.message }], lint: null };
    }
    if (seq <= previewShown) {
      // A newer answer is shown already: this older one is dropped.
      document.body.dataset.previewDropped = String(Number(document.body.dataset.previewDropped || 0) + 1);
      return;
    }
    previewShown = seq;
    preview.replaceChildren(...answer.messages.map((m) => el("div", { class: "message", "data-role": m.role },
      el("span", { class: "role", text: m.role }), el("pre", { text: m.text }))));
    if (!answer.messages.length) preview.append(el("p", { class: "note", text: answer.ok ? "(nothing rendered)" : "(no preview: see the errors)" }));
    preview.dataset.ok = answer.ok ? "1" : "0";
    showProblems(answer.errors || []);
    showLint(answer.lint);
    document.body.dataset.previewSeq = String(seq);
  };
  let timer = null;
  const schedule = () => { clearTimeout(timer); timer = setTimeout(runPreview, 60); };

  const save = async () => {
    const target = id || (idBox && idBox.value.trim());
    if (!target) {
      status.textContent = "name the new prompt first";
      status.className = "bad";
      return;
    }
    status.textContent = "saving…";
    status.className = "";
    try {
      const answer = await api(`/api/prompts/${enc(target)}`, { method: "POST", body: { text: text.value } });
      status.textContent = answer.unchanged ? `unchanged (version ${answer.version})` : `saved version ${answer.version}`;
      status.className = "good";
      versionMark.textContent = "v" + answer.version;
      if (!id) {
        id = target;
        history.replaceState(null, "", "#edit/" + enc(id));
        idBox.disabled = true;
      }
    } catch (error) {
      status.textContent = error.message;
      status.className = "bad";
      if (error.body && Array.isArray(error.body.errors)) showProblems(error.body.errors);
    }
    status.dataset.done = String(Number(status.dataset.done || 0) + 1);
  };
  const diff = async () => {
    const target = id || (idBox && idBox.value.trim());
    try {
      const answer = await api(`/api/prompts/${enc(target || "-")}/diff`, { method: "POST", body: { text: text.value } });
      draftDiff.replaceChildren(diffLines(answer.lines));
    } catch (error) {
      draftDiff.replaceChildren(failure(error));
    }
    draftDiff.dataset.done = String(Number(draftDiff.dataset.done || 0) + 1);
  };

  text.addEventListener("input", () => { numberLines(); showCaret(); schedule(); });
  text.addEventListener("scroll", numberLines);
  for (const kind of ["keyup", "click", "select"]) text.addEventListener(kind, showCaret);
  inputs.addEventListener("input", () => { sessionStorage.setItem(remembered, inputs.value); schedule(); });
  view.querySelector("#save").addEventListener("click", save);
  view.querySelector("#diff").addEventListener("click", diff);
  view.addEventListener("keydown", (event) => {
    if ((event.ctrlKey || event.metaKey) && event.key === "s") { event.preventDefault(); save(); }
  });
  if (idBox) {
    idBox.addEventListener("input", () => {
      const name = idBox.value.trim();
      if (name) text.value = text.value.replace(/^(---\n(?:[^\n]*\n)*?)name:[^\n]*/, `$1name: ${name}`);
      numberLines();
      schedule();
    });
  }
  text.setSelectionRange(0, 0);
  numberLines();
  showCaret();
  return runPreview();
}
