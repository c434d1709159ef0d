// King Domino in the browser (its IWebView.script): the draw (pick a domino), the
// dominoes to place, every kingdom as a grid that always fits its box (the rules put no
// limit on a kingdom's size). To place: choose an orientation, then click the cell of
// the first half in your kingdom (cells where it fits are outlined). Replays rebuild
// the kingdoms from the "placed" events.
"use strict";
window.GameRenderers = window.GameRenderers || {};
(() => {
  // The 48 dominoes: number -> [first half, second half]; a half is terrain + crowns.
  const TABLE = ("1 s s 2 s s 3 f f 4 f f 5 f f 6 f f 7 w w 8 w w 9 w w 10 g g 11 g g 12 b b " +
    "13 s f 14 s w 15 s g 16 s b 17 f w 18 f g 19 s1 f 20 s1 w 21 s1 g 22 s1 b 23 s1 m 24 f1 s " +
    "25 f1 s 26 f1 s 27 f1 s 28 f1 w 29 f1 g 30 w1 s 31 w1 s 32 w1 f 33 w1 f 34 w1 f 35 w1 f " +
    "36 s g1 37 w g1 38 s b1 39 g b1 40 m1 s 41 s g2 42 w g2 43 s b2 44 g b2 45 m2 s 46 b m2 " +
    "47 b m2 48 s m3").split(" ");
  const DOMINOES = {};
  for (let i = 0; i < TABLE.length; i += 3) {
    const half = t => ({terrain: t[0], crowns: Number(t.slice(1) || 0)});
    DOMINOES[TABLE[i]] = [half(TABLE[i + 1]), half(TABLE[i + 2])];
  }
  const NAMES = {f: "forest", g: "grass", s: "wheat", b: "bog", w: "water", m: "mine", c: "castle"};
  const OFFSETS = {0: [1, 0], 90: [0, 1], 180: [-1, 0], 270: [0, -1]};
  const DIRECTIONS = {0: "right", 90: "down", 180: "left", 270: "up"};
  const WIDE = 10;  // columns: a wider kingdom takes a whole row of the board
  let orientation = null;

  // Crowns are drawn (dots), not written: they stay visible in the smallest cell.
  function crowns(el, n) { return n ? el("i", {class: "crowns c" + Math.min(n, 3), "aria-hidden": "true"}) : null; }

  function halfText(h) { return NAMES[h.terrain] + (h.crowns ? " with " + h.crowns + " crown" + (h.crowns > 1 ? "s" : "") : ""); }

  function dominoText(number) {
    const halves = DOMINOES[number];
    return halves ? "domino " + number + " (" + halfText(halves[0]) + " | " + halfText(halves[1]) + ")" : "domino " + number;
  }

  function domino(el, number, attrs) {
    const halves = DOMINOES[number];
    if (!halves) return el("span", {}, "#" + number);
    return el("span", Object.assign({class: "domino", title: dominoText(number), role: "img", "aria-label": dominoText(number)}, attrs || {}),
      halves.map(h => el("span", {class: "half t-" + h.terrain, "aria-hidden": "true"}, crowns(el, h.crowns))),
      el("span", {class: "domino-no", "aria-hidden": "true"}, String(number)));
  }

  function kingdom(el, cells, targets, onCell) {
    const map = new Map([["0,0", {terrain: "c", crowns: 0}]]);
    for (const [x, y, terrain, n] of cells) map.set(x + "," + y, {terrain, crowns: n});
    const keys = [...map.keys(), ...targets.keys()].map(k => k.split(",").map(Number));
    const xs = keys.map(k => k[0]), ys = keys.map(k => k[1]);
    const x0 = Math.min(...xs), x1 = Math.max(...xs), y0 = Math.min(...ys), y1 = Math.max(...ys);
    const cols = x1 - x0 + 1;
    // the grid takes the box's width at most: wide kingdoms get smaller cells (and a
    // kingdom wider than WIDE columns a whole row of the board, see board())
    const grid = el("div", {class: "kingdom-grid", role: "group", "aria-label": "kingdom, " + cols + " columns wide"});
    grid.dataset.cols = String(cols);
    grid.style.setProperty("--cols", String(cols));
    for (let y = y0; y <= y1; y++) {
      for (let x = x0; x <= x1; x++) {
        const key = x + "," + y;
        const cell = map.get(key);
        const target = targets.get(key);
        const cls = "cell" + (cell ? " t-" + cell.terrain : "") + (target ? " can" : "");
        grid.append(el("span", {class: cls, dataset: {x, y},
          title: cell ? NAMES[cell.terrain] + (cell.crowns ? ", " + cell.crowns + " crown" + (cell.crowns > 1 ? "s" : "") : "") : null,
          role: target ? "button" : null, tabindex: target ? 0 : null,
          "aria-label": target ? "place here (" + x + ", " + y + ")" : null,
          onclick: target ? () => onCell(target) : null,
          onkeydown: target ? ev => { if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); onCell(target); } } : null},
        cell && cell.crowns ? crowns(el, cell.crowns) : (cell && cell.terrain === "c" ? el("i", {class: "castle", "aria-hidden": "true"}) : null)));
      }
    }
    return grid;
  }

  function board(ctx, interactive) {
    const {el} = Hub;
    const v = ctx.view || {};
    const names = (v.names || []).map((n, i) => n || ctx.names[i] || "seat " + i);
    if (!v.kingdoms) return [el("p", {class: "muted"}, "Waiting for four players.")];
    const taken = new Map((v.taken || []).map(([d, p]) => [d, p]));
    const legal = interactive ? ctx.legal : [];
    const choices = new Set(legal.filter(a => a.choose !== undefined).map(a => a.choose));
    const moves = legal.filter(a => a.move).map(a => a.move);
    const orientations = [...new Set(moves.map(m => m[2]))].sort((a, b) => a - b);
    if (!orientations.includes(orientation)) orientation = orientations.length ? orientations[0] : null;
    const over = v.state === "over";
    const draw = over ? null : el("div", {class: "draw-row", id: "draw"}, el("b", {}, "Draw"),
      (v.current || []).length ? null : el("span", {class: "small muted"}, "none left: the last dominoes are placed now"),
      (v.current || []).map(d => el("span", {class: "draw-item"},
        domino(el, d, choices.has(d) ? {class: "domino can", dataset: {choose: d}, onclick: () => ctx.act({choose: d}), role: "button", tabindex: 0,
          onkeydown: ev => { if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); ctx.act({choose: d}); } }} : {dataset: {domino: d}}),
        taken.has(d) ? el("span", {class: "small owner"}, names[taken.get(d)]) : null)));
    const toPlace = (v.previous || []).length && !over ? el("div", {class: "draw-row"}, el("b", {}, "To place"),
      v.previous.map(([d, p]) => el("span", {class: "draw-item"}, domino(el, d), el("span", {class: "small owner"}, names[p])))) : null;
    const kingdoms = el("div", {class: "kingdoms", id: "kingdoms"}, (v.kingdoms || []).map((cells, seat) => {
      const mine = interactive && seat === ctx.seat;
      const targets = new Map();
      if (mine && orientation !== null) {
        for (const m of moves) if (m[2] === orientation) targets.set(m[0] + "," + m[1], m);
      }
      const acting = seat === v.to_act && !over;
      const grid = kingdom(el, cells, targets, m => ctx.act({move: m}));
      const wide = Number(grid.dataset.cols) > WIDE;
      return el("div", {class: "kingdom" + (acting ? " to-act" : "") + (seat === ctx.seat ? " mine" : "") + (wide ? " wide" : ""), dataset: {seat}},
        el("div", {class: "kingdom-head"}, el("span", {class: "avatar seat-colour-" + seat, "aria-hidden": "true"}, (names[seat] || "?").slice(0, 1).toUpperCase()),
          el("b", {class: "kingdom-name"}, names[seat]),
          el("span", {class: "kd-points"}, el("span", {class: "kd-score", dataset: {seat}}, String((v.scores || [])[seat] ?? 0)),
            el("span", {class: "small muted"}, " pts"))),
        grid);
    }));
    return [el("p", {class: "small", id: "kd-status"}, over ? "The game is over: the final kingdoms" :
        "Round " + v.round + " · " + (v.phase === "move" ? "placing" : "picking") +
        (v.to_act !== null && v.to_act !== undefined ? " · " + names[v.to_act] + " to act" : "")),
      draw, toPlace, kingdoms];
  }

  function score(cells) {
    const map = new Map(cells.map(([x, y, t, c]) => [x + "," + y, {t, c}]));
    const seen = new Set();
    let total = 0;
    for (const [key, cell] of map) {
      if (seen.has(key)) continue;
      let size = 0, crownsIn = 0;
      const stack = [key];
      seen.add(key);
      while (stack.length) {
        const k = stack.pop();
        const c = map.get(k);
        size += 1; crownsIn += c.c;
        const [x, y] = k.split(",").map(Number);
        for (const [dx, dy] of Object.values(OFFSETS)) {
          const n = (x + dx) + "," + (y + dy);
          const other = map.get(n);
          if (other && other.t === cell.t && !seen.has(n)) { seen.add(n); stack.push(n); }
        }
      }
      total += size * (1 + crownsIn);
    }
    return total;
  }

  window.GameRenderers.kingdomino = {
    board(ctx) { return board(ctx, true); },
    replayBoard(ctx) { return board(ctx, false); },
    actions(ctx) {
      const {el} = Hub;
      const v = ctx.view || {};
      if (!ctx.legal.length) return [el("span", {class: "muted"}, "Not your turn.")];
      if (ctx.legal[0].choose !== undefined) return [el("span", {id: "kd-hint"}, "Click a domino of the draw to pick it.")];
      const moves = ctx.legal.filter(a => a.move).map(a => a.move);
      const orientations = [...new Set(moves.map(m => m[2]))].sort((a, b) => a - b);
      return [el("span", {id: "kd-hint"}, "Place ", v.pending ? domino(el, v.pending) : "your domino",
        ": choose where its second half goes, then click the cell of its first half."),
        el("div", {class: "row", role: "group", "aria-label": "direction of the second half"}, orientations.map(o => el("button", {
          class: o === orientation ? "" : "secondary", dataset: {orientation: o}, "aria-pressed": o === orientation ? "true" : "false",
          onclick: () => { orientation = o; GamePage.render(); }},
          {0: "→ right", 90: "↓ down", 180: "← left", 270: "↑ up"}[o])))];
    },
    turnText(turn) { return turn.phase === "choose" ? "pick a domino" : "place a domino"; },
    describe(event, names) {
      const d = event.data || {};
      const who = names[d.seat] || "seat " + d.seat;
      switch (event.kind) {
        case "start": return "The game starts. Order: " + (d.order || []).map(s => (d.names || names)[s] || "seat " + s).join(", ") +
          "; the first draw: " + (d.dominoes || []).join(", ");
        case "turn": return who + (d.phase === "choose" ? " to pick a domino" : " to place a domino");
        case "chosen": return who + " picks " + dominoText(d.domino);
        case "placed": return who + " places domino " + d.domino + " at (" + d.move[0] + ", " + d.move[1] + "), second half " + DIRECTIONS[d.move[2]];
        case "round": return (d.dominoes || []).length ? "Round " + d.round + ": the new draw is " + d.dominoes.join(", ") : "The last dominoes are placed now";
        case "removed": return who + " is out of the game (" + (d.reason === "timeout" ? "no answer in time" : "left") + ")";
        default: return null;
      }
    },
    replay: {
      apply(view, event) {
        const d = event.data || {};
        const v = Object.assign({}, view);
        switch (event.kind) {
          case "start":
            Object.assign(v, {kingdoms: [[], [], [], []], current: d.dominoes || [], taken: [], previous: [],
              round: 1, phase: "choose", names: d.names || view.names, scores: [0, 0, 0, 0], to_act: (d.order || [])[0]});
            break;
          case "turn": v.to_act = d.seat; v.phase = d.phase; break;
          case "chosen": v.taken = (view.taken || []).concat([[d.domino, d.seat]]); break;
          case "placed": {
            const [x, y, o] = d.move;
            const [dx, dy] = OFFSETS[o];
            const halves = DOMINOES[d.domino];
            v.kingdoms = view.kingdoms.map((cells, seat) => seat !== d.seat ? cells :
              cells.concat([[x, y, halves[0].terrain, halves[0].crowns], [x + dx, y + dy, halves[1].terrain, halves[1].crowns]]));
            v.previous = (view.previous || []).filter(([n]) => n !== d.domino);
            v.scores = v.kingdoms.map(score);
            break;
          }
          case "round": v.previous = (view.taken || []).slice().sort((a, b) => a[0] - b[0]); v.current = d.dominoes || []; v.taken = []; v.round = d.round; break;
          case "over": v.state = "over"; v.scores = (d.result && d.result.scores) || v.scores; break;
        }
        return v;
      },
    },
  };
  window.KingDomino = {DOMINOES, OFFSETS, score};
})();
