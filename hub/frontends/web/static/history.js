// History: finished games, newest first; a game's replay on its board, step by step.
"use strict";
(() => {
  const {el, clear} = Hub;
  const $ = id => document.getElementById(id);
  const SPEEDS = [0.5, 1, 2, 4, 8];
  //: kinds that are not steps of their own (they still change the board)
  const QUIET = new Set(["turn", "state", "seat_open"]);
  let player = null;

  async function load() {
    const q = new URLSearchParams();
    if ($("f-type").value) q.set("type", $("f-type").value);
    if ($("f-player").value.trim()) q.set("player", $("f-player").value.trim());
    q.set("limit", "200");
    let games = [];
    try { games = await Hub.request("GET", "/api/history?" + q); } catch (e) { Hub.error(e); }
    clear($("history").tBodies[0], games.map(g => el("tr", {dataset: {id: g.game_id}, tabindex: 0,
        onclick: () => replay(g.game_id), onkeydown: ev => { if (ev.key === "Enter") replay(g.game_id); }},
      el("td", {class: "small", dataset: {label: "Finished"}}, Hub.time(g.finished)),
      el("td", {dataset: {label: "Type"}}, g.type), el("td", {dataset: {label: "Name"}}, g.name),
      el("td", {dataset: {label: "Players"}}, g.players.map(p => (p.winner ? "★ " : "") + p.name + (p.score !== null ? " (" + p.score + ")" : "")).join(", ")),
      el("td", {dataset: {label: "Result"}}, g.summary || ""))));
    $("none").hidden = games.length > 0;
  }

  // The replay player: the board as it was after each step, the events in words.
  async function replay(gameId) {
    const box = $("replay");
    box.hidden = false;
    if (player) player.stop();
    let data;
    try { data = await Hub.request("GET", "/api/games/" + encodeURIComponent(gameId) + "/replay"); }
    catch (e) { Hub.error(e, box); return; }
    const game = data.game;
    await GameScripts.load(game.type, data.script);
    const r = window.GameRenderers[game.type] || {};
    const names = game.seats.map(s => s.player || "seat " + s.seat);
    const apply = r.replay && r.replay.apply;
    // steps: the start, then one per event that says something (quiet ones fold in)
    const steps = [{view: data.start, index: -1}];
    let view = data.start;
    data.events.forEach((event, i) => {
      if (apply) { try { view = apply(view, event, names); } catch (e) { /* the words still tell */ } }
      if (!QUIET.has(event.kind)) steps.push({view, index: i});
      else steps[steps.length - 1].view = view;
    });
    const words = event => GameScripts.describe(game.type, event, names);
    let at = 0, timer = null, speed = 1;
    const boardBox = el("div", {class: "replay-board", id: "replay-board"});
    const log = el("ol", {class: "log replay-log", id: "replay-log", tabindex: 0, "aria-label": "what happened"});
    const counter = el("span", {class: "small", id: "replay-counter"});
    const slider = el("input", {type: "range", min: 0, max: steps.length - 1, value: 0, id: "replay-slider",
      "aria-label": "step", oninput: () => { stop(); show(Number(slider.value)); }});
    const playButton = el("button", {id: "replay-play", onclick: () => timer ? stop() : play()}, "▶ play");
    const speedSelect = el("select", {id: "replay-speed", "aria-label": "speed",
      onchange: () => { speed = Number(speedSelect.value); if (timer) { stop(); play(); } }},
      SPEEDS.map(x => el("option", {value: x, selected: x === 1}, x + "×")));
    function show(n) {
      at = Math.max(0, Math.min(steps.length - 1, n));
      const step = steps[at];
      const ctx = {game, view: step.view, seat: null, legal: [], turn: null, myTurn: false,
        act: () => false, el, clear, names, clock: () => null};
      const draw = r.replayBoard || (apply ? r.board : null);
      try { clear(boardBox, draw ? draw(ctx) : el("p", {class: "muted"}, "This game draws no board for replays: the events tell what happened.")); }
      catch (e) { clear(boardBox, el("p", {class: "muted"}, "cannot draw this step: " + e.message)); }
      const shown = steps.slice(1, at + 1).map(s => data.events[s.index]);
      clear(log, shown.map((e, i) => el("li", {class: i === shown.length - 1 ? "current" : ""}, words(e))));
      log.scrollTop = log.scrollHeight;
      counter.textContent = "step " + at + " of " + (steps.length - 1) + (starts.length > 1
        ? " · " + chapter.word + " " + starts.filter(n => n <= at).length + " of " + starts.length : "");
      slider.value = String(at);
    }
    // chapters (a game's own word, as poker's hands): the steps where one starts
    const chapter = r.replay && r.replay.chapter;
    const starts = chapter ? steps.map((s, n) => n).filter(n => n > 0 && chapter.starts(data.events[steps[n].index])) : [];
    const jump = delta => {
      stop();
      if (delta > 0) show(starts.find(n => n > at) ?? steps.length - 1);
      else show([...starts].reverse().find(n => n < at) ?? 0);
    };
    const chapters = starts.length > 1 ? [
      el("button", {class: "secondary", id: "replay-prev-chapter", onclick: () => jump(-1)}, "⏮ previous " + chapter.word),
      el("button", {class: "secondary", id: "replay-next-chapter", onclick: () => jump(1)}, "next " + chapter.word + " ⏭"),
    ] : [];
    function play() {
      if (at >= steps.length - 1) show(0);
      playButton.textContent = "❚❚ pause";
      timer = setInterval(() => { show(at + 1); if (at >= steps.length - 1) stop(); }, 1000 / speed);
    }
    function stop() { if (timer) clearInterval(timer); timer = null; playButton.textContent = "▶ play"; }
    player = {stop};
    const result = game.result;
    clear(box, el("h2", {}, "Replay: " + game.name),
      el("p", {class: "small"}, game.type + (game.variant ? " · " + game.variant : "") + " · " + names.join(", ") +
        (result && result.summary ? " · " + result.summary : "") + (data.complete ? "" : " · (only the last events were kept)")),
      el("div", {class: "row replay-controls"},
        el("button", {class: "secondary", id: "replay-first", onclick: () => { stop(); show(0); }, "aria-label": "first step"}, "«"),
        el("button", {class: "secondary", id: "replay-prev", onclick: () => { stop(); show(at - 1); }, "aria-label": "back"}, "◀ back"),
        playButton,
        el("button", {class: "secondary", id: "replay-next", onclick: () => { stop(); show(at + 1); }, "aria-label": "step"}, "step ▶"),
        el("button", {class: "secondary", id: "replay-last", onclick: () => { stop(); show(steps.length - 1); }, "aria-label": "last step"}, "»"),
        ...chapters, el("label", {class: "inline"}, "speed ", speedSelect), counter),
      slider,
      el("div", {class: "replay-layout"}, boardBox, log));
    show(0);
    box.scrollIntoView({block: "start"});
  }

  document.addEventListener("DOMContentLoaded", async () => {
    await Hub.nav("/history");
    try {
      const types = await GameScripts.typeInfo();
      Hub.append($("f-type"), types.map(t => Hub.el("option", {value: t.name}, t.name)));
    } catch (e) { Hub.error(e); }
    $("filter").addEventListener("submit", ev => { ev.preventDefault(); load(); });
    await load();
    const wanted = new URLSearchParams(location.search).get("game");
    if (wanted) replay(wanted);
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
  // "2:ab01…, 0:ff…" (or one a line) → [[seat, bytes]...] in ascending seat order
  function contributions(text) {
    const out = new Map();
    for (const item of (text || "").split(/[\s,;]+/).filter(Boolean)) {
      const m = /^(\d{1,3})[:=]((?:[0-9a-fA-F]{2}){1,64})$/.exec(item);
      if (!m || Number(m[1]) > 255) throw new Error(item + " is not seat:hex (1 to 64 bytes)");
      if (out.has(Number(m[1]))) throw new Error("seat " + m[1] + " contributes twice");
      out.set(Number(m[1]), new Uint8Array(m[2].match(/../g).map(h => parseInt(h, 16))));
    }
    return [...out.entries()].sort((a, b) => a[0] - b[0]);
  }
  // the seed the deck is dealt from: SHA-256("gamehub-shuffle-v1" ‖ seed ‖ per seat: seat ‖ length ‖ bytes)
  async function mixed(seed, given) {
    if (!given.length) return seed;
    const parts = [new TextEncoder().encode("gamehub-shuffle-v1"), seed];
    for (const [seat, bytes] of given) parts.push(new Uint8Array([seat, bytes.length]), bytes);
    const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) { all.set(p, at); at += p.length; }
    return sha256(all);
  }
  async function verify(seedText, commitment, dealt, contributionText) {
    const seed = unhex(seedText.trim().toLowerCase());
    const given = contributions(contributionText);
    const digest = hex(await sha256(seed));
    const order = await deck(await mixed(seed, given));
    const matches = digest === commitment.trim().toLowerCase();
    const dealtOk = dealt.every((c, i) => order[i] === c);
    return {digest, matches, order, dealtOk, mixedIn: given.length};
  }
  function contributionText(map) {
    return Object.entries(map || {}).map(([seat, value]) => seat + ":" + value).join(" ");
  }
  return {verify, text, parse, contributionText};
})();

document.addEventListener("DOMContentLoaded", async () => {
  const {el, clear} = Hub;
  const $ = id => document.getElementById(id);
  const params = new URLSearchParams(location.search);
  if (params.get("seed")) $("v-seed").value = params.get("seed");
  if (params.get("commitment")) $("v-commitment").value = params.get("commitment");
  if (params.get("contributions")) $("v-contributions").value = params.get("contributions");
  $("verify-form").addEventListener("submit", async ev => {
    ev.preventDefault();
    try {
      const dealt = $("v-cards").value.trim() ? $("v-cards").value.trim().split(/[\s,]+/).map(Shuffle.parse) : [];
      const r = await Shuffle.verify($("v-seed").value, $("v-commitment").value, dealt, $("v-contributions").value);
      clear($("verify-result"),
        el("p", {id: "verify-verdict", class: r.matches && r.dealtOk ? "state-running" : "state-waiting"},
          r.matches ? "✔ SHA-256(seed) equals the commitment." : "✘ SHA-256(seed) is " + r.digest + ", not the commitment.",
          r.mixedIn ? " The deck mixes in " + r.mixedIn + " contribution" + (r.mixedIn === 1 ? "" : "s") + "." : "",
          dealt.length ? (r.dealtOk ? " ✔ The cards dealt follow the deck." : " ✘ The cards dealt do not follow this deck.") : ""),
        el("p", {class: "small mono", id: "verify-deck"}, "Deck: " + r.order.map(Shuffle.text).join(" ")));
    } catch (e) { Hub.error(e); }
  });
  let hands = [];
  try { hands = await Hub.request("GET", "/api/hands?limit=50"); } catch (e) { Hub.error(e); }
  const SHOWN = 10;  // the newest first; the rest on request
  const rows = hands.map((h, i) => el("tr", {hidden: i >= SHOWN},
    el("td", {class: "small", dataset: {label: "Time"}}, Hub.time(h.time)), el("td", {class: "small mono", dataset: {label: "Hand"}}, h.hand_key || h.hand_id),
    el("td", {class: "mono", dataset: {label: "Board"}}, h.board ? h.board.map(Shuffle.text).join(" ") : (h.summary || "")),
    el("td", {dataset: {label: "Players"}}, h.players.map(p => (p.display || p.name) + (p.winnings && p.winnings !== "0" && p.winnings !== "0.00" ? " +" + p.winnings : "")).join(", ")),
    el("td", {dataset: {label: "Shuffle"}}, h.seed ? el("button", {class: "secondary", onclick: () => {
      $("v-seed").value = h.seed; $("v-commitment").value = h.commitment || "";
      $("v-contributions").value = Shuffle.contributionText(h.contributions); $("verify").scrollIntoView();
    }}, "verify") : "—")));
  clear($("hands").tBodies[0], rows);
  if (hands.length > SHOWN) {
    const more = el("button", {class: "secondary", id: "more-hands", onclick: () => { rows.forEach(r => { r.hidden = false; }); more.remove(); }},
      "Show all " + hands.length + " hands");
    $("hands").parentElement.after(more);
  }
  $("no-hands").hidden = hands.length > 0;
});
