// The browser play page of `escapebench serve`. Plain JavaScript, no build step. The server
// owns the game (engine and hint system); this page only shows its state and sends actions.
// All text from the game is set with textContent, never as HTML.
(function () {
  "use strict";
  const BASE = window.EB_BASE || "/";
  const $ = (id) => document.getElementById(id);
  const state = { session: null, view: null, selected: null, inputTarget: null, busy: false };

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") node.className = v;
      else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, v);
    }
    for (const c of children) {
      if (c === null || c === undefined || c === false) continue;
      node.append(c instanceof Node ? c : String(c));
    }
    return node;
  }

  function showError(text) { $("error").textContent = text || ""; }

  async function api(method, path, body) {
    const opts = { method: method, headers: {} };
    if (body !== undefined) {
      opts.headers["Content-Type"] = "application/json";
      opts.body = JSON.stringify(body);
    }
    const resp = await fetch(BASE + "api/" + path, opts);
    let data = null;
    try { data = await resp.json(); } catch (e) { data = null; }
    if (!resp.ok) throw new Error((data && data.error) || ("request failed: " + resp.status));
    return data;
  }

  // ------------------------------------------------------------------ start screen
  async function showStart() {
    $("start").hidden = false;
    $("game-view").hidden = true;
    $("player").value = localStorage.getItem("eb-player") || "";
    try {
      const games = await api("GET", "games");
      const sel = $("game");
      sel.replaceChildren(...games.games.map((g) =>
        el("option", { value: g.setting }, g.title + " — " + g.difficulty + " (" + g.setting + ")")));
      const wanted = new URLSearchParams(location.search).get("game");
      if (wanted && games.games.some((g) => g.setting === wanted)) sel.value = wanted;
      const open = await api("GET", "sessions");
      const box = $("unfinished");
      if (open.sessions.length) {
        box.replaceChildren(...open.sessions.map((s) => el("button", {
          class: "thing", "data-session": s.id, onclick: () => openSession(s.id),
        }, el("span", { class: "name" }, "Resume " + s.setting),
          el("span", { class: "desc" }, s.player + " · step " + s.steps + " · " + Math.round(100 * s.progress) + "%"))));
      }
    } catch (e) { showError(e.message); }
  }

  $("start-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    showError("");
    const player = $("player").value.trim();
    localStorage.setItem("eb-player", player);
    try {
      const view = await api("POST", "sessions", { setting: $("game").value, player: player });
      history.pushState(null, "", BASE + "play?session=" + encodeURIComponent(view.id));
      state.session = view.id;
      render(view);
    } catch (e) { showError(e.message); }
  });

  async function openSession(id) {
    showError("");
    try {
      const view = await api("GET", "sessions/" + encodeURIComponent(id));
      history.pushState(null, "", BASE + "play?session=" + encodeURIComponent(id));
      state.session = id;
      render(view);
    } catch (e) { showError(e.message); showStart(); }
  }

  // ------------------------------------------------------------------ playing
  async function act(action) {
    if (state.busy || !state.session) return;
    state.busy = true;
    showError("");
    try {
      render(await api("POST", "sessions/" + encodeURIComponent(state.session) + "/actions", { action: action }));
    } catch (e) { showError(e.message); }
    state.busy = false;
  }

  async function askHint() {
    if (state.busy || !state.session) return;
    state.busy = true;
    showError("");
    try {
      render(await api("POST", "sessions/" + encodeURIComponent(state.session) + "/hint", {}));
    } catch (e) { showError(e.message); }
    state.busy = false;
  }

  function select(tool) {
    state.selected = state.selected === tool ? null : tool;
    renderThings();
  }

  function clickItem(name) {
    if (state.selected) {
      const tool = state.selected;
      state.selected = null;
      act("apply(" + tool + ", " + name + ")");
    } else {
      act("click(" + name + ")");
    }
  }

  function clickBagTool(name) {
    if (state.selected && state.selected !== name) {
      const first = state.selected;
      state.selected = null;
      act("craft(" + first + ", " + name + ")");
    } else {
      select(name);
    }
  }

  function startInput(name) {
    state.inputTarget = name;
    $("input-target").textContent = name;
    $("input-form").hidden = false;
    $("input-text").value = "";
    $("input-text").focus();
  }

  $("input-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const text = $("input-text").value.trim();
    if (!text || !state.inputTarget) return;
    const target = state.inputTarget;
    state.inputTarget = null;
    $("input-form").hidden = true;
    act("input(" + text + ", " + target + ")");
  });
  $("input-cancel").addEventListener("click", () => { state.inputTarget = null; $("input-form").hidden = true; });
  $("action-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const text = $("action-text").value.trim();
    if (text) { $("action-text").value = ""; act(text); }
  });
  $("hint-button").addEventListener("click", askHint);

  // ------------------------------------------------------------------ rendering
  function thing(kind, name, desc, onclick, extra) {
    const attrs = { class: "thing " + kind + (state.selected === name && kind === "tool bagged" ? " selected" : ""),
      "data-name": name, "data-kind": kind, type: "button" };
    if (onclick) attrs.onclick = onclick; else { attrs.disabled = "disabled"; attrs.class += " inert"; }
    const button = el("button", attrs, el("span", { class: "name" }, name), desc ? el("span", { class: "desc" }, desc) : null);
    return extra ? el("span", { class: "thing-wrap" }, button, extra) : button;
  }

  function renderThings() {
    const v = state.view;
    const ended = v.ended;
    const items = [];
    for (const it of v.items) {
      const typeButton = it.interactable && !ended
        ? el("button", { type: "button", class: "type-into", "data-name": it.name, onclick: () => startInput(it.name) }, "Type…")
        : null;
      items.push(thing("item", it.name, it.desc, it.interactable && !ended ? () => clickItem(it.name) : null, typeButton));
    }
    for (const t of v.scene_tools) {
      items.push(thing("tool", t.name, t.desc, ended ? null : () => clickItem(t.name)));
    }
    $("items").replaceChildren(...(items.length ? items : [el("p", { class: "empty" }, "Nothing in particular.")]));
    const exits = v.exits.map((e) => thing("exit", e.label, "to " + e.target, ended ? null : () => act("move(" + e.label + ")")));
    $("exits").replaceChildren(...(exits.length ? exits : [el("p", { class: "empty" }, "No way out you can see.")]));
    const bag = v.bag.map((t) => thing("tool bagged", t.name, t.desc, ended ? null : () => clickBagTool(t.name)));
    $("bag").replaceChildren(...(bag.length ? bag : [el("p", { class: "empty" }, "Your bag is empty.")]));
    $("mode-help").textContent = state.selected
      ? "Using " + state.selected + ": click a thing to apply it to, or another bag tool to craft them together (click it again to put it back)."
      : "Click a thing to use it. To apply a tool, pick it in your bag, then click the thing to use it on; pick two tools to craft them together. \"Type…\" enters text into a thing.";
  }

  function render(view) {
    state.view = view;
    $("start").hidden = true;
    $("game-view").hidden = false;
    $("title").textContent = view.title + " (" + view.setting + ")";
    $("who").textContent = view.player;
    $("steps").textContent = view.steps;
    $("hints").textContent = view.hints_used;
    const pct = Math.round(view.progress * 1000) / 10;
    $("progress-text").textContent = pct + "%";
    $("progress-bar").style.width = pct + "%";
    $("scene-name").textContent = view.scene;
    $("position").textContent = view.position;
    $("scene-desc").textContent = view.scene_desc;
    const hb = $("hint-box");
    if (view.hint) {
      hb.hidden = false;
      hb.textContent = "Hint: go to " + view.hint.scene + " and do " + view.hint.action +
        (view.hint.forced_next ? " — it will be done for you on your next step." : "");
    } else hb.hidden = true;
    const log = $("log");
    log.replaceChildren(...view.log.slice().reverse().map((e) => el("div", {
      class: "entry " + (e.success ? "ok" : e.error ? "bad" : ""),
    }, el("div", { class: "act" }, "#" + (e.step + 1) + " " + (e.action || "(not an action)") + (e.forced ? " (played by the hint system)" : "")),
      el("div", { class: "fb" }, e.feedback))));
    const banner = $("banner");
    if (view.ended) {
      banner.hidden = false;
      banner.replaceChildren(
        "You escaped in " + view.steps + " steps with " + view.hints_used + " hint" + (view.hints_used === 1 ? "" : "s") + ". Your result is saved. ",
        el("a", { href: BASE + "report/#episode=" + encodeURIComponent(view.report_key || ""), id: "see-report" }, "See it in the report"),
        " · ",
        el("a", { href: BASE + "play" }, "Play another game"));
      $("hint-button").disabled = true;
    } else {
      banner.hidden = true;
      $("hint-button").disabled = false;
    }
    if (state.selected && !view.bag.some((t) => t.name === state.selected)) state.selected = null;
    renderThings();
  }

  // ------------------------------------------------------------------ start
  const sid = new URLSearchParams(location.search).get("session");
  if (sid) openSession(sid); else showStart();
  window.addEventListener("popstate", () => location.reload());
})();
