// Poker in the browser (texas-holdem, five-card-draw, holdem-sng; their IWebView.script):
// the table drawn as a table (your seat at the bottom, the others around it clockwise,
// bets in front of the seats, pot and board in the middle, the dealer button and the
// blinds marked), the action buttons (on a phone fixed at the bottom of the screen),
// pre-actions while others act (check/fold, call any, fold to any bet), the table's
// switches (blinds posted for you, sit out next hand, muck losing hands), and a hand
// replayer next to the table: the last 20 hands, step by step, in words. Replays rebuild
// the table from the public events: hole cards stay face down until shown.
"use strict";
window.GameRenderers = window.GameRenderers || {};
(() => {
  const RANKS = "23456789TJQKA", SUITS = "♣♦♥♠", SUIT_NAMES = ["clubs", "diamonds", "hearts", "spades"];
  const RANK_NAMES = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "jack", "queen", "king", "ace"];
  const STAGES = ["pre-flop", "flop", "turn", "river", "showdown"];
  const KEPT_HANDS = 20;  // the replayer's hands
  // A draw game bets before and after its one draw; there is no board.
  function stageName(v) {
    if (v.game !== "five-card-draw") return STAGES[v.stage] || "";
    if (v.decision === "discard") return "the draw";
    return v.stage > 0 ? "after the draw" : "before the draw";
  }
  const ACTIONS = {post: "posts", refuse: "refuses the blind", fold: "folds", check: "checks", call: "calls",
    bet: "bets", raise: "raises to", discard: "changes", muck: "mucks"};
  // the hands of this table as the page saw them: {id, number, lines, result}
  let hands = [], building = null, chosen = null, replayStep = 0;
  const discard = new Set();
  const sent = new Set();  // preferences already sent for "<game>:<seat>:<name>"

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
      case "turn": return (names[d.seat] || "seat " + d.seat) + (d.timebank ? " draws on the time bank" :
        ({blind: " to post a blind", bet: " to act", discard: " to change cards", show: " to show or muck"}[d.decision] || " to act"));
      case "cancel": return "The hand is called off" + (d.reason ? ": " + d.reason : "");
      case "autopost": return "Blinds are posted for you " + (d.on ? "automatically from now on" : "no longer");
      case "automuck": return d.on ? "Your losing hands are mucked without asking from now on" : "You are asked again whether to show";
      // a sit-and-go's (holdem-sng)
      case "level": return "Level " + d.level + ": blinds " + d.smallblind + "/" + d.bigblind + ", bets " + d.stakes;
      case "eliminated": return who + " is out in place " + d.place + (d.left ? " (" + d.left + " left)" : "");
      case "away": return who + (d.away ? " is away: the game checks or folds for them" : " is back");
      case "shuffle": return "Hand " + d.number + "'s shuffle is committed: " + String(d.commitment || "").slice(0, 12) + "… (add your entropy until the deal)";
      case "entropy": return (names[d.seat] || "seat " + d.seat) + " adds entropy " + String(d.value || "").slice(0, 12) + "… to hand " + d.number + "'s shuffle";
      default: return null;
    }
  }

  // -- the hands the page saw, for the replayer --------------------------------------

  function follow(event, names) {
    if (event.kind === "hand") {
      discard.clear();
      building = {id: event.data.handid, number: event.data.number, lines: [], result: null};
    }
    if (!building) return;
    const line = event.kind === "turn" ? null : describe(event, names);
    if (line) building.lines.push(line);
    if (event.kind === "handover") {
      building.result = event.data;
      const latest = chosen === null || chosen === hands.length - 1;
      hands.push(building);
      if (hands.length > KEPT_HANDS) { hands.shift(); if (chosen !== null) chosen = Math.max(0, chosen - 1); }
      if (latest) { chosen = hands.length - 1; replayStep = 0; }
      building = null;
    }
  }

  function lastHandLine(el) {
    const last = hands[hands.length - 1];
    if (!last) return null;
    const r = last.result;
    return el("p", {class: "small", id: "last-hand"}, "Last hand (" + handLabel(r.handid) + "): ",
      Object.entries(r.deltas || {}).map(([seat, d]) =>
        ((r.names || {})[seat] || "seat " + seat) + " " + (String(d).startsWith("-") ? d : "+" + d)).join(", "),
      r.seed ? [" · ", el("a", {id: "verify-link", target: "_blank", rel: "noopener",
        href: "/history?" + new URLSearchParams({seed: r.seed, commitment: r.commitment || "",
          contributions: Object.entries(r.contributions || {}).map(([s, v]) => s + ":" + v).join(" ")}) + "#verify"},
        "verify the shuffle")] : null);
  }

  // The replayer: a hand (the latest by default), its steps one at a time, in words.
  function replayer(el) {
    if (!hands.length) {
      return el("section", {class: "hand-replayer", "aria-label": "hand replayer"},
        el("p", {class: "small muted", id: "replayer-empty"}, "The hands played here appear in the replayer as they end (the last " + KEPT_HANDS + ")."));
    }
    if (chosen === null || chosen >= hands.length) chosen = hands.length - 1;
    const hand = hands[chosen];
    replayStep = Math.max(0, Math.min(hand.lines.length - 1, replayStep));
    const step = delta => { replayStep = Math.max(0, Math.min(hand.lines.length - 1, replayStep + delta)); GamePage.render(); };
    const pick = el("select", {id: "hand-replay-hand", "aria-label": "hand to replay", onchange: ev => {
      chosen = Number(ev.target.value); replayStep = 0; GamePage.render(); }},
      hands.map((h, i) => el("option", {value: i, selected: i === chosen}, "hand " + handLabel(h.id))).reverse());
    const shown = el("div", {class: "log", id: "hand-replay-log", tabindex: 0, role: "log", "aria-label": "the hand step by step"},
      hand.lines.slice(0, replayStep + 1).map((line, i) => el("div", {class: i === replayStep ? "current" : ""}, line)));
    const details = el("details", {id: "hand-replay", class: "hand-replayer"},
      el("summary", {}, "Hand replayer · last " + hands.length + " hand" + (hands.length === 1 ? "" : "s")),
      el("div", {class: "row replay-steps"},
        el("span", {class: "small", id: "hand-replay-step"}, "step " + (replayStep + 1) + " of " + hand.lines.length),
        pick,
        el("button", {class: "secondary", id: "hand-replay-first", onclick: () => step(-1e9), "aria-label": "first step"}, "«"),
        el("button", {class: "secondary", id: "hand-replay-prev", onclick: () => step(-1)}, "◀ back"),
        el("button", {id: "hand-replay-next", onclick: () => step(1)}, "step ▶"),
        el("button", {class: "secondary", id: "hand-replay-last", onclick: () => step(1e9), "aria-label": "last step"}, "»")),
      shown);
    const open = document.getElementById("hand-replay");
    if (open ? open.open : window.matchMedia("(min-width: 901px)").matches) details.open = true;
    return details;
  }

  // -- the table -------------------------------------------------------------------

  // Seat centres around the table (percent of its box), clockwise on the screen from the
  // bottom centre, evenly spaced along a rounded rectangle inside the box: n seats of
  // w × h (pixels of a box W × H, corners of radius r) that never overlap (2 to 10).
  function ring(n, W, H, w, h, r) {
    const x0 = w / 2, x1 = W - w / 2, y0 = h / 2, y1 = H - h / 2, cx = W / 2;
    const segments = [
      ["line", cx, y1, x0 + r, y1], ["arc", x0 + r, y1 - r, 90, 180], ["line", x0, y1 - r, x0, y0 + r],
      ["arc", x0 + r, y0 + r, 180, 270], ["line", x0 + r, y0, x1 - r, y0], ["arc", x1 - r, y0 + r, 270, 360],
      ["line", x1, y0 + r, x1, y1 - r], ["arc", x1 - r, y1 - r, 0, 90], ["line", x1 - r, y1, cx, y1]];
    const length = s => s[0] === "line" ? Math.hypot(s[3] - s[1], s[4] - s[2]) : (s[4] - s[3]) * Math.PI / 180 * r;
    const total = segments.reduce((sum, s) => sum + length(s), 0);
    const at = u => {
      let d = u * total;
      for (const s of segments) {
        const L = length(s);
        if (d <= L + 1e-9) {
          const f = L ? d / L : 0;
          if (s[0] === "line") return [s[1] + (s[3] - s[1]) * f, s[2] + (s[4] - s[2]) * f];
          const a = (s[3] + (s[4] - s[3]) * f) * Math.PI / 180;
          return [s[1] + r * Math.cos(a), s[2] + r * Math.sin(a)];
        }
        d -= L;
      }
      return [cx, y1];
    };
    return Array.from({length: n}, (_, i) => at(i / n)).map(([x, y]) => [x / W * 100, y / H * 100]);
  }
  // the box the positions are computed for (its aspect ratio is the table's, see web.css);
  // ``middle``: where pot, board and status are (percent); ``bet``: a bet's size (percent)
  const LAYOUTS = {
    // (a phone's middle holds the pot and the board; the status is under the table)
    phone: {W: 366, H: 420, w: 92, h: 78, r: 80, middle: [[38, 40, 62, 46], [30, 46, 70, 56]], bet: [14, 4.6]},
    desktop: {W: 720, H: 450, w: 124, h: 112, r: 80, middle: [[38, 37, 62, 44], [31, 44, 69, 58], [35, 58, 65, 64]],
      bet: [10, 5.5]},
  };

  // Where a seat's bet goes: on the way from the seat to the middle, as far in as it
  // can without covering the seat, the middle (pot, board, status) or the bets placed
  // before it (``taken``, which gets this one).
  function betSpot(L, x, y, taken) {
    const [bw, bh] = L.bet, sw = L.w / L.W * 100, sh = L.h / L.H * 100;
    const my0 = Math.min(...L.middle.map(m => m[1])), my1 = Math.max(...L.middle.map(m => m[3]));
    const apart = (a, b) => a[2] <= b[0] || b[2] <= a[0] || a[3] <= b[1] || b[3] <= a[1];
    const rect = (bx, by) => [bx - bw / 2, by - bh / 2, bx + bw / 2, by + bh / 2];
    const clear = r => L.middle.every(m => apart(r, m)) && apart(r, [x - sw / 2, y - sh / 2, x + sw / 2, y + sh / 2]) &&
      r[0] >= 0 && r[2] <= 100 && taken.every(t => apart(r, t));
    const tries = [0.5, 0.44, 0.38, 0.32, 0.26].map(k => [x + (50 - x) * k, y + (50 - y) * k]);
    // a seat beside the middle: towards it, above or below the middle
    const above = my0 - bh / 2 - 0.5, below = my1 + bh / 2 + 0.5;
    for (const k of [0.45, 0.35, 0.25]) {
      const bx = x + (50 - x) * k;
      tries.push(...(y < 50 ? [[bx, above], [bx, below]] : [[bx, below], [bx, above]]));
    }
    // else just above (or below) the seat itself
    const bx = x + (50 - x) * 0.15;
    tries.push([bx, y - sh / 2 - bh / 2 - 0.5], [bx, y + sh / 2 + bh / 2 + 0.5]);
    let spot = tries.find(([bx, by]) => clear(rect(bx, by)));
    if (!spot) {  // a crowded table: the free place nearest the first choice
      let best = Infinity;
      const [ax, ay] = tries[0];
      for (let gx = 6; gx <= 94; gx += 2) {
        for (let gy = 6; gy <= 94; gy += 2) {
          const d = (gx - ax) ** 2 + (gy - ay) ** 2;
          if (d < best && clear(rect(gx, gy))) { best = d; spot = [gx, gy]; }
        }
      }
    }
    spot = spot || tries[0];
    taken.push(rect(...spot));
    return spot;
  }

  // Once drawn: a bet that covers a seat, the middle or another bet (its real size may
  // differ from the estimate) moves to the nearest free place towards the middle.
  function untangle(box) {
    if (!box.isConnected) return;
    const at = box.getBoundingClientRect();
    if (!at.width) return;
    const rel = r => [r.left - at.left, r.top - at.top, r.right - at.left, r.bottom - at.top];
    const apart = (a, b) => a[2] <= b[0] || b[2] <= a[0] || a[3] <= b[1] || b[3] <= a[1];
    const fixed = [...box.querySelectorAll(".plate, .hole-cards, .table-middle > *, .poker-seat.empty span")]
      .map(n => rel(n.getBoundingClientRect())).filter(r => r[2] > r[0]);
    const placed = [];
    for (const bet of box.querySelectorAll(".bet")) {
      const r = rel(bet.getBoundingClientRect()), w = r[2] - r[0], h = r[3] - r[1];
      const free = (cx, cy) => {
        const q = [cx - w / 2 - 2, cy - h / 2 - 2, cx + w / 2 + 2, cy + h / 2 + 2];
        return q[0] >= 0 && q[1] >= 0 && q[2] <= at.width && q[3] <= at.height &&
          fixed.every(f => apart(q, f)) && placed.every(p => apart(q, p));
      };
      let [cx, cy] = [(r[0] + r[2]) / 2, (r[1] + r[3]) / 2];
      if (!free(cx, cy)) {
        let best = Infinity, found = null;
        for (let gx = w / 2; gx <= at.width - w / 2; gx += 4) {
          for (let gy = h / 2; gy <= at.height - h / 2; gy += 4) {
            const d = (gx - cx) ** 2 + (gy - cy) ** 2;
            if (d < best && free(gx, gy)) { best = d; found = [gx, gy]; }
          }
        }
        if (found) { [cx, cy] = found; place(bet, cx / at.width * 100, cy / at.height * 100); }
      }
      placed.push([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2]);
    }
  }

  function place(node, x, y) {
    node.style.left = x.toFixed(2) + "%";
    node.style.top = y.toFixed(2) + "%";
    return node;
  }

  function table(ctx, interactive) {
    const {el} = Hub;
    const v = ctx.view || {};
    const players = v.players || [];
    const count = Math.max(2, Math.min(10, v.seats || players.length || 2));
    const inHand = v.inhand !== undefined ? v.inhand : v.handid !== null && v.handid !== undefined;
    const phone = window.matchMedia("(max-width: 600px)").matches;
    const L = phone ? LAYOUTS.phone : LAYOUTS.desktop;
    const spots = ring(count, L.W, L.H, L.w, L.h, L.r);
    // your seat at the bottom (a spectator sees seat 0 there)
    const bottom = ctx.seat !== null && ctx.seat !== undefined ? ctx.seat : 0;
    const spotOf = seat => spots[((seat - bottom) % count + count) % count];
    const status = inHand ? "Hand " + handLabel(v.handid) + " · " + stageName(v)
      : v.handid ? "Hand " + handLabel(v.handid) + " is over" : "Waiting for the first hand";
    const bySeat = new Map(players.map(p => [p.seat, p]));
    const mine = ctx.seat !== null ? bySeat.get(ctx.seat) : null;
    const felt = el("div", {class: "felt", "aria-hidden": "true"});
    const middle = el("div", {class: "table-middle"},
      el("div", {id: "pot", class: "pot"}, el("span", {class: "chip-icon", "aria-hidden": "true"}), "Pot " + money(v.pot),
        (v.pots || []).length > 1 ? " (" + v.pots.map(p => p.amount).join(" + ") + ")" : ""),
      el("div", {class: "cards board-cards", id: "board-cards", role: "group", "aria-label": "board"},
        (v.boardcards || []).map(c => cardNode(el, c)),
        inHand && v.game !== "five-card-draw" ? Array.from({length: Math.max(0, 5 - (v.boardcards || []).length)}, () => el("span", {class: "card slot", "aria-hidden": "true"})) : null),
      el("div", {class: "felt-status", id: "hand-status"}, status));
    // (on a phone the status is under the table: the middle holds pot and board only)
    const stakes = el("p", {class: "small felt-stakes", id: "stakes"}, el("b", {class: "status-under"}, status + " · "),
      Hub.words(v.game || "poker") + " · " + (v.variant || "") +
      " · blinds " + v.smallblind + "/" + v.bigblind +
      (v.tournament ? " · level " + v.tournament.level.level + " · " + v.tournament.players_left + " left" : ""));
    const seats = [], bets = [], taken = [];
    for (let seat = 0; seat < count; seat++) {
      const [x, y] = spotOf(seat);
      const p = bySeat.get(seat);
      if (!p) {
        seats.push(place(el("div", {class: "poker-seat empty", dataset: {seat}}, el("span", {class: "small"}, "seat " + seat + " · free")), x, y));
        continue;
      }
      const acting = p.seat === v.currentplayerseat && inHand;
      const me = p.seat === ctx.seat;
      const sittingOut = p.state === "sittingout";
      const cards = (p.holecards || []).map((c, i) => {
        const node = cardNode(el, c);
        if (interactive && me && ctx.legal.some(a => a.name === "discard")) {
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
      });
      const clock = acting && interactive ? ctx.clock(p.accountname + "'s time") : null;
      const info = p.place ? "out · place " + p.place : sittingOut ? "sitting out" : p.state === "allin" ? "all in"
        : p.state === "folded" ? "folded" : p.leaving ? "leaving" : p.lastaction ? Hub.words(p.lastaction) : "";
      const node = el("div", {class: "poker-seat" + (acting ? " to-act" : "") + (p.state === "folded" ? " folded" : "") +
          (sittingOut ? " out" : "") + (me ? " mine" : "") + (y < 50 ? " upper" : "") +
          (acting && ctx.turn && ctx.turn.timebank ? " banking" : ""), dataset: {seat: p.seat},
          role: "group", "aria-label": "seat " + p.seat + ": " + p.accountname},
        el("div", {class: "cards hole-cards" + (cards.length > 2 ? " many" : "")}, cards),
        el("div", {class: "plate"},
          el("div", {class: "seat-head"}, el("span", {class: "avatar seat-colour-" + (p.seat % 8), "aria-hidden": "true"}, String(p.accountname || "?").slice(0, 1).toUpperCase()),
            el("b", {class: "seat-name", title: p.accountname}, p.accountname),
            // the dealer button on the plate: a long name is cut short, never the button
            p.seat === v.buttonseat ? el("span", {class: "dealer-button", title: "dealer button", "aria-label": "dealer button"}, "D") : null),
          el("div", {class: "seat-line"}, el("span", {class: "stack"}, money(p.bankroll)),
            clock || (info ? el("span", {class: "seat-state"}, info) : null)),
          ));
      seats.push(place(node, x, y));
      // in front of the seat: its bet this round (the blinds marked), towards the middle
      const bet = num(p.inpotthisround);
      if (inHand && bet > 0) {
        const blind = v.stage === 0 && p.seat === v.smallblindseat ? "SB " : v.stage === 0 && p.seat === v.bigblindseat ? "BB " : "";
        const [bx, by] = betSpot(L, x, y, taken);
        bets.push(place(el("div", {class: "bet", dataset: {seat: p.seat}}, el("span", {class: "chip-icon", "aria-hidden": "true"}),
          blind ? el("span", {class: "blind-mark"}, blind) : null, money(p.inpotthisround)), bx, by));
      }
    }
    const box = el("div", {class: "poker-table seats-" + count + (phone ? " phone" : ""), id: "poker-table", role: "group",
      "aria-label": "the table: " + status}, felt, middle, bets, seats);
    requestAnimationFrame(() => untangle(box));
    return {box, mine, status, stakes};
  }

  // -- the table's switches: blinds posted for you, sitting out, mucking ------------

  function pref(key, fallback) {
    try { const v = localStorage.getItem("poker." + key); return v === null ? fallback : v === "on"; } catch (e) { return fallback; }
  }
  function setPref(key, on) { try { localStorage.setItem("poker." + key, on ? "on" : "off"); } catch (e) { /* private mode */ } }

  async function send(ctx, action) {
    try { await Hub.write("POST", "/api/games/" + ctx.game.id + "/actions", {action}); }
    catch (e) { Hub.error(e, document.getElementById("poker-switches")); }
  }

  // Once per seat: the preferences this browser keeps (blinds posted for you by default).
  function applyPreferences(ctx, me) {
    if (!me || ctx.game.state === "over" || ctx.game.type === "holdem-sng") return;
    const key = ctx.game.id + ":" + ctx.seat + ":";
    const wants = [["autopost", pref("autopost", true), on => ({name: "post", amount: on ? "1" : "0"})],
      ["automuck", pref("automuck", false), on => ({name: "muck", auto: on})]];
    for (const [name, on, action] of wants) {
      if (me[name] === undefined || me[name] === on || sent.has(key + name)) continue;
      sent.add(key + name);
      setTimeout(() => send(ctx, action(on)), 0);
    }
  }

  function switches(ctx, me) {
    const {el} = Hub;
    if (!me || ctx.game.state === "over" || ctx.game.type === "holdem-sng") return null;
    const toggle = (id, label, checked, change) => el("label", {class: "inline small switch", for: id},
      el("input", {type: "checkbox", id, checked, onchange: ev => change(ev.target.checked)}), label);
    const out = me.sitoutnext || me.state === "sittingout";
    return el("div", {class: "row poker-switches", id: "poker-switches", role: "group", "aria-label": "your table settings"},
      toggle("opt-autopost", "post blinds for me", !!me.autopost, on => { setPref("autopost", on); send(ctx, {name: "post", amount: on ? "1" : "0"}); }),
      toggle("opt-sitout", "sit out next hand", out, on => send(ctx, {name: on ? "sitout" : "sitin"})),
      toggle("opt-automuck", "muck losing hands", !!me.automuck, on => { setPref("automuck", on); send(ctx, {name: "muck", auto: on}); }));
  }

  // -- pre-actions: chosen while others act, played the moment our turn comes ---------

  const PRE = {
    "check/fold": legal => legal.find(a => a.name === "check") || legal.find(a => a.name === "fold") || null,
    "call any": legal => legal.find(a => a.name === "call") || legal.find(a => a.name === "check") || null,
    "fold to any bet": legal => legal.find(a => a.name === "check") || legal.find(a => a.name === "fold") || null,
  };

  function preActions(ctx, me) {
    const {el} = Hub;
    const v = ctx.view || {};
    const inHand = v.inhand && me && (me.state === "active") && v.decision !== "blind";
    if (!inHand) return null;
    const hand = v.handid;
    const choose = (label, on) => {
      if (!on) { ctx.cancelPremove(); return; }
      const pick = PRE[label];
      // fold to any bet stays for the whole hand; the others play once
      const keep = label === "fold to any bet" ? (action => action.name === "check" && (GamePage.state.view || {}).handid === hand) : null;
      ctx.premove(label, legal => { const a = pick(legal); return a ? {name: a.name} : null; }, keep);
    };
    return el("div", {class: "row pre-actions", id: "pre-actions", role: "group", "aria-label": "pre-actions"},
      el("span", {class: "small muted"}, "Not your turn · act in advance:"),
      Object.keys(PRE).map(label => {
        const id = "pre-" + label.replace(/[^a-z]+/g, "-");
        return el("label", {class: "inline small switch pre", for: id},
          el("input", {type: "checkbox", id, checked: ctx.premoved === label, onchange: ev => choose(label, ev.target.checked)}), label);
      }));
  }

  // -- the action bar ------------------------------------------------------------------

  // A bet or raise of a chosen amount: the amount with the sizes a player reaches for
  // (half the pot, the pot, all in; within the legal range) on a row of their own, and
  // the button that sends it beside the other actions.
  function amountForm(ctx, a, v) {
    const {el} = Hub;
    const input = el("input", {type: "number", step: "any", min: a.min, max: a.max, value: a.min,
      class: "amount", "aria-label": a.name + " amount", inputmode: "decimal"});
    const pot = num(v.pot), lo = num(a.min), hi = num(a.max);
    const sizes = [["min", lo], ["½ pot", pot / 2 + num(v.tocall)], ["pot", pot + num(v.tocall)], ["all in", hi]]
      .map(([label, x]) => [label, Math.max(lo, Math.min(hi, Math.round(x * 100) / 100))]);
    const form = el("form", {class: "row poker-form", id: "amount-form", onsubmit: ev => { ev.preventDefault(); ctx.act({name: a.name, amount: input.value}); }},
      el("div", {class: "sizes"}, sizes.map(([label, x]) => el("button", {type: "button", class: "secondary size", onclick: () => { input.value = fmt(x); }}, label))),
      input);
    const send = el("button", {type: "submit", class: "poker-action", dataset: {name: a.name}}, a.name + " (" + a.min + "–" + a.max + ")");
    send.setAttribute("form", "amount-form");
    return {form, send};
  }

  const renderer = {
    describe,
    reset(events, game) {
      hands = []; building = null; chosen = null; replayStep = 0;
      const names = game.seats.map(s => s.player || "seat " + s.seat);
      for (const e of events) follow(e, names);
    },
    event(event, state) {
      const names = state && state.game ? state.game.seats.map(x => x.player || "seat " + x.seat) : [];
      follow(event, names);
      // a pre-action is for the hand it was chosen in
      if (event.kind === "handover" && state && state.premove) GamePage.cancelPremove();
    },
    status(ctx) {
      const v = ctx.view || {};
      if (v.inhand === false && typeof v.nexthand_ms === "number") {
        return [Hub.el("b", {}, "Between hands"), " · next hand in ", Hub.clock(performance.now() + v.nexthand_ms, 0, "next hand")];
      }
      return null;
    },
    // what the seat to act must do, and its time bank: "+30 s time bank" while its own
    // time runs, "on the time bank" once it draws on it
    turnText(turn) {
      const words = {blind: "post a blind", bet: "bet, call or fold", discard: "change cards", show: "show or muck"}[turn.decision] || "";
      if (turn.timebank) return words + " · on the time bank";
      const bank = Math.round((turn.timebank_ms || 0) / 1000);
      return words + (bank > 0 && turn.decision !== "blind" && turn.decision !== "show" ? " · +" + bank + " s time bank" : "");
    },
    board(ctx) {
      const {el} = Hub;
      const drawn = table(ctx, true);
      applyPreferences(ctx, drawn.mine);
      return el("div", {class: "poker-room"}, drawn.box,
        el("div", {class: "poker-side"}, drawn.stakes, switches(ctx, drawn.mine), lastHandLine(el), replayer(el)));
    },
    replayBoard(ctx) { return table(ctx, false).box; },
    actions(ctx) {
      const {el} = Hub;
      const v = ctx.view || {};
      const me = (v.players || []).find(p => p.seat === ctx.seat);
      let items;
      if (me && me.state === "sittingout" && !me.place && ctx.game.type !== "holdem-sng") {
        items = [el("span", {class: "muted"}, "You sit out."),
          el("button", {class: "poker-action", id: "sit-in", dataset: {name: "sitin"}, onclick: () => ctx.act({name: "sitin"})}, "Sit in")];
      } else if (!ctx.legal.length) {
        items = [preActions(ctx, me) || el("span", {class: "muted"}, "Not your turn.")];
      } else {
        let amount = null;
        items = ctx.legal.map(a => {
          if (a.min !== undefined && a.max !== undefined) { amount = amountForm(ctx, a, v); return amount.send; }
          if (a.name === "discard") {
            return el("button", {class: "poker-action", dataset: {name: a.name},
              onclick: () => ctx.act({name: a.name, discarded: [...discard].sort()})},
              discard.size ? "change " + discard.size + " card(s)" : "stand pat");
          }
          return el("button", {class: "poker-action" + (a.name === "fold" ? " secondary" : ""), dataset: {name: a.name},
            onclick: () => ctx.act({name: a.name})}, a.name + (a.amount ? " " + a.amount : ""));
        });
        if (amount) items = [el("div", {class: "poker-buttons"}, items), amount.form];
      }
      return [el("div", {class: "poker-actions", id: "poker-actions"}, items)];
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
            if (!p) { p = {seat: d.seat, accountname: d.name, bankroll: "0", inpot: "0", inpotthisround: "0", state: "waiting", holecards: []}; players.push(p); players.sort((a, b) => a.seat - b.seat); }
            p.bankroll = fmt(num(p.bankroll) + num(d.amount));
            break;
          }
          case "cashout": v.players = players.filter(p => p.seat !== d.seat); break;
          case "hand":
            Object.assign(v, {handid: d.handid, inhand: true, boardcards: [], pot: "0", pots: [], stage: 0,
              buttonseat: d.button, smallblindseat: d.smallblindseat, bigblindseat: d.bigblindseat});
            players.forEach(p => Object.assign(p, {holecards: [], inpot: "0", inpotthisround: "0", lastaction: null, state: "waiting"}));
            break;
          case "deal": players.forEach(p => { if ((d.seats || []).includes(p.seat)) Object.assign(p, {holecards: Array(d.count).fill(-1), state: "active"}); }); break;
          case "turn": v.currentplayerseat = d.seat; v.decision = d.decision; break;
          case "action": {
            const p = find(d.seat);
            if (!p) break;
            if (d.amount && d.name !== "discard") {
              p.bankroll = fmt(num(p.bankroll) - num(d.amount));
              p.inpot = fmt(num(p.inpot) + num(d.amount));
              p.inpotthisround = fmt(num(p.inpotthisround) + num(d.amount));
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
            if (p) { p.bankroll = fmt(num(p.bankroll) + num(d.amount)); p.inpot = fmt(num(p.inpot) - num(d.amount)); p.inpotthisround = fmt(Math.max(0, num(p.inpotthisround) - num(d.amount))); }
            v.pot = fmt(num(v.pot) - num(d.amount));
            break;
          }
          case "board": v.boardcards = d.board || d.cards || []; v.stage = d.stage; players.forEach(p => { p.inpotthisround = "0"; }); break;
          case "pots": v.pots = d.pots || []; break;
          case "level": Object.assign(v, {smallblind: d.smallblind, bigblind: d.bigblind, smallbet: d.smallbet, bigbet: d.bigbet}); break;
          case "eliminated": { const p = find(d.seat); if (p) p.place = d.place; break; }
          case "show": { const p = find(d.seat); if (p) p.holecards = d.cards || p.holecards; break; }
          case "award": { const p = find(d.seat); if (p) p.bankroll = fmt(num(p.bankroll) + num(d.amount)); break; }
          case "handover":
            players.forEach(p => { if ((d.stacks || {})[p.seat] !== undefined) p.bankroll = d.stacks[p.seat]; p.inpot = "0"; p.inpotthisround = "0"; });
            Object.assign(v, {inhand: false, pot: "0", currentplayerseat: null});
            break;
        }
        return v;
      },
    },
  };
  // the seats are placed for a phone or a desktop: drawn again when that changes
  window.matchMedia("(max-width: 600px)").addEventListener("change", () => {
    if (typeof GamePage !== "undefined" && GamePage.state.game) GamePage.render();
  });
  window.GameRenderers["texas-holdem"] = renderer;
  window.GameRenderers["five-card-draw"] = renderer;
  window.GameRenderers["holdem-sng"] = renderer;
  window.GameRenderers["holdem-p2p"] = renderer;
})();
