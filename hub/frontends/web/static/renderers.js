// Game page scripts: loading a game type's renderer (its factory's IWebView.script,
// served at /plugin-scripts/<type>.js) with its stylesheet (IWebAssets.styles, at
// /plugin-scripts/<type>.css), and the generic renderer for games without one.
// Used by the game page and by replays on the history page.
"use strict";

window.GameRenderers = window.GameRenderers || {};

// Loads a game type's page script once; resolves when it ran (or there is none).
const GameScripts = (() => {
  const loading = {};
  let types = null;
  async function typeInfo() {
    if (!types) {
      try { types = (await Hub.request("GET", "/api/types")).types; } catch (e) { types = []; }
    }
    return types;
  }
  // A game type's stylesheet (its web view's IWebAssets.styles), once.
  function style(url) {
    if (!url || document.querySelector("link[data-game-styles='" + url + "']")) return;
    document.head.append(Object.assign(document.createElement("link"), {rel: "stylesheet", href: url}));
    document.head.lastChild.dataset.gameStyles = url;
  }
  function load(type, url, styles) {
    if (styles) style(styles);
    if (window.GameRenderers[type] && styles !== undefined) return Promise.resolve(true);
    if (!loading[type]) {
      loading[type] = (async () => {
        if (url === undefined || styles === undefined) {
          const t = (await typeInfo()).find(x => x.name === type);
          if (url === undefined) url = t ? t.script : null;
          style(t ? t.styles : null);
        }
        if (window.GameRenderers[type]) return true;
        if (!url) return false;
        return new Promise(resolve => {
          const tag = document.createElement("script");
          tag.src = url;
          tag.addEventListener("load", () => resolve(true));
          tag.addEventListener("error", () => { Hub.error("the page script of " + type + " did not load"); resolve(false); });
          document.head.append(tag);
        });
      })();
    }
    return loading[type];
  }
  // An event of a game of ``type`` in words: its renderer's, else the words every game
  // shares (never raw data).
  function describe(type, event, names) {
    const r = window.GameRenderers[type];
    if (r && r.describe) {
      try {
        const text = r.describe(event, names);
        if (text) return text;
      } catch (e) { /* the shared words */ }
    }
    return Hub.describeEvent(event, names);
  }
  return {load, typeInfo, describe};
})();

// The generic renderer: the view in words (a game's text view as it writes it), the
// legal actions as buttons (labelled with the game's words when it gives them).
const GenericRenderer = {
  board(ctx) {
    const {el} = Hub;
    const view = ctx.view || {};
    const text = typeof view.text === "string" ? view.text : null;
    const rows = Object.entries(view).filter(([k, v]) => !(text !== null && k === "text") && k !== "timeleft_ms"
      && !(v && typeof v === "object" && !Array.isArray(v)) && Hub.valueWords(v) !== null);
    const words = el("dl", {class: "view-words"}, rows.map(([k, v]) => [el("dt", {}, Hub.words(k)), el("dd", {}, Hub.valueWords(v))]));
    return text === null ? words : el("div", {}, el("pre", {class: "view-text", "aria-label": "the game"}, text), words);
  },
  actions(ctx) {
    const {el} = Hub;
    if (!ctx.legal.length) return [el("span", {class: "muted"}, ctx.seat === null ? "" : "Not your turn.")];
    return ctx.legal.map(action => {
      const textFields = Object.entries(action).filter(([, v]) => v === "");
      if (textFields.length) {
        const inputs = textFields.map(([k]) => el("input", {name: k, placeholder: Hub.words(k), maxlength: 200,
          class: "action-input", "aria-label": Hub.words(k)}));
        return el("form", {class: "row action-form", onsubmit: ev => {
          ev.preventDefault();
          const chosen = Object.assign({}, action);
          inputs.forEach(i => { chosen[i.name] = i.value; });
          ctx.act(chosen);
        }}, inputs, el("button", {type: "submit", class: "action"}, Object.keys(action).map(Hub.words).join(" ")));
      }
      return el("button", {class: "action", onclick: () => ctx.act(action)}, Hub.actionLabel(action));
    });
  },
};
