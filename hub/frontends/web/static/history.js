// History: finished games, newest first; a game's transcript step by step.
"use strict";
(() => {
  const {el, clear} = Hub;
  const $ = id => document.getElementById(id);

  async function load() {
    const q = new URLSearchParams();
    if ($("f-type").value) q.set("type", $("f-type").value);
    if ($("f-player").value.trim()) q.set("player", $("f-player").value.trim());
    q.set("limit", "200");
    let games = [];
    try { games = await Hub.request("GET", "/api/history?" + q); } catch (e) { Hub.error(e); }
    clear($("history").tBodies[0], games.map(g => el("tr", {dataset: {id: g.game_id}, onclick: () => replay(g)},
      el("td", {class: "small", dataset: {label: "Finished"}}, Hub.time(g.finished)),
      el("td", {dataset: {label: "Type"}}, g.type), el("td", {dataset: {label: "Name"}}, g.name),
      el("td", {dataset: {label: "Players"}}, g.players.map(p => (p.winner ? "★ " : "") + p.name + (p.score !== null ? " (" + p.score + ")" : "")).join(", ")),
      el("td", {dataset: {label: "Result"}}, g.summary || ""))));
    $("none").hidden = games.length > 0;
  }

  async function replay(g) {
    const box = $("replay");
    box.hidden = false;
    let text = "";
    try { text = await (await fetch("/api/games/" + g.game_id + "/transcript")).text(); }
    catch (e) { Hub.error(e); return; }
    const lines = text.split("\n").filter(Boolean);
    let step = 0;
    const shown = el("div", {class: "log", id: "replay-log"});
    const counter = el("span", {class: "small"});
    function show() {
      clear(shown, lines.slice(0, step + 1).map((l, i) => el("div", {class: i === step ? "seat-me" : ""}, l)));
      shown.scrollTop = shown.scrollHeight;
      counter.textContent = "step " + (step + 1) + " of " + lines.length;
    }
    const verify = g.result && (g.result.commitment || g.result.shuffle) ? el("p", {class: "small"},
      "Shuffle commitment: ", el("code", {}, JSON.stringify(g.result.commitment || g.result.shuffle))) : null;
    clear(box, el("h2", {}, "Replay: " + g.name + " (" + g.game_id + ")"),
      el("p", {class: "small"}, g.summary || ""), verify,
      el("div", {class: "row"},
        el("button", {class: "secondary", id: "replay-first", onclick: () => { step = 0; show(); }}, "first"),
        el("button", {class: "secondary", id: "replay-prev", onclick: () => { step = Math.max(0, step - 1); show(); }}, "◀ back"),
        el("button", {id: "replay-next", onclick: () => { step = Math.min(lines.length - 1, step + 1); show(); }}, "step ▶"),
        el("button", {class: "secondary", id: "replay-last", onclick: () => { step = lines.length - 1; show(); }}, "last"), counter),
      shown, el("a", {href: "/api/games/" + g.game_id + "/transcript"}, "whole transcript"));
    show();
    box.scrollIntoView();
  }

  document.addEventListener("DOMContentLoaded", async () => {
    Hub.nav("/history");
    try {
      const types = (await Hub.request("GET", "/api/types")).types;
      Hub.append($("f-type"), types.map(t => Hub.el("option", {value: t.name}, t.name)));
    } catch (e) { Hub.error(e); }
    $("filter").addEventListener("submit", ev => { ev.preventDefault(); load(); });
    load();
  });
})();

// Poker hands and the provably fair shuffle, checked in the browser.
const Shuffle = (() => {
  const RANKS = "23456789TJQKA", SUITS = "cdhs";
  function hex(bytes) { return [...new Uint8Array(bytes)].map(b => b.toString(16).padStart(2, "0")).join(""); }
  function unhex(text) {
    if (!/^[0-9a-f]{64}$/.test(text)) throw new Error("a seed is 64 lowercase hex characters");
    return new Uint8Array(text.match(/../g).map(h => parseInt(h, 16)));
  }
  async function sha256(bytes) {
    if (!(window.crypto && crypto.subtle)) throw new Error("this browser offers no SHA-256 here (open the page over https or localhost)");
    return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  }
  async function deck(seed) {
    const words = [];
    let counter = 0;
    async function word() {
      if (!words.length) {
        const input = new Uint8Array(seed.length + 8);
        input.set(seed);
        new DataView(input.buffer).setBigUint64(seed.length, BigInt(counter++));
        const block = await sha256(input);
        const view = new DataView(block.buffer);
        for (let i = 0; i < 32; i += 4) words.push(view.getUint32(i));
      }
      return words.shift();
    }
    async function below(n) {
      const limit = Math.floor(2 ** 32 / n) * n;
      for (;;) { const u = await word(); if (u < limit) return u % n; }
    }
    const cards = [...Array(52).keys()];
    for (let i = 51; i >= 1; i--) {
      const j = await below(i + 1);
      [cards[i], cards[j]] = [cards[j], cards[i]];
    }
    return cards;
  }
  function text(card) { return RANKS[Math.floor(card / 4)] + SUITS[card % 4]; }
  function parse(card) {
    const r = RANKS.indexOf(card[0].toUpperCase()), s = SUITS.indexOf((card[1] || "").toLowerCase());
    if (card.length !== 2 || r < 0 || s < 0) throw new Error(card + " is not a card (e.g. As, Td, 2c)");
    return r * 4 + s;
  }
  async function verify(seedText, commitment, dealt) {
    const seed = unhex(seedText.trim().toLowerCase());
    const digest = hex(await sha256(seed));
    const order = await deck(seed);
    const matches = digest === commitment.trim().toLowerCase();
    const dealtOk = dealt.every((c, i) => order[i] === c);
    return {digest, matches, order, dealtOk};
  }
  return {verify, text, parse};
})();

document.addEventListener("DOMContentLoaded", async () => {
  const {el, clear} = Hub;
  const $ = id => document.getElementById(id);
  const params = new URLSearchParams(location.search);
  if (params.get("seed")) $("v-seed").value = params.get("seed");
  if (params.get("commitment")) $("v-commitment").value = params.get("commitment");
  $("verify-form").addEventListener("submit", async ev => {
    ev.preventDefault();
    try {
      const dealt = $("v-cards").value.trim() ? $("v-cards").value.trim().split(/[\s,]+/).map(Shuffle.parse) : [];
      const r = await Shuffle.verify($("v-seed").value, $("v-commitment").value, dealt);
      clear($("verify-result"),
        el("p", {id: "verify-verdict", class: r.matches && r.dealtOk ? "state-running" : "state-waiting"},
          r.matches ? "✔ SHA-256(seed) equals the commitment." : "✘ SHA-256(seed) is " + r.digest + ", not the commitment.",
          dealt.length ? (r.dealtOk ? " ✔ The cards dealt follow the deck." : " ✘ The cards dealt do not follow this deck.") : ""),
        el("p", {class: "small mono", id: "verify-deck"}, "Deck: " + r.order.map(Shuffle.text).join(" ")));
    } catch (e) { Hub.error(e); }
  });
  let hands = [];
  try { hands = await Hub.request("GET", "/api/hands?limit=50"); } catch (e) { Hub.error(e); }
  clear($("hands").tBodies[0], hands.map(h => el("tr", {},
    el("td", {class: "small"}, Hub.time(h.time)), el("td", {class: "small"}, h.hand_key || h.hand_id),
    el("td", {class: "mono"}, h.board.map(Shuffle.text).join(" ")),
    el("td", {}, h.players.map(p => (p.display || p.name) + (p.winnings && p.winnings !== "0" && p.winnings !== "0.00" ? " +" + p.winnings : "")).join(", ")),
    el("td", {}, h.seed ? el("button", {class: "secondary", onclick: () => {
      $("v-seed").value = h.seed; $("v-commitment").value = h.commitment || ""; $("verify").scrollIntoView();
    }}, "verify") : "—"))));
  $("no-hands").hidden = hands.length > 0;
});
