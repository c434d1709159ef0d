// King Domino: the current draw (pick a domino), the dominoes to place, every
// kingdom as a grid. To place: choose an orientation, then click the cell of the
// first half in your kingdom (cells where it fits are outlined).
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
  let orientation = null;

  function halfNode(el, half, extra) {
    return el("span", {class: "half t-" + half.terrain + (extra || ""), title: NAMES[half.terrain]},
      half.crowns ? "♛".repeat(half.crowns) : "");
  }

  function domino(el, number, attrs) {
    const halves = DOMINOES[number];
    if (!halves) return el("span", {}, "#" + number);
    return el("span", Object.assign({class: "domino", title: "domino " + number}, attrs || {}),
      halfNode(el, halves[0]), halfNode(el, halves[1]),
      el("span", {class: "domino-no"}, String(number)));
  }

  function kingdom(el, cells, targets, onCell, preview) {
    const map = new Map([["0,0", {terrain: "c", crowns: 0}]]);
    for (const [x, y, terrain, crowns] of cells) map.set(x + "," + y, {terrain, crowns});
    const keys = [...map.keys(), ...targets.keys()].map(k => k.split(",").map(Number));
    const xs = keys.map(k => k[0]), ys = keys.map(k => k[1]);
    const x0 = Math.min(...xs), x1 = Math.max(...xs), y0 = Math.min(...ys), y1 = Math.max(...ys);
    const grid = el("div", {class: "kingdom-grid"});
    grid.style.gridTemplateColumns = `repeat(${x1 - x0 + 1}, 1.45rem)`;
    for (let y = y0; y <= y1; y++) {
      for (let x = x0; x <= x1; x++) {
        const key = x + "," + y;
        const cell = map.get(key);
        const target = targets.get(key);
        const cls = "cell" + (cell ? " t-" + cell.terrain : "") + (target ? " can" : "") +
          (preview && preview.has(key) ? " preview" : "");
        grid.append(el("span", {class: cls, dataset: {x, y}, title: cell ? NAMES[cell.terrain] : key,
          onclick: target ? () => onCell(target) : null},
          cell && cell.crowns ? "♛".repeat(cell.crowns) : (cell && cell.terrain === "c" ? "♜" : "")));
      }
    }
    return grid;
  }

  window.GameRenderers.kingdomino = {
    board(ctx) {
      const {el} = Hub;
      const v = ctx.view || {};
      const names = v.names || ctx.names;
      if (!v.kingdoms) return [el("p", {class: "muted"}, "Waiting for four players.")];
      const taken = new Map((v.taken || []).map(([d, p]) => [d, p]));
      const choices = new Set(ctx.legal.filter(a => a.choose !== undefined).map(a => a.choose));
      const moves = ctx.legal.filter(a => a.move).map(a => a.move);
      const orientations = [...new Set(moves.map(m => m[2]))].sort((a, b) => a - b);
      if (!orientations.includes(orientation)) orientation = orientations.length ? orientations[0] : null;
      const draw = el("div", {class: "draw-row", id: "draw"}, el("b", {}, "Draw: "),
        (v.current || []).map(d => el("span", {class: "draw-item"},
          domino(el, d, choices.has(d) ? {class: "domino can", dataset: {choose: d}, onclick: () => ctx.act({choose: d}), role: "button"} : {dataset: {domino: d}}),
          taken.has(d) ? el("span", {class: "small"}, " " + names[taken.get(d)]) : null)));
      const toPlace = (v.previous || []).length ? el("div", {class: "draw-row"}, el("b", {}, "To place: "),
        v.previous.map(([d, p]) => el("span", {class: "draw-item"}, domino(el, d), el("span", {class: "small"}, " " + names[p])))) : null;
      const kingdoms = el("div", {class: "kingdoms", id: "kingdoms"}, (v.kingdoms || []).map((cells, seat) => {
        const mine = seat === ctx.seat;
        const targets = new Map();
        if (mine && orientation !== null) {
          for (const m of moves) if (m[2] === orientation) targets.set(m[0] + "," + m[1], m);
        }
        return el("div", {class: "panel kingdom" + (seat === v.to_act ? " to-act" : ""), dataset: {seat}},
          el("div", {}, seat === v.to_act && v.state !== "over" ? el("span", {class: "turn-mark"}, "▶ ") : "",
            el("b", {}, names[seat] || "seat " + seat), " · ",
            el("span", {class: "kd-score", dataset: {seat}}, String((v.scores || [])[seat] ?? 0)), " points"),
          kingdom(el, cells, targets, m => ctx.act({move: m})));
      }));
      return [el("p", {class: "small"}, "Round " + v.round + " · phase " + v.phase +
        (v.to_act !== null && v.to_act !== undefined ? " · to act: " + (names[v.to_act] || v.to_act) : "")),
        draw, toPlace, kingdoms];
    },
    actions(ctx) {
      const {el} = Hub;
      const v = ctx.view || {};
      if (!ctx.legal.length) return [el("span", {class: "muted"}, "Not your turn.")];
      if (ctx.legal[0].choose !== undefined) return [el("span", {id: "kd-hint"}, "Click a domino of the draw to pick it.")];
      const moves = ctx.legal.filter(a => a.move).map(a => a.move);
      const orientations = [...new Set(moves.map(m => m[2]))].sort((a, b) => a - b);
      const pending = v.pending;
      return [el("span", {id: "kd-hint"}, "Place ", pending ? domino(el, pending) : "your domino",
        ": choose the direction of its second half, then click the cell of its first half."),
        el("div", {class: "row"}, orientations.map(o => el("button", {
          class: o === orientation ? "" : "secondary", dataset: {orientation: o},
          onclick: () => { orientation = o; GamePage.render(); }},
          {0: "→ right", 90: "↓ down", 180: "← left", 270: "↑ up"}[o])))];
    },
  };
  window.KingDomino = {DOMINOES, OFFSETS};
})();
