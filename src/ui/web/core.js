// The page of promptexec ui: core. Every part below shares these names (the parts
// are joined into one script, in the order core, library, editor, stats, reports).
// Data is always inserted as text; markup is only ever made with createElement.
"use strict";

const TOKEN = new URLSearchParams(location.search).get("token") || "";
const SVG_NS = "http://www.w3.org/2000/svg";

/// The views, by the first part of the fragment: each `render(rest, view)` fills
/// `view` (an empty element) and may return a promise.
const VIEWS = {};

/// The tabs, in order: [route, label].
const TABS = [["library", "Library"], ["edit", "Editor"], ["stats", "Stats"], ["reports", "Reports"]];

/// An element: `attrs` sets properties (`class`, `id`, `text`, `data-*`, `aria-*`,
/// `on*` listeners, anything else as an attribute); children are nodes or text.
function el(tag, attrs, ...children) {
  return fill(document.createElement(tag), attrs, children);
}

/// An SVG element, as `el`.
function svg(tag, attrs, ...children) {
  return fill(document.createElementNS(SVG_NS, tag), attrs, children);
}

function fill(node, attrs, children) {
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "text") node.textContent = String(value);
    else if (key === "class") node.setAttribute("class", value);
    else if (key.startsWith("on") && typeof value === "function") node.addEventListener(key.slice(2), value);
    else if (key === "value" || key === "checked" || key === "selected" || key === "disabled") node[key] = value;
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/// A request to this server, the token in its header; the parsed JSON answer. A
/// failure throws an Error with `.status` and `.body` (the answer, parsed if JSON).
async function api(path, options = {}) {
  const init = { method: options.method || "GET", headers: { "X-Promptexec-Token": TOKEN } };
  if (options.body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(options.body);
  }
  const response = await fetch(path, init);
  const text = await response.text();
  let body = text;
  try { body = text ? JSON.parse(text) : null; } catch (_) { /* not JSON: kept as text */ }
  if (!response.ok) {
    const message = body && typeof body === "object" && body.error ? body.error : `${response.status} ${response.statusText}`;
    const error = new Error(message);
    error.status = response.status;
    error.body = body;
    throw error;
  }
  return body;
}

/// A query string of `pairs` ([key, value], values skipped when empty).
function query(pairs) {
  const params = new URLSearchParams();
  for (const [key, value] of pairs) if (value !== null && value !== undefined && value !== "") params.append(key, value);
  const text = params.toString();
  return text ? "?" + text : "";
}

/// A page of this server, with the token in its address (for frames).
function pageUrl(path, pairs) {
  return path + query([...pairs, ["token", TOKEN]]);
}

function enc(id) { return encodeURIComponent(id); }

/// A fraction as a percentage, or a dash.
function percent(x) { return x === null || x === undefined ? "–" : `${Math.round(x * 1000) / 10}%`; }

function fixed(x, digits) { return x === null || x === undefined ? "–" : Number(x).toFixed(digits); }

/// A failure shown where the view would be.
function failure(error) {
  return el("p", { class: "failure", role: "alert", text: error && error.message ? error.message : String(error) });
}

/// A horizontal bar for a fraction 0..1 (null: empty), with its text beside.
function meter(fraction, label, name) {
  const width = 120;
  const chart = svg("svg", { class: "meter", width, height: 12, viewBox: `0 0 ${width} 12`, role: "img", "aria-label": `${name}: ${label}` },
    svg("rect", { class: "meter-track", x: 0, y: 0, width, height: 12, rx: 3 }));
  if (fraction !== null && fraction !== undefined) {
    chart.append(svg("rect", { class: "meter-bar", x: 0, y: 0, width: Math.max(0, Math.min(1, fraction)) * width, height: 12, rx: 3 }));
  }
  return el("span", { class: "meter-box" }, chart, el("span", { class: "meter-text", text: label }));
}

/// Every day from the first to the last of `days` (YYYY-MM-DD), at most `limit`
/// (the latest kept).
function daySpan(days, limit = 92) {
  if (!days.length) return [];
  const sorted = [...days].sort();
  const out = [];
  const last = Date.parse(sorted[sorted.length - 1] + "T00:00:00Z");
  let at = Math.max(Date.parse(sorted[0] + "T00:00:00Z"), last - (limit - 1) * 86400000);
  for (; at <= last; at += 86400000) out.push(new Date(at).toISOString().slice(0, 10));
  return out;
}

/// A bar chart of `points` ({label, value, title?, cls?}) as inline SVG; `name`
/// labels it for readers.
function barChart(points, { name, width = 560, height = 140, id } = {}) {
  const left = 30, bottom = 18, top = 8;
  const plot = height - bottom - top;
  const max = Math.max(1, ...points.map((p) => p.value));
  const chart = svg("svg", { class: "chart", id, viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": name, preserveAspectRatio: "xMinYMin meet" });
  chart.append(svg("title", { text: name }));
  chart.append(svg("line", { class: "axis", x1: left, y1: top + plot, x2: width, y2: top + plot }));
  chart.append(svg("text", { class: "tick", x: left - 4, y: top + 8, "text-anchor": "end", text: String(max) }));
  chart.append(svg("text", { class: "tick", x: left - 4, y: top + plot, "text-anchor": "end", text: "0" }));
  if (!points.length) {
    chart.append(svg("text", { class: "tick", x: left + 8, y: top + plot / 2, text: "no data" }));
    return chart;
  }
  const step = (width - left) / points.length;
  const barWidth = Math.max(1, Math.min(36, step * 0.8));
  points.forEach((p, i) => {
    const h = (p.value / max) * plot;
    const x = left + i * step + (step - barWidth) / 2;
    const bar = svg("rect", { class: "bar " + (p.cls || ""), x, y: top + plot - h, width: barWidth, height: Math.max(h, p.value ? 1 : 0), "data-label": p.label, "data-value": p.value },
      svg("title", { text: p.title || `${p.label}: ${p.value}` }));
    chart.append(bar);
  });
  chart.append(svg("text", { class: "tick", x: left, y: height - 4, text: points[0].label }));
  if (points.length > 1) {
    chart.append(svg("text", { class: "tick", x: width, y: height - 4, "text-anchor": "end", text: points[points.length - 1].label }));
  }
  return chart;
}

/// The current fragment as [route, rest] (`#edit/a%20b` → ["edit", "a b"]).
function currentRoute() {
  const hash = location.hash.replace(/^#/, "");
  const at = hash.indexOf("/");
  const name = at < 0 ? hash : hash.slice(0, at);
  const rest = at < 0 ? "" : decodeURIComponent(hash.slice(at + 1));
  return [VIEWS[name] ? name : "library", rest];
}

/// Which tab a route belongs to.
const TAB_OF = { library: "library", prompt: "library", edit: "edit", new: "edit", stats: "stats", reports: "reports", history: "reports" };

let routeSeq = 0;

async function route() {
  const seq = ++routeSeq;
  const [name, rest] = currentRoute();
  const tab = TAB_OF[name] || name;
  for (const link of document.querySelectorAll("#tabs a")) {
    if (link.dataset.tab === tab) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  const view = document.getElementById("view");
  const fresh = el("section", { id: "view", "data-view": name });
  view.replaceWith(fresh);
  document.body.dataset.rendered = "";
  try {
    await VIEWS[name].render(rest, fresh);
  } catch (error) {
    fresh.append(failure(error));
  }
  if (seq !== routeSeq) return;
  document.body.dataset.rendered = location.hash || "#library";
  document.body.dataset.ready = "1";
}

function start() {
  const app = document.getElementById("app");
  const tabs = el("nav", { id: "tabs", "aria-label": "Views" },
    TABS.map(([name, label]) => el("a", { href: "#" + name, "data-tab": name, text: label })));
  app.append(el("header", { class: "top" }, el("h1", { text: "promptexec" }), tabs), el("section", { id: "view" }));
  window.addEventListener("hashchange", route);
  route();
}

document.addEventListener("DOMContentLoaded", start);
