// DOM helpers shared by the report's trajectory viewer (viewer.js) and the play page of
// `escapebench serve` (web/static/play.js). Plain JavaScript, no build step: both pages load this file
// with a <script> tag before their own script, and it defines one global, window.EB_DOM.
(function () {
  "use strict";

  // el("button", {class: "thing", onclick: f}, "text", childNode) builds an element.
  // Children that are not nodes are added as text (never parsed as HTML); null, undefined
  // and false are skipped, so `cond && el(...)` works inline.
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

  // $("status") is the element with that id (null if the page has none).
  function $(id) {
    return document.getElementById(id);
  }

  window.EB_DOM = Object.freeze({ el: el, $: $ });
})();
