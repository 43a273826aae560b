"use strict";
// Shared helpers. Every text from the report's data goes into the page through
// textContent (el's string children), never as markup.

const DATA = JSON.parse(document.getElementById("report-data").textContent);
const KIND = document.body.dataset.kind;
const APP = document.getElementById("app");

// An element: el("div.card.fail", {title: "x"}, child, "text", ...). Strings become
// text nodes; null and undefined children are skipped; arrays are spread.
function el(spec, attrs, ...children) {
  const [tag, ...classes] = spec.split(".");
  const node = document.createElement(tag || "div");
  if (classes.length) node.className = classes.join(" ");
  if (attrs) {
    for (const [key, value] of Object.entries(attrs)) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "onclick") node.addEventListener("click", value);
      else if (key === "text") node.textContent = String(value);
      else node.setAttribute(key, String(value));
    }
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(node, child);
    else if (typeof child === "object" && child.nodeType) node.appendChild(child);
    else node.appendChild(document.createTextNode(String(child)));
  }
}

function ms(value) {
  if (typeof value !== "number") return "";
  if (value < 1000) return value + " ms";
  if (value < 60000) return (value / 1000).toFixed(value < 10000 ? 2 : 1) + " s";
  const minutes = Math.floor(value / 60000);
  return minutes + " min " + Math.round((value % 60000) / 1000) + " s";
}

function num(value) {
  return typeof value === "number" ? value.toLocaleString("en-US") : "";
}

function dollars(value) {
  if (typeof value !== "number") return "";
  return "$" + (value < 0.01 && value > 0 ? value.toFixed(4) : value.toFixed(2));
}

// A JSON value as readable text: strings as they are, the rest indented.
function show(value) {
  if (value === null || value === undefined) return "";
  if (typeof value === "string") return value;
  return JSON.stringify(value, null, 2);
}

// The CSS class of a status word.
function tone(status) {
  switch (status) {
    case "passed": case "ok": case "fixed": case "answered": case "unchanged": return "pass";
    case "failed": case "error": case "regressed": case "blocked": case "rejected": return "fail";
    case "partial": case "pending": case "flaky": case "unverifiable": case "changed": case "measured": return "warn";
    case "skipped": case "not_run": case "removed": case "interrupted": return "muted";
    default: return "info";
  }
}

function badge(status) {
  return el("span.badge." + tone(status), { text: status });
}

function card(label, value, cls) {
  return el("div.card" + (cls ? "." + cls : ""), null,
    el("div.card-value", { text: value }), el("div.card-label", { text: label }));
}

function cards(list) {
  return el("section.cards", { "aria-label": "summary" },
    list.filter((c) => c && c[1] !== "" && c[1] !== undefined).map((c) => card(c[0], c[1], c[2])));
}

function header(title, subtitle) {
  document.title = title;
  return el("header.top", null,
    el("h1", { text: title }), subtitle ? el("p.sub", { text: subtitle }) : null);
}

function pre(text, cls) {
  return el("pre" + (cls ? "." + cls : ""), { text: text });
}

// A copy button: the clipboard API where the page may use it, else a selected field.
function copyButton(text) {
  const button = el("button.copy", { type: "button", title: "copy the command" }, "copy");
  button.addEventListener("click", (event) => {
    event.stopPropagation();
    const done = () => { button.textContent = "copied"; setTimeout(() => { button.textContent = "copy"; }, 1500); };
    const fallback = () => {
      const field = el("textarea.offscreen");
      field.value = text;
      document.body.appendChild(field);
      field.select();
      try { document.execCommand("copy"); done(); } catch (e) { button.textContent = "select and copy"; }
      field.remove();
    };
    if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(text).then(done, fallback);
    else fallback();
  });
  return button;
}

function command(text) {
  return el("div.command", null, el("code", { text: text }), copyButton(text));
}

// A table: heads, then rows of cells (each a node or text).
function table(heads, rows, cls) {
  return el("table" + (cls ? "." + cls : ""), null,
    el("thead", null, el("tr", null, heads.map((h) => el("th", { text: h })))),
    el("tbody", null, rows.map((row) => row.nodeType ? row : el("tr", null, row.map((c) => el("td", null, c))))));
}

// Marks the first render for the benchmark and the tests, after the frame is painted.
function rendered() {
  requestAnimationFrame(() => {
    performance.mark("first-render");
    document.body.dataset.rendered = "1";
  });
}
