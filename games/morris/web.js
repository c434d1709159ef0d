// Nine Men's Morris in the browser (its IWebView.script): the 24 points are buttons.
// Place: click a point. Move: click your piece, then its destination. Capture: click
// the opponent piece to remove. While the opponent thinks, the same clicks queue a
// premove (sent when your turn comes if it is still legal; cancel it on the board or in
// the turn banner). Replays make each "moved" event's move on the board.
"use strict";
window.GameRenderers = window.GameRenderers || {};
(() => {
  const RINGS = "ABC";
  const COLOURS = ["White", "Black"];
  function coords(point) {            // "B5" -> [x, y] on the 7x7 drawing
    const r = RINGS.indexOf(point[0]), i = Number(point[1]);
    return [[r, r], [3, r], [6 - r, r], [6 - r, 3], [6 - r, 6 - r], [3, 6 - r], [r, 6 - r], [r, 3]][i];
  }
  const POINTS = [];
  for (const ring of RINGS) for (let i = 0; i < 8; i++) POINTS.push(ring + i);
  let from = null;
  let queued = null;  // the premove shown on the board: {label, from, to}

  // neighbouring points: along each ring, and across the rings at the middle points
  function neighbours(point) {
    const r = RINGS.indexOf(point[0]), i = Number(point[1]);
    const out = [RINGS[r] + ((i + 1) % 8), RINGS[r] + ((i + 7) % 8)];
    if (i % 2 === 1) { if (r > 0) out.push(RINGS[r - 1] + i); if (r < 2) out.push(RINGS[r + 1] + i); }
    return out;
  }

  // The moves the seat to move next could make if the position stayed as it is: what a
  // premove may choose (its legality is checked again when the turn comes).
  function premoves(v, me) {
    const cells = v.board || [];
    const free = POINTS.filter((p, i) => cells[i] === null || cells[i] === undefined);
    if ((v.in_hand || [0, 0])[me] > 0) return free;
    const mine = POINTS.filter((p, i) => cells[i] === me);
    const flying = mine.length === 3;
    const out = [];
    for (const a of mine) for (const b of (flying ? free : neighbours(a).filter(n => free.includes(n)))) out.push(a + ":" + b);
    return out;
  }
  function lines(el) {
    const out = [];
    for (let r = 0; r < 3; r++) {
      const a = r, b = 6 - r;
      out.push(el("rect", {class: "ring", x: a, y: a, width: b - a, height: b - a}));
    }
    out.push(el("line", {x1: 3, y1: 0, x2: 3, y2: 2}), el("line", {x1: 3, y1: 4, x2: 3, y2: 6}),
      el("line", {x1: 0, y1: 3, x2: 2, y2: 3}), el("line", {x1: 4, y1: 3, x2: 6, y2: 3}));
    return out;
  }

  function player(names, seat) {
    const name = names[seat];
    return COLOURS[seat] + (name && !/^seat \d$/.test(name) ? " (" + name + ")" : "");
  }

  function lastPoint(v) {
    const last = (v.history || [])[(v.history || []).length - 1];
    if (!last) return null;
    return last.includes(":") ? last.split(":")[1] : last;
  }

  function board(ctx, interactive) {
    const {el} = Hub;
    const v = ctx.view || {};
    const cells = v.board || [];
    // while the other player is to move, the clicks choose a premove
    const planning = interactive && !ctx.myTurn && ctx.seat !== null && ctx.seat !== undefined &&
      v.state === "running" && v.to_move !== ctx.seat;
    if (!ctx.premoved || (queued && ctx.premoved !== queued.label)) queued = null;
    const moves = !interactive ? [] : planning ? premoves(v, ctx.seat) : ctx.legal.map(a => a.move).filter(Boolean);
    const capturing = (v.capture || 0) > 0 && ctx.myTurn;
    if (from && !moves.some(m => m.startsWith(from + ":"))) from = null;
    const targets = new Set();
    for (const m of moves) {
      if (m.includes(":")) {
        const [a, b] = m.split(":");
        if (from === null) targets.add(a); else if (a === from) targets.add(b);
      } else targets.add(m);
    }
    const last = lastPoint(v);
    const svg = el("svg", {class: "morris" + (planning ? " planning" : ""), viewBox: "-0.6 -0.6 7.2 7.2", role: "group",
        "aria-label": planning ? "morris board: click a move to queue it as a premove" : "morris board"},
      el("rect", {class: "board", x: -0.6, y: -0.6, width: 7.2, height: 7.2, rx: 0.3}), lines(el));
    POINTS.forEach((name, index) => {
      const [x, y] = coords(name);
      const owner = cells[index];
      const can = targets.has(name) || (from !== null && name === from);
      const play = move => {
        from = null;
        if (!planning) { ctx.act({move}); return; }
        const label = move.includes(":") ? "move " + move.replace(":", " → ") : "place on " + move;
        const [a, b] = move.includes(":") ? move.split(":") : [null, move];
        queued = {label, from: a, to: b};
        ctx.premove(label, legal => legal.find(x => x.move === move) || null);
      };
      const click = can ? () => {
        if (from !== null && name === from) { from = null; GamePage.render(); return; }
        if (moves.includes(name)) { play(name); return; }
        if (from !== null && moves.includes(from + ":" + name)) { play(from + ":" + name); return; }
        from = name; GamePage.render();
      } : null;
      const empty = owner === null || owner === undefined;
      const premoved = queued !== null && (queued.to === name || queued.from === name);
      const g = el("g", {class: "pt" + (can ? " clickable" : "") + (premoved ? " premoved" : ""), dataset: {point: name, owner: empty ? "" : owner}});
      if (premoved) g.append(el("circle", {class: "premove-mark", cx: x, cy: y, r: 0.38}));
      if (empty) {
        g.append(el("circle", {class: "point" + (can ? " can" : ""), cx: x, cy: y, r: can ? 0.2 : 0.1}));
        // the point's name beside an empty point (a piece covers it: its label says it)
        g.append(el("text", {class: "pt-label", x: x + 0.25, y: y - 0.2}, name));
      } else {
        const cls = "piece piece" + owner + (name === from ? " selected" : "") +
          (can && capturing ? " can-capture" : can ? " can-move" : "") + (name === last ? " last" : "");
        g.append(el("circle", {class: cls, cx: x, cy: y, r: 0.3}));
      }
      const label = name + (empty ? " (free)" : " (" + COLOURS[owner].toLowerCase() + ")");
      if (!can) g.append(el("title", {}, label));
      g.append(el("circle", {class: "hit", cx: x, cy: y, r: 0.42, dataset: {point: name},
        "aria-label": can ? label : null, onclick: click, role: can ? "button" : null, tabindex: can ? 0 : null,
        onkeydown: can ? ev => { if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); click(); } } : null}));
      svg.append(g);
    });
    const names = ctx.names;
    const hand = v.in_hand || [0, 0];
    const tray = seat => el("div", {class: "tray", dataset: {seat}},
      el("span", {class: "stone stone" + seat, "aria-hidden": "true"}),
      el("span", {}, player(names, seat)),
      el("span", {class: "small muted"}, hand[seat] + " to place"));
    return [el("div", {class: "morris-wrap"}, tray(1), svg, tray(0)),
      el("p", {class: "small", id: "morris-info"},
        "phase: " + (v.phase || "placing") + (v.turns !== undefined ? " · turn " + v.turns : "") +
        ((v.capture || 0) > 0 ? " · a mill: " + player(names, v.to_move) + " removes a piece" : ""))];
  }

  window.GameRenderers.nmmorris = {
    board(ctx) { return board(ctx, true); },
    replayBoard(ctx) { return board(ctx, false); },
    actions(ctx) {
      const {el} = Hub;
      const v = ctx.view || {};
      if (!ctx.legal.length) {
        if (ctx.premoved) return [el("span", {id: "morris-hint"}, "Premove queued: " + ctx.premoved + ". "),
          el("button", {class: "secondary", id: "morris-premove-cancel", onclick: () => ctx.cancelPremove()}, "cancel premove")];
        return [el("span", {class: "muted", id: "morris-hint"}, v.state === "running" ? "Not your turn: click a move on the board to queue it as a premove." : "Not your turn.")];
      }
      let hint;
      if ((v.capture || 0) > 0) hint = "You closed a mill: click an opponent piece to remove it.";
      else if (ctx.legal.some(a => (a.move || "").includes(":"))) hint = from ? "Click where to move " + from + "." : "Click one of your pieces, then its destination.";
      else hint = "Click a free point to place a piece.";
      return [el("span", {id: "morris-hint"}, hint)];
    },
    turnText(turn) { return turn.capture > 0 ? "remove a piece" : ""; },
    describe(event, names) {
      const d = event.data || {};
      const who = player(names, d.seat);
      switch (event.kind) {
        case "seated": return d.name + " plays " + COLOURS[d.seat];
        case "turn": return d.capture > 0 ? who + " to remove a piece (a mill)" : who + " to move";
        case "moved": {
          const mill = d.mills ? (d.mills > 1 ? " and closes two mills" : " and closes a mill") : "";
          if (d.kind === "place") return who + " places a piece on " + d.move + mill;
          if (d.kind === "capture") return who + " removes " + COLOURS[1 - d.seat] + "'s piece on " + d.move;
          return who + " moves " + d.move.replace(":", " → ") + mill;
        }
        case "left": return who + " left the game";
        default: return null;
      }
    },
    replay: {
      apply(view, event) {
        const d = event.data || {};
        const v = Object.assign({}, view);
        if (event.kind === "seated") { v.names = (view.names || [null, null]).slice(); v.names[d.seat] = d.name; }
        if (event.kind === "moved") {
          // the move itself: a piece placed, moved (or flown) or removed
          const cells = (view.board || new Array(24).fill(null)).slice();
          const hand = (view.in_hand || [9, 9]).slice();
          const [src, dst] = d.move.includes(":") ? d.move.split(":") : [null, d.move];
          if (d.kind === "capture") cells[POINTS.indexOf(dst)] = null;
          else {
            if (src) cells[POINTS.indexOf(src)] = null;
            else hand[d.seat] -= 1;
            cells[POINTS.indexOf(dst)] = d.seat;
          }
          v.board = cells;
          v.in_hand = hand;
          v.capture = d.capture || 0;
          v.history = (view.history || []).concat([d.move]);
          v.turns = (view.turns || 0) + (d.capture ? 0 : 1);
          v.to_move = d.capture ? d.seat : 1 - d.seat;
          const onBoard = cells.filter(c => c === v.to_move).length;
          v.phase = hand[v.to_move] ? "placing" : onBoard === 3 ? "flying" : "moving";
        }
        return v;
      },
    },
  };
})();
