// Nine Men's Morris: the 24 points are buttons. Place: click a point. Move: click your
// piece, then its destination. Capture: click the opponent piece to remove.
"use strict";
window.GameRenderers = window.GameRenderers || {};
(() => {
  const RINGS = "ABC";
  function coords(point) {            // "B5" -> [x, y] on the 7x7 drawing
    const r = RINGS.indexOf(point[0]), i = Number(point[1]);
    return [[r, r], [3, r], [6 - r, r], [6 - r, 3], [6 - r, 6 - r], [3, 6 - r], [r, 6 - r], [r, 3]][i];
  }
  const POINTS = [];
  for (const ring of RINGS) for (let i = 0; i < 8; i++) POINTS.push(ring + i);
  let from = null;

  function lines(el) {
    const out = [];
    for (let r = 0; r < 3; r++) {
      const a = r, b = 6 - r;
      out.push(el("rect", {x: a, y: a, width: b - a, height: b - a, fill: "none", stroke: "#5a4a2a", "stroke-width": 0.06}));
    }
    out.push(el("line", {x1: 3, y1: 0, x2: 3, y2: 2}), el("line", {x1: 3, y1: 4, x2: 3, y2: 6}),
      el("line", {x1: 0, y1: 3, x2: 2, y2: 3}), el("line", {x1: 4, y1: 3, x2: 6, y2: 3}));
    return out;
  }

  window.GameRenderers.nmmorris = {
    board(ctx) {
      const {el} = Hub;
      const v = ctx.view || {};
      const board = v.board || [];
      const moves = ctx.legal.map(a => a.move).filter(Boolean);
      const capturing = (v.capture || 0) > 0 && ctx.myTurn;
      if (from && !moves.some(m => m.startsWith(from + ":"))) from = null;
      const targets = new Set();
      for (const m of moves) {
        if (m.includes(":")) {
          const [a, b] = m.split(":");
          if (from === null) targets.add(a); else if (a === from) targets.add(b);
        } else targets.add(m);
      }
      const svg = el("svg", {class: "morris", viewBox: "-0.6 -0.6 7.2 7.2", role: "img", "aria-label": "morris board"},
        el("rect", {class: "board", x: -0.6, y: -0.6, width: 7.2, height: 7.2, rx: 0.3}), lines(el));
      POINTS.forEach((name, index) => {
        const [x, y] = coords(name);
        const owner = board[index];
        const can = targets.has(name) || (from !== null && name === from);
        const click = can ? () => {
          if (from !== null && name === from) { from = null; GamePage.render(); return; }
          if (moves.includes(name)) { from = null; ctx.act({move: name}); return; }
          if (from !== null && moves.includes(from + ":" + name)) { const m = from + ":" + name; from = null; ctx.act({move: m}); return; }
          from = name; GamePage.render();
        } : null;
        const g = el("g", {class: "pt" + (can ? " clickable" : ""), dataset: {point: name, owner: owner === null || owner === undefined ? "" : owner}});
        if (owner === null || owner === undefined) {
          g.append(el("circle", {class: "point" + (can ? " can" : ""), cx: x, cy: y, r: can ? 0.22 : 0.12}));
        } else {
          const cls = "piece" + owner + (name === from ? " selected" : "") + (can && capturing ? " can-capture" : can ? " can-move" : "");
          g.append(el("circle", {class: cls, cx: x, cy: y, r: 0.3}));
        }
        g.append(el("text", {x: x + 0.18, y: y - 0.2}, name));
        g.append(el("circle", {class: "hit", cx: x, cy: y, r: 0.42, dataset: {point: name},
          "aria-label": name, onclick: click, role: can ? "button" : null, tabindex: can ? 0 : null,
          onkeydown: can ? ev => { if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); click(); } } : null}));
        svg.append(g);
      });
      const names = ctx.names;
      const hand = v.in_hand || [0, 0];
      return [svg, el("p", {class: "small", id: "morris-info"},
        "White (seat 0): " + (names[0] || "") + ", " + hand[0] + " in hand · Black (seat 1): " + (names[1] || "") + ", " + hand[1] + " in hand · phase " + (v.phase || "?"),
        v.turns !== undefined ? " · turn " + v.turns : "")];
    },
    actions(ctx) {
      const {el} = Hub;
      const v = ctx.view || {};
      if (!ctx.legal.length) return [el("span", {class: "muted", id: "morris-hint"}, "Not your turn.")];
      let hint;
      if ((v.capture || 0) > 0) hint = "You closed a mill: click an opponent piece to remove it.";
      else if (ctx.legal.some(a => (a.move || "").includes(":"))) hint = from ? "Click where to move " + from + "." : "Click one of your pieces, then its destination.";
      else hint = "Click a free point to place a piece.";
      return [el("span", {id: "morris-hint"}, hint)];
    },
  };
})();
