// Trajectory viewer of the static report. Plain JavaScript, no build step, no network:
// the list of episodes comes from data/index.js (window.EB_INDEX) and one episode's steps from
// data/episodes/<key>.js, loaded with a <script> tag when the episode is picked (pages opened
// from disk may not fetch files). All text from results is set with textContent, never as HTML.
(function () {
  "use strict";
  const INDEX = window.EB_INDEX || { runs: [], episodes: [] };
  const { el, $ } = window.EB_DOM;  // from dom.js, loaded before this file
  const state = { episode: null, step: 0, loading: null };
  const cache = {};

  function option(value, text) {
    return el("option", { value: value }, text);
  }

  // ------------------------------------------------------------------ pickers
  function episodeLabel(e) {
    let who = e.agent === "human" ? "human" + (e.player ? " (" + e.player + ")" : "") : e.agent;
    if (e.model && e.agent !== "human") who += " / " + e.model;
    let text = who + " · r" + e.repeat;
    text += e.finished ? (e.escaped ? " · escaped" : " · not escaped") : " · unfinished";
    text += " · " + e.total_steps + " steps, " + e.hints_used + " hints";
    return text;
  }

  function fillRuns() {
    const sel = $("pick-run");
    sel.replaceChildren();
    for (const r of INDEX.runs) sel.append(option(r.index, "#" + r.index + " " + r.label));
  }

  function fillSettings() {
    const run = Number($("pick-run").value);
    const sel = $("pick-setting");
    const settings = [...new Set(INDEX.episodes.filter((e) => e.run === run).map((e) => e.setting))];
    settings.sort();
    sel.replaceChildren(...settings.map((s) => option(s, s)));
  }

  function fillEpisodes() {
    const run = Number($("pick-run").value);
    const setting = $("pick-setting").value;
    const sel = $("pick-episode");
    const eps = INDEX.episodes.filter((e) => e.run === run && e.setting === setting);
    sel.replaceChildren(...eps.map((e) => option(e.key, episodeLabel(e))));
  }

  // ------------------------------------------------------------------ loading
  window.EB_EPISODE_LOADED = function (data) {
    cache[data.key] = data;
    if (state.loading === data.key) show(data, state.pendingStep || 1);
  };

  function openEpisode(key, step) {
    const entry = INDEX.episodes.find((e) => e.key === key);
    if (!entry) return;
    $("pick-run").value = String(entry.run);
    fillSettings();
    $("pick-setting").value = entry.setting;
    fillEpisodes();
    $("pick-episode").value = key;
    state.loading = key;
    state.pendingStep = step || 1;
    if (cache[key]) { show(cache[key], state.pendingStep); return; }
    $("step-view").replaceChildren(el("p", { class: "empty" }, "Loading…"));
    const script = el("script", { src: "data/episodes/" + encodeURIComponent(key) + ".js" });
    script.onerror = () => {
      $("step-view").replaceChildren(el("p", { class: "empty" }, "This episode has no step log."));
    };
    document.body.append(script);
  }

  // ------------------------------------------------------------------ curve
  const SVG = "http://www.w3.org/2000/svg";
  function svg(tag, attrs) {
    const n = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, v);
    return n;
  }

  function drawCurve(ep) {
    const box = $("curve");
    box.replaceChildren();
    const steps = ep.steps;
    if (!steps.length) return;
    const W = 900, H = 150, L = 40, R = 10, T = 10, B = 24;
    const n = steps.length;
    const x = (i) => L + ((W - L - R) * i) / Math.max(1, n);
    const y = (p) => T + (H - T - B) * (1 - p);
    const root = svg("svg", { viewBox: "0 0 " + W + " " + H, class: "curve", role: "img" });
    root.append(svg("line", { x1: L, y1: y(0), x2: W - R, y2: y(0), class: "axis" }));
    root.append(svg("line", { x1: L, y1: y(0), x2: L, y2: y(1), class: "axis" }));
    for (const p of [0, 0.5, 1]) {
      const t = svg("text", { x: L - 4, y: y(p) + 4, class: "tick", "text-anchor": "end" });
      t.textContent = Math.round(p * 100) + "%";
      root.append(t);
    }
    const lastTick = svg("text", { x: W - R, y: H - 6, class: "tick", "text-anchor": "end" });
    lastTick.textContent = n + " steps";
    root.append(lastTick);
    let d = "M" + x(0) + "," + y(0);
    steps.forEach((s, i) => {
      const p = typeof s.progress === "number" ? s.progress : 0;
      d += " H" + x(i + 1).toFixed(1) + " V" + y(p).toFixed(1);
    });
    root.append(svg("path", { d: d, class: "progress-line" }));
    for (const h of ep.hint_steps) {
      const s = steps[h - 1];
      const c = svg("circle", { cx: x(h), cy: y(s && typeof s.progress === "number" ? s.progress : 0), r: 4, class: "hint-dot" });
      const title = svg("title", {});
      title.textContent = "hint at step " + h + (s && s.hint ? ": " + s.hint.action : "");
      c.append(title);
      c.addEventListener("click", (ev) => { ev.stopPropagation(); go(h); });
      root.append(c);
    }
    const cursor = svg("line", { x1: 0, y1: T, x2: 0, y2: H - B, class: "cursor", id: "curve-cursor" });
    root.append(cursor);
    root.addEventListener("click", (ev) => {
      const rect = root.getBoundingClientRect();
      const px = ((ev.clientX - rect.left) / rect.width) * W;
      go(Math.round(((px - L) / (W - L - R)) * n));
    });
    box.append(root);
    state.curveX = x;
  }

  // ------------------------------------------------------------------ step view
  function field(label, value, cls) {
    if (value === undefined || value === null || value === "") return null;
    return el("div", { class: "field " + (cls || "") }, el("div", { class: "label" }, label),
      el("div", { class: "value" }, value));
  }

  function pre(text) { return el("pre", {}, String(text)); }

  // EscapeAgent logs its task list (reflection) and its queue of foresight proposals; other
  // agents log other details, shown as JSON.
  const TASK_KEYS = ["task_list", "tasks"];
  const PROPOSAL_KEYS = ["try_queue", "proposals"];

  function taskLine(t) {
    if (typeof t !== "object" || t === null) return String(t);
    let text = (t.index !== undefined ? "#" + t.index + " " : "") + (t.name || JSON.stringify(t));
    if (t.target) text += " — " + t.target + (t.position ? " (" + t.position + ")" : "");
    if (Array.isArray(t.failed) && t.failed.length) text += "; failed: " + t.failed.join(", ");
    return text;
  }

  function proposalLine(p) {
    if (typeof p !== "object" || p === null) return String(p);
    let text = p.action || JSON.stringify(p);
    if (p.scene) text += " in " + p.scene;
    if (p.trigger) text += " (from a new " + p.trigger + ")";
    if (p.status && p.status !== "pending") text += " — " + p.status;
    return text;
  }

  function listBlock(title, items, line, cls) {
    const list = el(cls === "tasks" ? "ol" : "ul", { class: cls });
    for (const it of items) list.append(el("li", {}, line(it)));
    return el("div", {}, el("b", {}, title + " (" + items.length + ")"), list);
  }

  function agentState(agent) {
    if (!agent || typeof agent !== "object" || !Object.keys(agent).length) return null;
    const parts = [];
    const rest = {};
    for (const [k, v] of Object.entries(agent)) {
      if (TASK_KEYS.includes(k) && Array.isArray(v)) parts.push(listBlock("Task list", v, taskLine, "tasks"));
      else if (PROPOSAL_KEYS.includes(k) && Array.isArray(v)) parts.push(listBlock("Foresight proposals to try", v, proposalLine, "proposals"));
      else rest[k] = v;
    }
    if (Object.keys(rest).length) {
      parts.push(el("details", {}, el("summary", {}, "More (" + Object.keys(rest).join(", ") + ")"),
        pre(JSON.stringify(rest, null, 2))));
    }
    return el("div", {}, ...parts);
  }

  function renderStep() {
    const ep = state.episode;
    const n = ep.steps.length;
    const i = state.step;
    $("step-number").value = i;
    $("step-slider").value = i;
    const view = $("step-view");
    if (!n) { view.replaceChildren(el("p", { class: "empty" }, "No steps logged.")); return; }
    const s = ep.steps[i - 1];
    const cursor = $("curve-cursor");
    if (cursor && state.curveX) {
      cursor.setAttribute("x1", state.curveX(i));
      cursor.setAttribute("x2", state.curveX(i));
    }
    const status = s.error ? "invalid" : s.success ? "success" : "failed";
    const badges = el("div", { class: "badges" },
      el("span", { class: "badge " + status }, status),
      s.progressed ? el("span", { class: "badge progress" }, "progress") : null,
      s.hint ? el("span", { class: "badge hint" }, s.hint.forced ? "forced by hint" : "hint") : null,
      s.mode ? el("span", { class: "badge mode" }, s.mode) : null,
      typeof s.progress === "number" ? el("span", { class: "badge" }, Math.round(s.progress * 1000) / 10 + "%") : null);
    let hint = null;
    if (s.hint) {
      hint = "go to " + (s.hint.scene || "?") + " and do " + (s.hint.action || "?") +
        " (reference action " + s.hint.index + ", " + (s.hint.steps_in_help || 0) + " steps in help" +
        (s.hint.forced ? ", taken for the agent" : "") + ")";
    }
    const events = Array.isArray(s.events) && s.events.length
      ? s.events.map((e) => e.kind + (e.name ? " " + e.name : "")).join(", ") : null;
    const calls = Array.isArray(s.calls) && s.calls.length
      ? s.calls.map((c) => (c.kind || "call") + " (" + (c.tokens_in || 0) + " in, " + (c.tokens_out || 0) + " out" + (c.cached ? ", cached" : "") + ")").join("; ")
      : null;
    const parts = [
      el("div", { class: "step-head" }, el("h3", {}, "Step " + i), badges),
      field("Position", s.position),
      field("Action", el("code", { class: "action" }, s.action || "")),
      field("Feedback", s.feedback, "feedback"),
      field("Hint", hint, "hint"),
      field("Events", events),
      field("Reasoning", s.reasoning ? pre(s.reasoning) : null),
      s.raw_answer && s.raw_answer !== s.reasoning
        ? field("Model answer", el("details", {}, el("summary", {}, "show"), pre(s.raw_answer))) : null,
      field("Agent state", agentState(s.agent)),
      field("Observation", s.observation ? pre(s.observation) : null, "observation"),
      field("Model calls", calls),
    ];
    view.replaceChildren(...parts.filter((p) => p));
    if (history.replaceState) {
      history.replaceState(null, "", "#episode=" + encodeURIComponent(ep.key) + "&step=" + i);
    }
  }

  function show(ep, step) {
    state.episode = ep;
    state.loading = null;
    const n = ep.steps.length;
    $("step-slider").max = Math.max(1, n);
    $("step-number").max = Math.max(1, n);
    $("step-count").textContent = n;
    const m = ep.metrics || {};
    const head = [ep.setting, ep.agent === "human" ? "human " + (ep.player || "") : ep.agent + " / " + ep.model,
      ep.finished ? (ep.escaped ? "escaped" : "not escaped") : "unfinished",
      (m.total_steps !== undefined ? m.total_steps : n) + " steps",
      (m.hints_used !== undefined ? m.hints_used : ep.hint_steps.length) + " hints"];
    // the game's page (its dependency graph), when the report could draw the game
    const entry = INDEX.episodes.find((e) => e.key === ep.key);
    $("episode-head").replaceChildren(head.join(" · "), entry && entry.game_page
      ? el("span", {}, " · ", el("a", { href: entry.game_page, id: "game-page-link" }, "dependency graph"))
      : null);
    drawCurve(ep);
    go(step);
  }

  function go(step) {
    const ep = state.episode;
    if (!ep) return;
    const n = ep.steps.length;
    state.step = Math.min(Math.max(1, Number(step) || 1), Math.max(1, n));
    renderStep();
  }

  function seek(direction, test) {
    const ep = state.episode;
    if (!ep) return;
    for (let i = state.step + direction; i >= 1 && i <= ep.steps.length; i += direction) {
      if (test(ep.steps[i - 1], i)) { go(i); return; }
    }
  }

  const isHintStart = (s, i) => state.episode.hint_steps.includes(i);
  const isProgress = (s) => Boolean(s.progressed);

  // ------------------------------------------------------------------ wiring
  function init() {
    if (!$("pick-run")) return;
    fillRuns();
    fillSettings();
    fillEpisodes();
    $("pick-run").addEventListener("change", () => { fillSettings(); fillEpisodes(); openEpisode($("pick-episode").value); });
    $("pick-setting").addEventListener("change", () => { fillEpisodes(); openEpisode($("pick-episode").value); });
    $("pick-episode").addEventListener("change", () => openEpisode($("pick-episode").value));
    $("first").addEventListener("click", () => go(1));
    $("last").addEventListener("click", () => go(Infinity));
    $("prev").addEventListener("click", () => go(state.step - 1));
    $("next").addEventListener("click", () => go(state.step + 1));
    $("step-slider").addEventListener("input", (e) => go(e.target.value));
    $("step-number").addEventListener("change", (e) => go(e.target.value));
    $("next-hint").addEventListener("click", () => seek(1, isHintStart));
    $("prev-hint").addEventListener("click", () => seek(-1, isHintStart));
    $("next-progress").addEventListener("click", () => seek(1, isProgress));
    $("prev-progress").addEventListener("click", () => seek(-1, isProgress));
    document.addEventListener("keydown", (e) => {
      if (!state.episode || ["INPUT", "SELECT", "TEXTAREA"].includes(e.target.tagName)) return;
      if (e.key === "ArrowRight") go(state.step + 1);
      else if (e.key === "ArrowLeft") go(state.step - 1);
      else if (e.key === "Home") go(1);
      else if (e.key === "End") go(Infinity);
      else return;
      e.preventDefault();
    });
    // Links like index.html#episode=<key>&step=<n> open that step (rows of tables link here).
    const params = new URLSearchParams(location.hash.slice(1));
    const key = params.get("episode");
    if (key && INDEX.episodes.some((e) => e.key === key)) openEpisode(key, Number(params.get("step")) || 1);
    else if ($("pick-episode").value) openEpisode($("pick-episode").value);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
