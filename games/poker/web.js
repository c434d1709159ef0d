// Poker in the browser (texas-holdem, five-card-draw; their IWebView.script): the
// table with its board and pot, the seats with stacks, bets and cards, one button (or
// amount field, or card choice) per legal action; the last hand step by step. Replays
// rebuild the table from the public events: hole cards stay face down until shown.
"use strict";
window.GameRenderers = window.GameRenderers || {};
(() => {
  const RANKS = "23456789TJQKA", SUITS = "♣♦♥♠", SUIT_NAMES = ["clubs", "diamonds", "hearts", "spades"];
  const RANK_NAMES = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "jack", "queen", "king", "ace"];
  const STAGES = ["pre-flop", "flop", "turn", "river", "showdown"];
  // A draw game bets before and after its one draw; there is no board.
  function stageName(v) {
    if (v.game !== "five-card-draw") return STAGES[v.stage] || "";
    if (v.decision === "discard") return "the draw";
    return v.stage > 0 ? "after the draw" : "before the draw";
  }
  const ACTIONS = {post: "posts", refuse: "refuses the blind", fold: "folds", check: "checks", call: "calls",
    bet: "bets", raise: "raises to", discard: "changes", muck: "mucks"};
  let lastHand = null, replayStep = 0;
  let handLines = [], lastHandLines = [];
  const discard = new Set();

  function cardName(c) { return c < 0 ? "a hidden card" : RANK_NAMES[Math.floor(c / 4)] + " of " + SUIT_NAMES[c % 4]; }

  function cardNode(el, c) {
    if (c === -1 || c === null || c === undefined) return el("span", {class: "card back", role: "img", "aria-label": "hidden card"}, "");
    const rank = RANKS[Math.floor(c / 4)], suit = c % 4;
    return el("span", {class: "card" + (suit === 1 || suit === 2 ? " red" : ""), dataset: {card: c}, role: "img", "aria-label": cardName(c)},
      el("span", {class: "rank", "aria-hidden": "true"}, rank === "T" ? "10" : rank), el("span", {class: "suit", "aria-hidden": "true"}, SUITS[suit]));
  }

  // "<game id>-7" → "7": hands are numbered per table
  function handLabel(id) { const m = /-(\d+)$/.exec(String(id || "")); return m ? m[1] : String(id || ""); }

  function money(v) { return v === null || v === undefined ? "" : String(v); }
  function num(v) { return Number(v || 0); }
  function fmt(x) { return String(Math.round(x * 10000) / 10000); }

  function cardsText(list) {
    return (list || []).map(c => c < 0 ? "??" : (RANKS[Math.floor(c / 4)] === "T" ? "10" : RANKS[Math.floor(c / 4)]) + SUITS[c % 4]).join(" ");
  }

  function describe(event, names) {
    const d = event.data || {};
    const who = d.name || (d.seat !== undefined ? (names[d.seat] || "seat " + d.seat) : "");
    switch (event.kind) {
      case "action": {
        const actor = names[d.seat] || "seat " + d.seat;  // (d.name is the action here)
        if (d.name === "post") return actor + " posts " + (d.blind ? d.blind + " blind " : "") + d.amount + (d.allin ? " (all in)" : "");
        if (d.name === "discard") return actor + " changes " + (d.count ?? "some") + " card" + (d.count === 1 ? "" : "s");
        // only chips put in have an amount (a fold, check, muck or refusal has none)
        const amount = d.name === "raise" || d.name === "bet" ? d.total : d.name === "call" ? d.amount : null;
        return actor + " " + (ACTIONS[d.name] || d.name) + (amount && amount !== "0" ? " " + amount : "") + (d.allin ? " (all in)" : "");
      }
      case "hand": return "Hand " + (d.number || d.handid) + ": the button is at " + (names[d.button] || "seat " + d.button) + "; shuffle commitment " + String(d.commitment || "").slice(0, 12) + "…";
      case "deal": return "Cards are dealt to " + (d.seats || []).map(s => names[s] || "seat " + s).join(", ");
      case "hole": return "Your cards: " + cardsText(d.cards);
      case "board": return STAGES[d.stage] ? "The " + STAGES[d.stage] + ": " + cardsText(d.cards) + " (board " + cardsText(d.board) + ")" : "Board: " + cardsText(d.board || d.cards);
      case "pots": return "In the pot: " + (d.pots || []).map(p => p.amount).join(" + ");
      case "return": return (names[d.seat] || "seat " + d.seat) + " takes back " + d.amount + " (not called)";
      case "show": return (names[d.seat] || "seat " + d.seat) + " shows " + cardsText(d.cards) + (d.text ? ": " + d.text : "");
      case "award": return (names[d.seat] || "seat " + d.seat) + " wins " + d.amount + (d.text ? " (" + d.text + ")" : "");
      case "handover": return "Hand " + handLabel(d.handid) + " is over: " + Object.entries(d.deltas || {}).map(([s, x]) =>
        ((d.names || {})[s] || names[s] || "seat " + s) + " " + (String(x).startsWith("-") ? x : "+" + x)).join(", ") +
        (d.seed ? "; seed " + String(d.seed).slice(0, 12) + "…" : "");
      case "buyin": return who + " buys in for " + d.amount;
      case "cashout": return who + " cashes out " + d.amount;
      case "seat": return who + " " + ({taken: "takes seat " + d.seat, addchips: "adds " + d.amount + " chips", leaving: "will leave after this hand",
        left: "leaves the table", sitout: "sits out", sitin: "sits in again"}[d.what] || Hub.words(d.what));
      case "timeout": return (names[d.seat] || "seat " + d.seat) + " ran out of time (" + Hub.words(d.decision) + ")";
      case "turn": return (names[d.seat] || "seat " + d.seat) + ({blind: " to post a blind", bet: " to act", discard: " to change cards", show: " to show or muck"}[d.decision] || " to act");
      case "cancel": return "The hand is called off" + (d.reason ? ": " + d.reason : "");
      case "autopost": return "Blinds are posted for you " + (d.on ? "automatically from now on" : "no longer");
      // a sit-and-go's (holdem-sng)
      case "level": return "Level " + d.level + ": blinds " + d.smallblind + "/" + d.bigblind + ", bets " + d.stakes;
      case "eliminated": return who + " is out in place " + d.place + (d.left ? " (" + d.left + " left)" : "");
      case "away": return who + (d.away ? " is away: the game checks or folds for them" : " is back");
      case "shuffle": return "Hand " + d.number + "'s shuffle is committed: " + String(d.commitment || "").slice(0, 12) + "… (add your entropy until the deal)";
      case "entropy": return (names[d.seat] || "seat " + d.seat) + " adds entropy " + String(d.value || "").slice(0, 12) + "… to hand " + d.number + "'s shuffle";
      default: return null;
    }
  }

  function replayFromEvents(event, names) {
    if (event.kind === "hand") { discard.clear(); handLines = []; }
    const line = event.kind === "turn" ? null : describe(event, names);
    if (line) handLines.push(line);
    if (event.kind === "handover") { lastHand = event.data; lastHandLines = handLines; handLines = []; replayStep = 0; }
  }

  function table(ctx, interactive) {
    const {el} = Hub;
    const v = ctx.view || {};
    const players = v.players || [];
    const inHand = v.inhand !== undefined ? v.inhand : v.handid !== null && v.handid !== undefined;
    const status = inHand ? "Hand " + handLabel(v.handid) + " · " + stageName(v)
      : v.handid ? "Hand " + handLabel(v.handid) + " is over" : "Waiting for the first hand";
    const felt = el("div", {class: "poker-table", id: "poker-table"},
      el("div", {class: "felt-head"}, el("b", {}, Hub.words(v.game || "poker") + " · " + (v.variant || "")),
        el("span", {class: "small"}, "blinds " + v.smallblind + "/" + v.bigblind +
          (v.tournament ? " · level " + v.tournament.level.level + " · " + v.tournament.players_left + " left" : ""))),
      el("div", {class: "small felt-status", id: "hand-status"}, status),
      el("div", {class: "cards board-cards", id: "board-cards", role: "group", "aria-label": "board"},
        (v.boardcards || []).map(c => cardNode(el, c)),
        inHand && v.game !== "five-card-draw" ? Array.from({length: Math.max(0, 5 - (v.boardcards || []).length)}, () => el("span", {class: "card slot", "aria-hidden": "true"})) : null),
      el("div", {id: "pot", class: "pot"}, el("span", {class: "chip-icon", "aria-hidden": "true"}), "Pot " + money(v.pot),
        (v.pots || []).length > 1 ? " (" + v.pots.map(p => p.amount).join(" + ") + ")" : ""));
    const seats = el("div", {class: "poker-seats", id: "poker-seats"}, players.map(p => {
      const marks = [p.seat === v.buttonseat ? "D" : "", p.seat === v.smallblindseat && inHand ? "SB" : "", p.seat === v.bigblindseat && inHand ? "BB" : ""].filter(Boolean);
      const acting = p.seat === v.currentplayerseat && inHand;
      return el("div", {class: "poker-seat" + (acting ? " to-act" : "") + (p.state === "folded" ? " folded" : "") + (p.seat === ctx.seat ? " mine" : ""), dataset: {seat: p.seat}},
        el("div", {class: "seat-head"}, el("span", {class: "avatar seat-colour-" + (p.seat % 8), "aria-hidden": "true"}, String(p.accountname || "?").slice(0, 1).toUpperCase()),
          el("b", {class: "seat-name"}, p.accountname), p.seat === ctx.seat ? el("span", {class: "badge you"}, "you") : null,
          marks.map(m => el("span", {class: "badge marker"}, m)), acting && interactive ? ctx.clock() : null),
        el("div", {class: "small"}, el("span", {class: "chip-icon", "aria-hidden": "true"}), el("span", {class: "stack"}, money(p.bankroll)),
          p.inpot && p.inpot !== "0" ? " · bet " + p.inpot : ""),
        el("div", {class: "small muted seat-state"}, (p.place ? "out in place " + p.place : Hub.words(p.state)) + (p.lastaction ? " · " + p.lastaction : "")),
        el("div", {class: "cards"}, (p.holecards || []).map((c, i) => {
          const node = cardNode(el, c);
          if (interactive && p.seat === ctx.seat && ctx.legal.some(a => a.name === "discard")) {
            node.classList.add("pickable");
            node.setAttribute("role", "button");
            node.tabIndex = 0;
            node.setAttribute("aria-pressed", discard.has(i) ? "true" : "false");
            if (discard.has(i)) node.classList.add("picked");
            const flip = () => { discard.has(i) ? discard.delete(i) : discard.add(i); GamePage.render(); };
            node.addEventListener("click", flip);
            node.addEventListener("keydown", ev => { if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); flip(); } });
          }
          return node;
        })));
    }));
    return [felt, seats];
  }

  const renderer = {
    describe,
    reset(events, game) {
      lastHand = null; handLines = []; lastHandLines = [];
      const names = game.seats.map(s => s.player || "seat " + s.seat);
      for (const e of events) replayFromEvents(e, names);
    },
    event(event, state) {
      const names = state && state.game ? state.game.seats.map(x => x.player || "seat " + x.seat) : [];
      replayFromEvents(event, names);
    },
    status(ctx) {
      const v = ctx.view || {};
      if (v.inhand === false && typeof v.nexthand_ms === "number") {
        return [Hub.el("b", {}, "Between hands"), " · next hand in ", Hub.clock(performance.now() + v.nexthand_ms, 0, "next hand")];
      }
      return null;
    },
    turnText(turn) { return {blind: "post a blind", bet: "bet, call or fold", discard: "change cards", show: "show or muck"}[turn.decision] || ""; },
    board(ctx) {
      const {el} = Hub;
      const last = lastHand ? el("div", {class: "small", id: "last-hand"}, "Last hand (" + handLabel(lastHand.handid) + "): ",
        Object.entries(lastHand.deltas || {}).map(([seat, d]) =>
          ((lastHand.names || {})[seat] || "seat " + seat) + " " + (String(d).startsWith("-") ? d : "+" + d)).join(", "),
        lastHand.seed ? [" · ", el("a", {id: "verify-link", target: "_blank", rel: "noopener",
          href: "/history?" + new URLSearchParams({seed: lastHand.seed, commitment: lastHand.commitment || "",
            contributions: Object.entries(lastHand.contributions || {}).map(([s, v]) => s + ":" + v).join(" ")}) + "#verify"},
          "verify the shuffle")] : null) : null;
      let replay = null;
      if (lastHand && lastHandLines.length) {
        const shown = el("div", {class: "log", id: "hand-replay-log", tabindex: 0, "aria-label": "the hand step by step"},
          lastHandLines.slice(0, replayStep + 1).map((line, i) => el("div", {class: i === replayStep ? "current" : ""}, line)));
        const step = delta => { replayStep = Math.max(0, Math.min(lastHandLines.length - 1, replayStep + delta)); GamePage.render(); };
        replay = el("details", {id: "hand-replay"}, el("summary", {}, "Replay hand " + handLabel(lastHand.handid) + " step by step"),
          el("div", {class: "row"},
            el("button", {class: "secondary", id: "hand-replay-prev", onclick: () => step(-1)}, "◀ back"),
            el("button", {id: "hand-replay-next", onclick: () => step(1)}, "step ▶"),
            el("span", {class: "small"}, "step " + (replayStep + 1) + " of " + lastHandLines.length)),
          shown);
        const open = document.getElementById("hand-replay");
        if (open && open.open) replay.open = true;
      }
      return [table(ctx, true), last, replay];
    },
    replayBoard(ctx) { return table(ctx, false); },
    actions(ctx) {
      const {el} = Hub;
      if (!ctx.legal.length) return [el("span", {class: "muted"}, "Not your turn.")];
      return ctx.legal.map(a => {
        if (a.min !== undefined && a.max !== undefined) {
          const input = el("input", {type: "number", step: "any", min: a.min, max: a.max, value: a.min,
            class: "amount", "aria-label": a.name + " amount"});
          return el("form", {class: "row poker-form", onsubmit: ev => {
            ev.preventDefault(); ctx.act({name: a.name, amount: input.value});
          }}, input, el("button", {type: "submit", class: "poker-action", dataset: {name: a.name}},
            a.name + " (" + a.min + "–" + a.max + ")"));
        }
        if (a.name === "discard") {
          return el("button", {class: "poker-action", dataset: {name: a.name},
            onclick: () => ctx.act({name: a.name, discarded: [...discard].sort()})},
            discard.size ? "change " + discard.size + " card(s)" : "stand pat");
        }
        return el("button", {class: "poker-action" + (a.name === "fold" ? " secondary" : ""), dataset: {name: a.name},
          onclick: () => ctx.act({name: a.name})}, a.name + (a.amount ? " " + a.amount : ""));
      });
    },
    replay: {
      // a long table is many hands: the replay jumps from one hand to the next
      chapter: {word: "hand", starts: event => event.kind === "hand"},
      apply(view, event) {
        const d = event.data || {};
        const v = Object.assign({}, view);
        const players = (view.players || []).map(p => Object.assign({}, p));
        const find = seat => players.find(p => p.seat === seat);
        v.players = players;
        switch (event.kind) {
          case "buyin": {
            let p = find(d.seat);
            if (!p) { p = {seat: d.seat, accountname: d.name, bankroll: "0", inpot: "0", state: "waiting", holecards: []}; players.push(p); players.sort((a, b) => a.seat - b.seat); }
            p.bankroll = fmt(num(p.bankroll) + num(d.amount));
            break;
          }
          case "cashout": v.players = players.filter(p => p.seat !== d.seat); break;
          case "hand":
            Object.assign(v, {handid: d.handid, inhand: true, boardcards: [], pot: "0", pots: [], stage: 0,
              buttonseat: d.button, smallblindseat: d.smallblindseat, bigblindseat: d.bigblindseat});
            players.forEach(p => Object.assign(p, {holecards: [], inpot: "0", lastaction: null, state: "waiting"}));
            break;
          case "deal": players.forEach(p => { if ((d.seats || []).includes(p.seat)) Object.assign(p, {holecards: Array(d.count).fill(-1), state: "active"}); }); break;
          case "turn": v.currentplayerseat = d.seat; v.decision = d.decision; break;
          case "action": {
            const p = find(d.seat);
            if (!p) break;
            if (d.amount && d.name !== "discard") {
              p.bankroll = fmt(num(p.bankroll) - num(d.amount));
              p.inpot = fmt(num(p.inpot) + num(d.amount));
              v.pot = fmt(num(v.pot) + num(d.amount));
            }
            p.lastaction = d.name;
            if (typeof d.stage === "number") v.stage = Math.max(0, d.stage);
            if (d.name === "fold") p.state = "folded";
            if (d.allin) p.state = "allin";
            break;
          }
          case "return": {
            const p = find(d.seat);
            if (p) { p.bankroll = fmt(num(p.bankroll) + num(d.amount)); p.inpot = fmt(num(p.inpot) - num(d.amount)); }
            v.pot = fmt(num(v.pot) - num(d.amount));
            break;
          }
          case "board": v.boardcards = d.board || d.cards || []; v.stage = d.stage; break;
          case "pots": v.pots = d.pots || []; break;
          case "level": Object.assign(v, {smallblind: d.smallblind, bigblind: d.bigblind, smallbet: d.smallbet, bigbet: d.bigbet}); break;
          case "eliminated": { const p = find(d.seat); if (p) p.place = d.place; break; }
          case "show": { const p = find(d.seat); if (p) p.holecards = d.cards || p.holecards; break; }
          case "award": { const p = find(d.seat); if (p) p.bankroll = fmt(num(p.bankroll) + num(d.amount)); break; }
          case "handover":
            players.forEach(p => { if ((d.stacks || {})[p.seat] !== undefined) p.bankroll = d.stacks[p.seat]; p.inpot = "0"; });
            Object.assign(v, {inhand: false, pot: "0", currentplayerseat: null});
            break;
        }
        return v;
      },
    },
  };
  window.GameRenderers["texas-holdem"] = renderer;
  window.GameRenderers["five-card-draw"] = renderer;
  window.GameRenderers["holdem-sng"] = renderer;
  window.GameRenderers["holdem-p2p"] = renderer;
})();
