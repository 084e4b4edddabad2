// The browser play page of `escapebench serve`. Plain JavaScript, no build step. The server
// owns the game (engine and hint system); this page only shows its state and sends actions.
// All text from the game is set with textContent, never as HTML.
(function () {
  "use strict";
  const BASE = window.EB_BASE || "/";
  const { el, $ } = window.EB_DOM;  // from dom.js, loaded before this file
  const state = { session: null, view: null, selected: null, inputTarget: null, busy: false };

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

  // Commands name things by their numbers in the current view (as PlaySession reads them),
  // which works for any name, commas and parentheses included.
  function select(tool) {
    state.selected = state.selected && state.selected.n === tool.n ? null : tool;
    renderThings();
  }

  function clickThing(thing) {
    if (state.selected) {
      const tool = state.selected;
      state.selected = null;
      act("apply(" + tool.n + ", " + thing.n + ")");
    } else {
      act("click " + thing.n);
    }
  }

  function clickBagTool(tool) {
    if (state.selected && state.selected.n !== tool.n) {
      const first = state.selected;
      state.selected = null;
      act("craft(" + first.n + ", " + tool.n + ")");
    } else {
      select(tool);
    }
  }

  function startInput(thing) {
    state.inputTarget = thing;
    $("input-target").textContent = thing.name;
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
    act("input(" + text + ", " + target.n + ")");
  });
  $("input-cancel").addEventListener("click", () => { state.inputTarget = null; $("input-form").hidden = true; });
  $("action-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const text = $("action-text").value.trim();
    if (text) { $("action-text").value = ""; act(text); }
  });
  $("hint-button").addEventListener("click", askHint);

  // ------------------------------------------------------------------ rendering
  function thingButton(kind, name, desc, onclick, selected) {
    const attrs = { class: "thing " + kind + (selected ? " selected" : ""), "data-name": name,
      "data-kind": kind, type: "button" };
    if (onclick) attrs.onclick = onclick; else { attrs.disabled = "disabled"; attrs.class += " inert"; }
    // a tool lying in the scene says so, as the terminal's "(tool: click to take it)" does
    return el("button", attrs, el("span", { class: "name" }, name), desc ? el("span", { class: "desc" }, desc) : null,
      kind === "tool" && onclick ? el("span", { class: "tag" }, "tool: click to take it") : null);
  }

  function renderThings() {
    const v = state.view;
    const ended = v.ended;
    const things = v.things.map((t) => {
      const usable = t.interactable && !ended;
      const button = thingButton(t.kind, t.name, t.desc, usable ? () => clickThing(t) : null, false);
      if (t.kind !== "item" || !usable) return button;
      return el("span", { class: "thing-wrap" }, button,
        el("button", { type: "button", class: "type-into", "data-name": t.name, onclick: () => startInput(t) }, "Type…"));
    });
    $("items").replaceChildren(...(things.length ? things : [el("p", { class: "empty" }, "Nothing in particular.")]));
    const exits = v.exits.map((e) => thingButton("exit", e.label, "to " + e.target, ended ? null : () => act("move " + e.n)));
    $("exits").replaceChildren(...(exits.length ? exits : [el("p", { class: "empty" }, "No way out you can see.")]));
    const bag = v.bag.map((t) => thingButton("bagged", t.name, t.desc, ended ? null : () => clickBagTool(t),
      state.selected && state.selected.n === t.n));
    $("bag").replaceChildren(...(bag.length ? bag : [el("p", { class: "empty" }, "Your bag is empty.")]));
    $("mode-help").textContent = state.selected
      ? "Using " + state.selected.name + ": click a thing to apply it to, or another tool in your bag to craft them together (click it again to put it back)."
      : "Click a thing to use it. To apply a tool, pick it in your bag, then click the thing to use it on; pick two tools to craft them together. \"Type…\" enters text into a thing.";
  }

  function render(view) {
    state.view = view;
    $("start").hidden = true;
    $("game-view").hidden = false;
    $("title").textContent = view.title + " (" + view.setting + ")";
    $("who").textContent = view.player;
    $("steps").textContent = view.step;
    $("hints").textContent = view.hints_used;
    const pct = Math.round(view.progress * 1000) / 10;
    $("progress-text").textContent = pct + "%";
    $("progress-bar").style.width = pct + "%";
    $("scene-name").textContent = view.scene;
    $("position").textContent = view.position;
    $("scene-desc").textContent = view.description;
    const hb = $("hint-box");
    if (view.hint) {
      hb.hidden = false;
      const left = view.hint.help_steps - view.hint.steps_in_help;
      hb.textContent = "Hint: go to " + view.hint.path + " and do " + view.hint.action + ". " +
        "If it is not done in " + left + " more step" + (left === 1 ? "" : "s") + ", it will be done for you.";
    } else hb.hidden = true;
    const log = $("log");
    log.replaceChildren(...view.log.slice().reverse().map((e) => el("div", {
      class: "entry " + (e.success ? "ok" : e.error ? "bad" : ""),
    }, el("div", { class: "act" }, "#" + (e.step + 1) + " " + e.action + (e.forced ? " (played by the hint system)" : "")),
      el("div", { class: "fb" }, e.feedback))));
    const banner = $("banner");
    if (view.ended) {
      banner.hidden = false;
      banner.replaceChildren(
        (view.escaped ? "You escaped in " : "Game over after ") + view.step + " steps with " + view.hints_used + " hint" + (view.hints_used === 1 ? "" : "s") + ". Your result is saved. ",
        view.report_key
          ? el("a", { href: BASE + "report/#episode=" + encodeURIComponent(view.report_key), id: "see-report" }, "See it in the report")
          : "",
        " · ",
        el("a", { href: BASE + "play" }, "Play another game"));
      $("hint-button").disabled = true;
    } else {
      banner.hidden = true;
      $("hint-button").disabled = false;
    }
    // After the end nothing can be done: the form says so instead of answering with an error.
    $("do-button").disabled = !!view.ended;
    $("action-text").disabled = !!view.ended;
    state.selected = null;  // numbers may have changed
    renderThings();
  }

  // ------------------------------------------------------------------ start
  const sid = new URLSearchParams(location.search).get("session");
  if (sid) openSession(sid); else showStart();
  window.addEventListener("popstate", () => location.reload());
})();
