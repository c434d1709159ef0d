// Poker's panel of the history page (its web view's IWebAssets.history): the hands
// recorded (GET /api/hands), and the provably fair shuffle checked in the browser:
// SHA-256(seed) against the commitment published before the hand, the players'
// contributions mixed in, and the deck the seed gives (Fisher–Yates driven by
// SHA-256(seed ‖ counter), as games/poker/shuffle.py).
"use strict";
window.HistoryPanels = window.HistoryPanels || {};
(() => {
  if (window.HistoryPanels["poker-hands"]) return;  // each poker type declares this panel
  const RANKS = "23456789TJQKA", SUITS = "cdhs";

  const Shuffle = (() => {
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
  window.PokerShuffle = Shuffle;

  // The verification form, filled from the address (?seed=&commitment=, the table's
  // "verify the shuffle" link) or from a hand's button.
  function verifier() {
    const {el, clear} = Hub;
    const seed = el("input", {id: "v-seed", class: "mono wide", maxlength: 64});
    const commitment = el("input", {id: "v-commitment", class: "mono wide", maxlength: 64});
    const contributions = el("input", {id: "v-contributions", class: "mono wide", maxlength: 2000});
    const cards = el("input", {id: "v-cards", class: "mono wide"});
    const result = el("div", {id: "verify-result"});
    const params = new URLSearchParams(location.search);
    if (params.get("seed")) seed.value = params.get("seed");
    if (params.get("commitment")) commitment.value = params.get("commitment");
    if (params.get("contributions")) contributions.value = params.get("contributions");
    const form = el("form", {id: "verify-form", onsubmit: async ev => {
      ev.preventDefault();
      try {
        const dealt = cards.value.trim() ? cards.value.trim().split(/[\s,]+/).map(Shuffle.parse) : [];
        const r = await Shuffle.verify(seed.value, commitment.value, dealt, contributions.value);
        clear(result,
          el("p", {id: "verify-verdict", class: r.matches && r.dealtOk ? "state-running" : "state-waiting"},
            r.matches ? "✔ SHA-256(seed) equals the commitment." : "✘ SHA-256(seed) is " + r.digest + ", not the commitment.",
            r.mixedIn ? " The deck mixes in " + r.mixedIn + " contribution" + (r.mixedIn === 1 ? "" : "s") + "." : "",
            dealt.length ? (r.dealtOk ? " ✔ The cards dealt follow the deck." : " ✘ The cards dealt do not follow this deck.") : ""),
          el("p", {class: "small mono", id: "verify-deck"}, "Deck: " + r.order.map(Shuffle.text).join(" ")));
      } catch (e) { Hub.error(e); }
    }},
      el("label", {for: "v-seed"}, "Seed (64 hex characters)"), seed,
      el("label", {for: "v-commitment"}, "Commitment"), commitment,
      el("label", {for: "v-contributions"}, "Contributions (optional, seat:hex each, e.g. 0:9f3a… 2:01c7…)"), contributions,
      el("label", {for: "v-cards"}, "Cards dealt (optional, e.g. As Kd 2c, in dealing order)"), cards,
      el("div", {class: "row"}, el("button", {type: "submit"}, "Verify")));
    const box = el("div", {id: "verify"},
      el("h3", {}, "Verify a shuffle"),
      el("p", {class: "small muted"}, "Before each hand the hub publishes SHA-256(seed) as its commitment; after the hand it reveals the seed. " +
        "Your browser checks the commitment and recomputes the deck (Fisher–Yates driven by SHA-256(seed ‖ counter)). " +
        "When players added their own entropy between the commitment and the deal, the deck comes from " +
        "SHA-256(\"gamehub-shuffle-v1\" ‖ seed ‖ each seat's number, length and bytes, by seat): neither the hub nor a player chose it."),
      form, result);
    return {box, fill(h) {
      seed.value = h.seed; commitment.value = h.commitment || "";
      contributions.value = Shuffle.contributionText(h.contributions); box.scrollIntoView();
    }};
  }

  async function draw(panel) {
    const {el} = Hub;
    const check = verifier();
    let hands = [];
    try { hands = await Hub.request("GET", "/api/hands?limit=50"); } catch (e) { Hub.error(e, panel); }
    const SHOWN = 10;  // the newest first; the rest on request
    const rows = hands.map((h, i) => el("tr", {hidden: i >= SHOWN},
      el("td", {class: "small", dataset: {label: "Time"}}, Hub.time(h.time)), el("td", {class: "small mono", dataset: {label: "Hand"}}, h.hand_key || h.hand_id),
      el("td", {class: "mono", dataset: {label: "Board"}}, h.board ? h.board.map(Shuffle.text).join(" ") : (h.summary || "")),
      el("td", {dataset: {label: "Players"}}, h.players.map(p => (p.display || p.name) + (p.winnings && p.winnings !== "0" && p.winnings !== "0.00" ? " +" + p.winnings : "")).join(", ")),
      el("td", {dataset: {label: "Shuffle"}}, h.seed ? el("button", {class: "secondary", onclick: () => check.fill(h)}, "verify") : "—")));
    const table = el("table", {id: "hands", class: "cards-on-phone"},
      el("thead", {}, el("tr", {}, ["Time", "Hand", "Board", "Players", "Shuffle"].map(t => el("th", {}, t)))),
      el("tbody", {}, rows));
    const wrap = el("div", {class: "table-wrap"}, table);
    panel.append(wrap, el("p", {id: "no-hands", class: "muted", hidden: hands.length > 0}, "No poker hands recorded yet."));
    if (hands.length > SHOWN) {
      const more = el("button", {class: "secondary", id: "more-hands", onclick: () => { rows.forEach(r => { r.hidden = false; }); more.remove(); }},
        "Show all " + hands.length + " hands");
      wrap.after(more);
    }
    panel.append(check.box);
    if (location.hash === "#verify") check.box.scrollIntoView();
  }

  window.HistoryPanels["poker-hands"] = {title: "Poker hands", draw};
})();
