// Poker (texas-holdem, five-card-draw): board, pots, seats with stacks and cards,
// and one button (or amount field, or card choice) per legal action.
"use strict";
window.GameRenderers = window.GameRenderers || {};
(() => {
  const RANKS = "23456789TJQKA", SUITS = "♣♦♥♠";
  const STAGES = ["pre-flop", "flop", "turn", "river", "showdown"];
  let lastHand = null, lastHandId = null, replayStep = 0;
  let handLines = [], lastHandLines = [];
  const discard = new Set();

  function cardNode(el, c) {
    if (c === -1 || c === null || c === undefined) return el("span", {class: "card back", title: "hidden"}, "");
    const rank = RANKS[Math.floor(c / 4)], suit = c % 4;
    return el("span", {class: "card" + (suit === 1 || suit === 2 ? " red" : ""), dataset: {card: c}},
      rank + SUITS[suit]);
  }

  function money(v) { return v === null || v === undefined ? "" : String(v); }

  function cardsText(list) {
    return (list || []).map(c => c < 0 ? "??" : RANKS[Math.floor(c / 4)] + SUITS[c % 4]).join(" ");
  }

  const renderer = {
    describe(event, names) {
      const d = event.data || {};
      const who = d.seat !== undefined ? (names[d.seat] || "seat " + d.seat) : "";
      switch (event.kind) {
        case "action": return who + ": " + d.name + (d.amount ? " " + d.amount : "") + (d.allin ? " (all in)" : "");
        case "hand": return "hand " + d.handid + " · button " + (names[d.button] || d.button) + " · commitment " + String(d.commitment || "").slice(0, 12) + "…";
        case "hole": return "your cards: " + cardsText(d.cards);
        case "board": return "board: " + cardsText(d.board || d.cards);
        case "pots": return "pots: " + (d.pots || []).map(p => p.amount).join(" + ");
        case "award": return who + " wins " + d.amount + (d.text ? " (" + d.text + ")" : "");
        case "handover": return "hand " + d.handid + " over; seed " + String(d.seed || "").slice(0, 12) + "…";
        case "buyin": return (d.name || who) + " buys in for " + d.amount;
        case "cashout": return (d.name || who) + " cashes out " + d.amount;
        default: return null;
      }
    },
    event(event, state) {
      if (event.kind === "hand") { lastHandId = event.data.handid; discard.clear(); handLines = []; }
      const names = state && state.game ? state.game.seats.map(x => x.player || "seat " + x.seat) : [];
      const line = event.kind === "turn" ? null : renderer.describe(event, names);
      if (line) handLines.push(line);
      if (event.kind === "handover") { lastHand = event.data; lastHandLines = handLines; handLines = []; replayStep = 0; }
    },
    board(ctx) {
      const {el} = Hub;
      const v = ctx.view || {};
      const players = v.players || [];
      const running = v.handid !== null && v.handid !== undefined;
      const table = el("div", {class: "poker-table", id: "poker-table"},
        el("div", {class: "row"}, el("b", {}, (v.game || "poker") + " · " + (v.variant || "")),
          el("span", {class: "small"}, "stakes " + (v.stakes || "") + " · blinds " + v.smallblind + "/" + v.bigblind)),
        el("div", {class: "small"}, running ? "hand " + v.handid + " · " + (STAGES[v.stage] || "") : "waiting for the next hand"),
        el("div", {class: "cards", id: "board-cards"}, (v.boardcards || []).map(c => cardNode(el, c))),
        el("div", {id: "pot"}, "Pot: " + money(v.pot),
          (v.pots || []).length > 1 ? " (" + v.pots.map(p => p.amount).join(" + ") + ")" : ""),
        v.commitment ? el("div", {class: "small mono", title: "shuffle commitment"}, "commitment " + String(v.commitment).slice(0, 16) + "…") : null);
      const seats = el("div", {class: "poker-seats", id: "poker-seats"}, players.map(p => {
        const marks = [p.seat === v.buttonseat ? "D" : "", p.seat === v.smallblindseat ? "SB" : "", p.seat === v.bigblindseat ? "BB" : ""].filter(Boolean);
        return el("div", {class: "poker-seat" + (p.seat === v.currentplayerseat ? " to-act" : ""), dataset: {seat: p.seat}},
          el("div", {}, el("b", {}, p.accountname), p.seat === ctx.seat ? " (you)" : "", marks.length ? " · " + marks.join(" ") : ""),
          el("div", {class: "small"}, "stack ", el("span", {class: "stack"}, money(p.bankroll)),
            p.inpot && p.inpot !== "0" ? " · in pot " + p.inpot : ""),
          el("div", {class: "small muted"}, p.state + (p.lastaction ? " · " + p.lastaction : "")),
          el("div", {class: "cards"}, (p.holecards || []).map((c, i) => {
            const node = cardNode(el, c);
            if (p.seat === ctx.seat && ctx.legal.some(a => a.name === "discard")) {
              node.classList.add("pickable");
              if (discard.has(i)) node.classList.add("picked");
              node.addEventListener("click", () => { discard.has(i) ? discard.delete(i) : discard.add(i); GamePage.render(); });
            }
            return node;
          })));
      }));
      const last = lastHand ? el("div", {class: "small", id: "last-hand"}, "Last hand " + lastHand.handid + ": ",
        Object.entries(lastHand.deltas || {}).map(([seat, d]) =>
          ((lastHand.names || {})[seat] || "seat " + seat) + " " + (String(d).startsWith("-") ? d : "+" + d)).join(", "),
        lastHand.seed ? [" · ", el("a", {id: "verify-link", target: "_blank", rel: "noopener",
          href: "/history?" + new URLSearchParams({seed: lastHand.seed, commitment: lastHand.commitment || ""}) + "#verify"},
          "verify the shuffle")] : null) : null;
      let replay = null;
      if (lastHand && lastHandLines.length) {
        const shown = el("div", {class: "log", id: "hand-replay-log"},
          lastHandLines.slice(0, replayStep + 1).map((line, i) => el("div", {class: i === replayStep ? "seat-me" : ""}, line)));
        const step = delta => { replayStep = Math.max(0, Math.min(lastHandLines.length - 1, replayStep + delta)); GamePage.render(); };
        replay = el("details", {id: "hand-replay"}, el("summary", {}, "Replay hand " + lastHand.handid + " step by step"),
          el("div", {class: "row"},
            el("button", {class: "secondary", id: "hand-replay-prev", onclick: () => step(-1)}, "◀ back"),
            el("button", {id: "hand-replay-next", onclick: () => step(1)}, "step ▶"),
            el("span", {class: "small"}, "step " + (replayStep + 1) + " of " + lastHandLines.length)),
          shown);
        const open = document.getElementById("hand-replay");
        if (open && open.open) replay.open = true;
      }
      return [table, seats, last, replay];
    },
    actions(ctx) {
      const {el} = Hub;
      if (!ctx.legal.length) return [el("span", {class: "muted"}, "Not your turn.")];
      return ctx.legal.map(a => {
        if (a.min !== undefined && a.max !== undefined) {
          const input = el("input", {type: "number", step: "any", min: a.min, max: a.max, value: a.min,
            class: "amount", "aria-label": a.name + " amount"});
          return el("form", {class: "row poker-form", onsubmit: ev => {
            ev.preventDefault(); ctx.act({index: a.index, amount: input.value});
          }}, input, el("button", {type: "submit", class: "poker-action", dataset: {name: a.name}},
            a.name + " (" + a.min + "–" + a.max + ")"));
        }
        if (a.name === "discard") {
          return el("button", {class: "poker-action", dataset: {name: a.name},
            onclick: () => ctx.act({index: a.index, discarded: [...discard].sort()})},
            discard.size ? "change " + discard.size + " card(s)" : "stand pat");
        }
        return el("button", {class: "poker-action" + (a.name === "fold" ? " secondary" : ""), dataset: {name: a.name},
          onclick: () => ctx.act({index: a.index})}, a.name + (a.amount ? " " + a.amount : ""));
      });
    },
  };
  window.GameRenderers["texas-holdem"] = renderer;
  window.GameRenderers["five-card-draw"] = renderer;
})();
