// Ratings: one game type's leaderboard and its best players' ratings over time (inline SVG).
"use strict";
(() => {
  const {el, clear} = Hub;
  const $ = id => document.getElementById(id);
  const COLOURS = ["#1f6f50", "#c0392b", "#2c6fbb", "#b8860b", "#8e44ad", "#16a085", "#d35400", "#555"];
  const round = x => (Math.round(x * 10) / 10).toFixed(1);

  // The pool in the address: /ratings/<type>?variant=<key>.
  function poolOfAddress() {
    const parts = location.pathname.split("/").filter(Boolean);
    const variant = new URLSearchParams(location.search).get("variant") || "";
    return parts.length > 1 ? {type: decodeURIComponent(parts[1]), variant} : null;
  }
  const poolKey = p => p.type + "\n" + p.variant;
  const poolLabel = p => p.variant ? `${p.type} (${p.variant})` : p.type;
  const query = p => p.variant ? "?variant=" + encodeURIComponent(p.variant) : "";

  // Drawn at the width of its box (1 unit = 1 CSS pixel); drawn again when it changes.
  function plot(series) {
    const W = Math.max(260, Math.round($("plot").clientWidth || 640)), H = W < 500 ? 220 : 260;
    const L = 44, B = 26, T = 12, R = 12;
    const points = series.flatMap(s => s.points);
    if (!points.length) return [el("p", {class: "muted", id: "no-plot"}, "No rated games yet."), []];
    const xs = points.map(p => p[0]), ys = points.map(p => p[1]);
    let x0 = Math.min(...xs), x1 = Math.max(...xs); if (x1 === x0) x1 = x0 + 1;
    let y0 = Math.min(...ys), y1 = Math.max(...ys); if (y1 === y0) { y0 -= 1; y1 += 1; }
    const sx = x => L + (x - x0) / (x1 - x0) * (W - L - R), sy = y => H - B - (y - y0) / (y1 - y0) * (H - B - T);
    const svg = el("svg", {class: "plot", id: "rating-svg", viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": "ratings over time"},
      el("line", {class: "axis", x1: L, y1: H - B, x2: W - R, y2: H - B}),
      el("line", {class: "axis", x1: L, y1: T, x2: L, y2: H - B}),
      el("text", {x: 2, y: sy(y1) + 4}, round(y1)),
      el("text", {x: 2, y: sy(y0) + 4}, round(y0)),
      el("text", {x: L, y: H - 6}, new Date(x0 * 1000).toLocaleString()),
      el("text", {x: W - R, y: H - 6, "text-anchor": "end"}, new Date(x1 * 1000).toLocaleString()));
    series.forEach((s, i) => {
      const c = COLOURS[i % COLOURS.length];
      const pts = s.points.map(p => sx(p[0]).toFixed(1) + "," + sy(p[1]).toFixed(1));
      svg.append(el("polyline", {points: pts.join(" "), fill: "none", stroke: c, "stroke-width": 2, dataset: {player: s.name}},
        el("title", {}, s.name)));
      for (const p of s.points) svg.append(el("circle", {cx: sx(p[0]), cy: sy(p[1]), r: 2.5, fill: c}));
    });
    const legend = series.map((s, i) => {
      const sw = el("span", {class: "swatch"}); sw.style.background = COLOURS[i % COLOURS.length];
      return el("span", {}, sw, s.name);
    });
    return [svg, legend];
  }

  let series = [], drawnWidth = 0;
  function draw() {
    drawnWidth = $("plot").clientWidth;
    const [svg, legend] = plot(series);
    clear($("plot"), svg);
    clear($("legend"), legend);
  }
  window.addEventListener("resize", () => { if ($("plot").clientWidth !== drawnWidth) draw(); });

  async function load(pool) {
    $("title").textContent = pool ? "Ratings · " + poolLabel(pool) : "Ratings";
    let board = {players: []}, history = {series: []};
    if (pool) {
      const base = "/api/ratings/" + encodeURIComponent(pool.type);
      try {
        [board, history] = await Promise.all([Hub.request("GET", base + query(pool)),
          Hub.request("GET", base + "/history" + query(pool))]);
      } catch (e) { Hub.error(e); }
    }
    series = history.series;
    draw();
    $("none").hidden = board.players.length > 0;
    clear(document.querySelector("#board tbody"), board.players.map(r => el("tr", {},
      el("td", {dataset: {label: "#"}}, r.place), el("td", {dataset: {label: "Player"}}, r.name),
      el("td", {dataset: {label: "Kind"}}, r.kind), el("td", {dataset: {label: "Rating μ"}}, round(r.mu)),
      el("td", {dataset: {label: "Interval"}}, `${round(r.low)} – ${round(r.high)}`),
      el("td", {dataset: {label: "Games"}}, r.games))));
  }

  document.addEventListener("DOMContentLoaded", async () => {
    await Hub.nav("/ratings");
    let pools = [];
    try { pools = (await Hub.request("GET", "/api/ratings")).pools; } catch (e) { Hub.error(e); }
    const wanted = poolOfAddress();
    if (wanted && !pools.some(p => poolKey(p) === poolKey(wanted))) pools.unshift({...wanted, players: 0});
    Hub.append($("f-pool"), pools.map(p => el("option", {value: poolKey(p)}, poolLabel(p))));
    const current = wanted || pools[0] || null;
    if (current) $("f-pool").value = poolKey(current);
    $("filter").addEventListener("submit", ev => {
      ev.preventDefault();
      const [type, variant] = $("f-pool").value.split("\n");
      if (type) location.assign("/ratings/" + encodeURIComponent(type) + query({type, variant}));
    });
    load(current);
  });
})();
