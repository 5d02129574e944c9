// luaai inspector page: plain JavaScript, no build step, nothing fetched
// from elsewhere. It reads the stream (Server-Sent Events) and posts
// commands; every text from the game is set as text, never as HTML.
"use strict";

const params = new URLSearchParams(location.search);
const token = params.get("token");
const $ = (sel) => document.querySelector(sel);

const st = {
  picked: (params.get("agents") || "").split(",").filter((s) => s !== "").map(Number).filter((n) => Number.isInteger(n)),
  filter: "", sort: "id", errors: false, offset: 0, limit: 100,
  status: null, list: null,
  structures: {},   // id → {behaviour, root}
  live: {},         // agent id → {first, last, frame}
  logs: {},         // agent id → recent log lines (live)
  changes: {},      // agent id → its last transitions (live), with their tick and cause
  past: null,       // null: live; else the tick the slider shows
  pastFrames: {},   // agent id → {frame, prev}
  source: null,
  never: null,      // a loaded coverage file: Set of "kind\u0000name" never reached
};

function url(path, q) {
  const u = new URLSearchParams(q || {});
  if (token) u.set("token", token);
  const s = u.toString();
  return s ? path + "?" + s : path;
}

function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const k of kids.flat()) {
    if (k === null || k === undefined || k === false) continue;
    e.append(k instanceof Node ? k : document.createTextNode(String(k)));
  }
  return e;
}

const svgNS = "http://www.w3.org/2000/svg";
function svg(tag, attrs, ...kids) {
  const e = document.createElementNS(svgNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  for (const k of kids) e.append(k);
  return e;
}

function fmt(v) {
  if (typeof v === "number") return Number.isInteger(v) ? String(v) : v.toFixed(3);
  return String(v);
}

// value writes a context value: numbers as Lua's %.14g would (0.91, not
// 0.9099999999999999), the rest as JSON.
function value(x) {
  if (typeof x === "number" && Number.isFinite(x) && !Number.isInteger(x)) return String(Number(x.toPrecision(14)));
  return JSON.stringify(x);
}

// How many transitions an agent's view lists.
const maxChanges = 20;

// --- the stream ---

function connect() {
  if (st.source) st.source.close();
  const q = { sort: st.sort, offset: st.offset, limit: st.limit };
  if (st.picked.length) q.agents = st.picked.join(",");
  if (st.filter) q.filter = st.filter;
  if (st.errors) q.errors = "1";
  const src = new EventSource(url("api/stream", q));
  st.source = src;
  src.addEventListener("status", (e) => { st.status = JSON.parse(e.data); renderStatus(); });
  src.addEventListener("list", (e) => { st.list = JSON.parse(e.data); renderList(); });
  src.addEventListener("structure", (e) => { const s = JSON.parse(e.data); st.structures[s.id] = s.structure; });
  src.addEventListener("agent", (e) => {
    const a = JSON.parse(e.data);
    const id = a.frame.id;
    const prev = st.live[id];
    st.live[id] = a;
    const logs = (st.logs[id] = st.logs[id] || []);
    for (const l of a.frame.logs || []) logs.push(l);
    if (logs.length > 200) logs.splice(0, logs.length - 200);
    const changes = (st.changes[id] = st.changes[id] || []);
    for (const t of a.frame.transitions || []) changes.push(t);
    if (changes.length > maxChanges) changes.splice(0, changes.length - maxChanges);
    a.prev = prev && prev.frame.tick < a.frame.tick ? prev.frame : null;
    renderSlider();
    if (st.past === null) renderViews();
  });
  src.onerror = () => { $("#status").textContent = "disconnected — retrying…"; };
}

function renderStatus() {
  const s = st.status;
  const box = $("#status");
  box.textContent = `tick ${s.tick} · ${s.agents} agents · ${s.paused ? "paused" : "running"}` + (s.hz ? ` · ${fmt(s.hz)} Hz` : "");
  box.classList.toggle("paused", s.paused);
  box.dataset.tick = s.tick;
  box.dataset.paused = s.paused;
  $("#rate-box").hidden = !s.rate_control;
  if (s.rate_control && document.activeElement !== $("#rate") && s.hz) $("#rate").value = s.hz;
  renderProfile(s.profile);
  for (const r of s.results || []) {
    if (seen.has(r.seq)) continue;
    seen.add(r.seq);
    say(r.error ? `#${r.seq} ${r.op}: ${r.error}` : `#${r.seq} ${r.op}: done`, !!r.error);
  }
}
const seen = new Set();

// renderProfile shows the host's profile (luaai run --profile,
// host.Options.Profile): the costliest callbacks so far.
function renderProfile(p) {
  $("#profile").hidden = !p;
  if (!p) return;
  const share = (ms) => (p.tick_ms > 0 ? ` (${Math.round((100 * ms) / p.tick_ms)}%)` : "");
  $("#profile-sum").textContent = `${p.ticks} ticks, ${fmt(p.tick_ms)} ms: Lua ${fmt(p.lua_ms)} ms${share(p.lua_ms)}, natives ${fmt(p.native_ms)} ms${share(p.native_ms)}`;
  $("#profile-table tbody").replaceChildren(...p.top.map((r) => el("tr", {},
    el("td", { class: "num", text: fmt(r.total_ms) }),
    el("td", { class: "num", text: String(r.calls) }),
    el("td", { class: "num", text: fmt(r.mean_us) }),
    el("td", { class: "where", text: `${r.callback} ${r.where}` + (r.state ? ` (${r.state})` : "") }))));
}

// loadCoverage reads a coverage file (luaai test --coverage=FILE, luaai
// explore --coverage FILE): the parts it never reached are drawn dashed.
function loadCoverage(text, name) {
  let entries;
  try {
    entries = JSON.parse(text);
    if (!Array.isArray(entries)) throw new Error("not a list of behaviours");
  } catch (err) {
    $("#coverage-note").textContent = `${name}: not a coverage file (${err.message})`;
    return;
  }
  const never = new Set();
  let all = 0;
  for (const e of entries) {
    for (const it of e.items || []) {
      all++;
      if (!it.hits) never.add(`${it.kind}\u0000${it.name}`);
    }
  }
  st.never = never;
  $("#coverage-note").textContent = `${name}: ${never.size} of ${all} parts never reached (dashed)`;
  renderViews();
}

const isNever = (kind, name) => !!st.never && st.never.has(`${kind}\u0000${name}`);

function say(text, bad) {
  const m = $("#messages");
  m.replaceChildren(el("div", { class: bad ? "bad" : "", text }));
}

// --- the list ---

// breakable splits a state path so that a narrow column wraps it after a
// dot, never inside a name.
function breakable(path) {
  const parts = path.split(".");
  return parts.flatMap((p, i) => (i < parts.length - 1 ? [p + ".", el("wbr")] : [p]));
}

function renderList() {
  const l = st.list;
  $("#list-count").textContent = `${l.matched} of ${l.total} agents` + (l.matched > st.limit ? ` (${l.offset + 1}–${Math.min(l.matched, l.offset + st.limit)})` : "");
  const body = $("#agents tbody");
  body.replaceChildren(...(l.rows || []).map((r) => {
    const picked = st.picked.includes(r.id);
    const box = el("input", { type: "checkbox", class: "pick", "aria-label": `pick agent ${r.id}` });
    box.checked = picked;
    box.addEventListener("click", (e) => { e.stopPropagation(); togglePick(r.id, box.checked); });
    return el("tr", {
      "data-id": r.id, class: [picked ? "picked" : "", r.errors ? "err" : "", r.suspended ? "suspended" : ""].join(" ").trim() || null,
      onclick: () => togglePick(r.id, !st.picked.includes(r.id)),
      title: r.behaviour + (r.suspended ? " (suspended)" : ""),
    }, el("td", {}, box), el("td", { text: r.id }), el("td", { class: "path" }, ...breakable(r.path || "(none)"), r.suspended ? el("span", { class: "bad", text: " suspended" }) : null), el("td", { text: r.errors || "" }));
  }));
}

function togglePick(id, on) {
  st.picked = st.picked.filter((x) => x !== id);
  if (on) st.picked.push(id);
  if (st.picked.length > 8) st.picked.shift();
  delete st.live[id];
  const q = new URLSearchParams(location.search);
  if (st.picked.length) q.set("agents", st.picked.join(",")); else q.delete("agents");
  history.replaceState(null, "", "?" + q.toString());
  renderViews();
  connect();
}

// --- the history slider ---

function range() {
  let first = Infinity, last = -Infinity;
  for (const id of st.picked) {
    const a = st.live[id];
    if (!a) continue;
    first = Math.min(first, a.first);
    last = Math.max(last, a.last);
  }
  return first <= last ? [first, last] : null;
}

function renderSlider() {
  const r = range();
  const s = $("#slider");
  if (!r) { s.disabled = true; return; }
  s.disabled = false;
  s.min = r[0];
  s.max = r[1];
  if (st.past === null) s.value = r[1];
  $("#slider-label").textContent = st.past === null ? `live (tick ${r[1]})` : `tick ${st.past} of ${r[0]}–${r[1]}`;
}

async function showPast(tick) {
  st.past = tick;
  $("#slider-label").textContent = `tick ${tick}`;
  const out = {};
  await Promise.all(st.picked.map(async (id) => {
    const res = await fetch(url("api/history", { agent: id, tick }));
    if (res.ok) out[id] = await res.json();
  }));
  if (st.past !== tick) return; // moved again meanwhile
  st.pastFrames = out;
  renderSlider();
  renderViews();
}

function goLive() {
  st.past = null;
  st.pastFrames = {};
  renderSlider();
  renderViews();
}

// --- an agent's view ---

function renderViews() {
  $("#hint").hidden = st.picked.length > 0;
  const views = st.picked.map((id) => {
    let frame, prev, past = false;
    if (st.past !== null && st.pastFrames[id]) {
      frame = st.pastFrames[id].frame;
      prev = st.pastFrames[id].prev;
      past = true;
    } else if (st.live[id]) {
      frame = st.live[id].frame;
      prev = st.live[id].prev;
    }
    if (!frame) return el("div", { class: "agent-view", "data-id": id }, el("h2", { text: `agent ${id}` }), el("p", { class: "muted", text: "waiting for its first frame…" }));
    return agentView(frame, prev, past);
  });
  $("#views").replaceChildren(...views);
}

function agentView(f, prev, past) {
  const structure = st.structures[f.structure];
  const active = new Set(f.active || []);
  const paused = new Set(f.paused || []);
  const section = (title, cls, ...kids) => el("section", { class: cls }, el("h3", { text: title }), ...kids);
  const changes = changedKeys(prev && prev.context, f.context, "");
  return el("div", { class: "agent-view" + (past ? " past" : ""), "data-id": f.id, "data-tick": f.tick },
    el("h2", {}, `agent ${f.id} `, el("span", { class: "muted", text: `${f.behaviour} · tick ${f.tick} · ${fmt(f.clock)} s${f.interval > 1 ? ` · every ${f.interval} host ticks` : ""}` })),
    el("div", {}, "state ", el("span", { class: "path", text: f.path || "(none)" }), f.suspended ? el("strong", { class: "bad", text: " suspended" }) : null,
      f.suspended && !past ? el("button", { class: "resume-agent", "data-id": f.id, onclick: () => post({ op: "resume", agent: f.id }), text: "resume agent" }) : null,
      !past ? el("button", { class: "reset-agent", "data-id": f.id, title: "back to the initial state, the context kept (an agent stuck on its stack)", onclick: () => post({ op: "reset", agent: f.id }), text: "reset" }) : null,
      !past ? el("button", { class: "respawn-agent", "data-id": f.id, title: "back to the initial state with a new context", onclick: () => post({ op: "respawn", agent: f.id }), text: "respawn" }) : null),
    (f.stacks || []).length ? el("div", { class: "stack" }, "stack ", ...(f.stacks.map((s) => el("span", { class: "muted", text: `${s.machine || "root"}: [${s.states.join(", ")}] ` })))) : null,
    changesList(past ? (f.transitions || []) : (st.changes[f.id] || [])),
    section("machine", "diagram", structure ? stateBox(structure.root, active, paused, true, stepsByState(f)) : el("span", { class: "muted", text: "…" })),
    section("context", "ctx", ctxTree(f.context, "", changes)),
    (f.decisions || []).length ? section("decisions", "decisions", ...f.decisions.map(decisionTable)) : null,
    curvesOf(structure, f),
    (f.timers || []).length ? section("timers", "timers", el("table", {}, ...f.timers.map((t) => el("tr", {}, el("td", { text: t.state }), el("td", { text: fmt(t.time) + " s" }), el("td", { class: "muted", text: t.every ? `every ${fmt(t.every)} s, ${fmt(t.acc)} s since` : "" }))))) : null,
    (f.events || []).length || (f.requests || []).length ? section("pending", "pending", el("ul", { class: "plain" },
      ...(f.events || []).map((e) => el("li", { text: `${e.from === "message" ? "message" : "event"} ${e.name}` + (e.sender ? ` from agent ${e.sender}` : "") + (e.payload !== undefined ? " " + JSON.stringify(e.payload) : "") })),
      ...(f.requests || []).map((r) => el("li", { text: `${r.kind} ${r.target || ""} on ${r.machine || "root"}` + (r.payload !== undefined ? " " + JSON.stringify(r.payload) : "") })))) : null,
    (f.errors || []).length ? section(`errors (${f.error_count})`, "errors", el("ul", { class: "plain" }, ...f.errors.map((e) => el("li", { text: `tick ${e.tick} ${e.file}:${e.line}: ${e.callback} of ${e.state || "root"}: ${e.msg}` })))) : null,
    logSection(f, past),
  );
}

function stepsByState(f) {
  const out = new Map();
  for (const s of f.steps || []) out.set(s.state, s);
  return out;
}

// treeBox draws a behaviour-tree node and its children; running nodes are
// in the frame's active list as "state[node.path]".
function treeBox(t, active) {
  return el("div", { class: "bt" + (active.has(t.path) ? " active" : "") + (isNever("tree node", t.path) ? " never" : ""), "data-path": t.path },
    el("span", { class: "name", text: t.label }),
    (t.kids || []).length ? el("div", { class: "kids" }, ...t.kids.map((k) => treeBox(k, active))) : null);
}

// stepsLine lists a state's steps, the current one marked while it is active.
function stepsLine(n, progress) {
  const items = n.steps.map((label, i) => {
    const on = progress && progress.item === i;
    return el("span", { class: on ? "step active" : "step", text: label + (on ? ` (${fmt(progress.time)} s)` : "") });
  });
  const done = progress && progress.item >= n.steps.length ? " (done)" : "";
  return el("div", { class: "steps" }, "steps" + (n.steps_loop ? " (loop)" : "") + done + ": ", ...items);
}

function stateBox(n, active, paused, root, steps) {
  const cls = ["state", active.has(n.path) ? "active" : "", paused.has(n.path) ? "on-stack" : "", isNever("state", n.path) ? "never" : ""].join(" ").trim();
  const trans = (n.transitions || []).map((t) => {
    let s = t.on ? `on ${t.on}` : t.after ? `after ${t.after}s` : "";
    if (t.when) s += (s ? " " : "") + `when ${t.when}`;
    s += ` ${t.kind === "to" ? "→" : t.kind} ${t.target || ""}`;
    if (t.run) s += " (run)";
    const never = isNever("transition", `${n.path}: ${t.name}`);
    return el("div", { class: never ? "trans never" : "trans", text: s.trim() + (never ? " (never)" : "") });
  });
  const label = root ? "root" : n.name;
  return el("div", { class: cls, "data-path": n.path },
    el("span", { class: "name", text: label }),
    n.kind !== "leaf" ? el("span", { class: "kind", text: n.kind + (n.initial ? `, initial ${n.initial}` : "") }) : null,
    n.score ? el("div", { class: "trans", text: `score ${n.score}` }) : null,
    ...trans,
    (n.steps || []).length ? stepsLine(n, active.has(n.path) ? steps.get(n.path) : null) : null,
    n.tree ? el("div", { class: "tree" }, treeBox(n.tree, active)) : null,
    (n.children || []).length ? el("div", { class: "kids" + (n.kind === "regions" ? " regions" : "") }, ...n.children.map((c) => stateBox(c, active, paused, false, steps))) : null);
}

function changedKeys(before, after, prefix) {
  const out = new Set();
  if (before === undefined || before === null) return out;
  const walk = (a, b, p) => {
    if (JSON.stringify(a) === JSON.stringify(b)) return;
    out.add(p);
    if (a && b && typeof a === "object" && typeof b === "object") {
      for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) walk(a[k], b[k], p ? p + "." + k : k);
    }
  };
  walk(before, after, prefix);
  return out;
}

// changesList lists an agent's last transitions, newest first, each with
// its tick and cause (to, push, pop, replace, reload, spawn…).
function changesList(ts) {
  if (!ts.length) return null;
  return el("ol", { class: "changes" }, ...ts.slice(-maxChanges).reverse().map((t) =>
    el("li", { "data-tick": t.tick, text: `tick ${t.tick} ${t.kind}: ${t.from || "-"} → ${t.to || "-"}` })));
}

// ctxTree draws a context. A Lua sequence (a JSON array) is listed from 1,
// as Lua numbers it; an empty table shows as {}.
function ctxTree(v, path, changes) {
  if (v === null || typeof v !== "object") return el("span", { text: value(v) });
  const keys = Object.keys(v);
  if (!Array.isArray(v)) keys.sort();
  if (!keys.length) return el("div", { class: "kv muted", text: "{}" });
  return el("div", {}, ...keys.map((k) => {
    const name = Array.isArray(v) ? String(Number(k) + 1) : k;
    const p = path ? path + "." + name : name;
    const x = v[k];
    const cls = changes.has(p) ? "kv changed" : "kv";
    if (x !== null && typeof x === "object") {
      const empty = !Object.keys(x).length;
      if (empty) return el("div", { class: cls, "data-key": p }, el("span", { class: "key", text: name }), " = {}");
      const d = el("details", { class: changes.has(p) ? "changed" : "", "data-key": p, open: true }, el("summary", {}, el("span", { class: "key", text: name }), Array.isArray(x) ? ` [${x.length}]` : ""), ctxTree(x, p, changes));
      return d;
    }
    return el("div", { class: cls, "data-key": p }, el("span", { class: "key", text: name }), " = ", value(x));
  }));
}

function decisionTable(d) {
  const rows = d.candidates.map((c) => {
    const score = typeof c.score === "number" ? c.score : 0;
    const width = Math.max(0, Math.min(1, score)) * 100;
    return el("tr", { class: c.state === d.winner ? "winner" : "", "data-state": c.state },
      el("td", { text: c.state.split(".").pop() }),
      el("td", { class: "score", text: fmt(c.score) }),
      el("td", { class: "barcell" }, bar(width)),
      el("td", { class: "parts", text: (c.parts || []).map((p) => `${p.name}=${fmt(p.value)}`).join("  ") }));
  });
  return el("div", {},
    el("div", { class: "muted", text: `${d.machine || "root"} at tick ${d.tick}: ${d.kept ? "kept " : ""}${d.winner}` + (d.momentum ? ` · momentum ${d.momentum}` : "") }),
    el("table", { class: "scores" }, ...rows));
}

function bar(width) {
  const b = el("div", { class: "bar" });
  b.style.width = width + "%"; // the CSSOM, which the page's CSP allows (a style attribute it would not)
  return b;
}

function findNode(n, path) {
  if (n.path === path) return n;
  for (const c of n.children || []) {
    const f = findNode(c, path);
    if (f) return f;
  }
  return null;
}

function curvesOf(structure, f) {
  if (!structure) return null;
  const figs = [];
  const machines = new Set((f.decisions || []).map((d) => d.machine));
  for (const m of machines) {
    const node = m === "" ? structure.root : findNode(structure.root, m);
    if (!node) continue;
    for (const c of node.children || []) {
      (c.curves || []).forEach((cv, i) => {
        const input = (f.inputs || []).find((x) => x.state === c.path && x.curve === i);
        figs.push(curvePlot(c.name, cv, input));
      });
    }
  }
  return figs.length ? el("section", { class: "curves-box" }, el("h3", { text: "curves" }), el("div", { class: "curves" }, ...figs)) : null;
}

function curvePlot(name, cv, input) {
  const W = 160, H = 90, px = (x) => 4 + x * (W - 8), py = (y) => H - 4 - y * (H - 8);
  const pts = cv.points.map(([x, y]) => `${px(x).toFixed(1)},${py(y).toFixed(1)}`).join(" ");
  const plot = svg("svg", { width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: "img" },
    svg("rect", { x: 4, y: 4, width: W - 8, height: H - 8, fill: "none", stroke: "#ddd" }),
    svg("polyline", { points: pts, fill: "none", stroke: "#4a7fd4", "stroke-width": 2 }));
  let caption = `${name}: ${cv.curve} of ${cv.input}`;
  if (input) {
    const x = Math.max(0, Math.min(1, input.x));
    const y = interpolate(cv.points, x);
    plot.append(svg("line", { x1: px(x), x2: px(x), y1: 4, y2: H - 4, stroke: "#b3261e", "stroke-dasharray": "3 2" }));
    plot.append(svg("circle", { cx: px(x), cy: py(y), r: 3.5, fill: "#b3261e", class: "input" }));
    caption += ` · x=${fmt(input.x)}`;
  }
  return el("figure", { class: "curve" }, plot, el("figcaption", { text: caption }));
}

function interpolate(points, x) {
  for (let i = 1; i < points.length; i++) {
    const [x0, y0] = points[i - 1], [x1, y1] = points[i];
    if (x <= x1) return y0 + (y1 - y0) * ((x - x0) / (x1 - x0 || 1));
  }
  return points[points.length - 1][1];
}

function logSection(f, past) {
  const lines = past ? (f.logs || []) : (st.logs[f.id] || []);
  if (!lines.length) return null;
  return el("section", {}, el("h3", { text: "log" }), el("ol", { class: "logs" }, ...lines.slice(-50).map((l) => el("li", { text: `tick ${l.tick} ${l.state || "root"}: ${l.msg}` }))));
}

// --- commands ---

async function post(body) {
  try {
    const res = await fetch(url("api/command"), { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
    const out = await res.json();
    if (!res.ok) say(out.error || res.statusText, true);
    else say(`#${out.seq} ${body.op}: queued`, false);
    return res.ok;
  } catch (e) {
    say(String(e), true);
    return false;
  }
}

function target(sel) {
  if ($(sel).value === "*") return "*";
  if (!st.picked.length) { say("pick an agent first, or choose all", true); return null; }
  return st.picked.slice();
}

function json(text, what) {
  if (text.trim() === "") return { ok: true, value: undefined };
  try { return { ok: true, value: JSON.parse(text) }; } catch (e) { say(`${what} is not JSON: ${e.message}`, true); return { ok: false }; }
}

$("#send-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const agent = target("#send-target");
  const p = json($("#send-payload").value, "payload");
  if (agent === null || !p.ok) return;
  const body = { op: "send", agent, event: $("#send-event").value.trim() };
  if (p.value !== undefined) body.payload = p.value;
  post(body);
});

$("#set-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const agent = target("#set-target");
  let text = $("#set-value").value;
  let v = json(text, "value");
  if (!v.ok) {
    v = { ok: true, value: text }; // unquoted text: a string
    $("#messages").replaceChildren();
  }
  if (agent === null) return;
  post({ op: "set", agent, path: $("#set-path").value.trim(), value: v.value === undefined ? null : v.value });
});

$("#pause").addEventListener("click", () => post({ op: "pause" }));
$("#resume").addEventListener("click", () => post({ op: "resume" }));
$("#step").addEventListener("click", () => post({ op: "step", n: Number($("#step-n").value) || 1 }));
$("#rate-set").addEventListener("click", () => post({ op: "rate", hz: Number($("#rate").value) }));
$("#slider").addEventListener("input", (e) => {
  const r = range();
  const t = Number(e.target.value);
  if (r && t >= r[1]) goLive(); else showPast(t);
});
$("#live").addEventListener("click", goLive);
$("#coverage-file").addEventListener("change", (e) => {
  const f = e.target.files[0];
  if (f) f.text().then((text) => loadCoverage(text, f.name));
});
let filterTimer = 0;
$("#filter").addEventListener("input", (e) => {
  clearTimeout(filterTimer);
  filterTimer = setTimeout(() => { st.filter = e.target.value; st.offset = 0; connect(); }, 250);
});
$("#only-errors").addEventListener("change", (e) => { st.errors = e.target.checked; st.offset = 0; connect(); });
$("#sort").addEventListener("change", (e) => { st.sort = e.target.value; connect(); });
$("#prev-page").addEventListener("click", () => { st.offset = Math.max(0, st.offset - st.limit); connect(); });
$("#next-page").addEventListener("click", () => { if (st.list && st.offset + st.limit < st.list.matched) { st.offset += st.limit; connect(); } });

renderViews();
connect();
