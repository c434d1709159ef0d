// Statistics: cumulative score per player over time (inline SVG), leaderboard.
"use strict";
(() => {
  const {el, clear} = Hub;
  const $ = id => document.getElementById(id);
  const COLOURS = ["#1f6f50", "#c0392b", "#2c6fbb", "#b8860b", "#8e44ad", "#16a085", "#d35400", "#555"];

  // Drawn at the width of its box (1 unit = 1 CSS pixel), so the text stays readable on
  // a phone; drawn again when the width changes.
  function plot(series) {
    const names = Object.keys(series);
    const W = Math.max(260, Math.round($("plot").clientWidth || 640)), H = W < 500 ? 220 : 260;
    const L = 44, B = 26, T = 12, R = 12;
    const points = names.flatMap(n => series[n]);
    if (!points.length) return [el("p", {class: "muted", id: "no-stats"}, "No finished games yet.")];
    const xs = points.map(p => p[0]), ys = points.map(p => p[1]).concat([0]);
    let x0 = Math.min(...xs), x1 = Math.max(...xs); if (x1 === x0) x1 = x0 + 1;
    let y0 = Math.min(...ys), y1 = Math.max(...ys); if (y1 === y0) y1 = y0 + 1;
    const sx = x => L + (x - x0) / (x1 - x0) * (W - L - R), sy = y => H - B - (y - y0) / (y1 - y0) * (H - B - T);
    const svg = el("svg", {class: "plot", id: "plot-svg", viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": "results over time"},
      el("line", {class: "axis", x1: L, y1: H - B, x2: W - R, y2: H - B}),
      el("line", {class: "axis", x1: L, y1: T, x2: L, y2: H - B}),
      el("text", {x: 2, y: sy(y1) + 4}, String(Math.round(y1 * 10) / 10)),
      el("text", {x: 2, y: sy(y0) + 4}, String(Math.round(y0 * 10) / 10)),
      el("text", {x: L, y: H - 6}, new Date(x0 * 1000).toLocaleTimeString()),
      el("text", {x: W - R, y: H - 6, "text-anchor": "end"}, new Date(x1 * 1000).toLocaleTimeString()));
    names.forEach((n, i) => {
      const c = COLOURS[i % COLOURS.length];
      const pts = series[n].map(p => sx(p[0]).toFixed(1) + "," + sy(p[1]).toFixed(1));
      svg.append(el("polyline", {points: pts.join(" "), fill: "none", stroke: c, "stroke-width": 2, dataset: {player: n}},
        el("title", {}, n)));
      for (const p of series[n]) svg.append(el("circle", {cx: sx(p[0]), cy: sy(p[1]), r: 2.5, fill: c}));
    });
    const legend = names.map((n, i) => { const s = el("span", {class: "swatch"}); s.style.background = COLOURS[i % COLOURS.length]; return el("span", {}, s, n); });
    return [svg, legend];
  }

  async function load() {
    const q = $("f-type").value ? "?type=" + encodeURIComponent($("f-type").value) : "";
    let stats = {leaderboard: [], series: {}};
    try { stats = await Hub.request("GET", "/api/stats" + q); } catch (e) { Hub.error(e); }
    last = stats;
    draw();
    clear(document.querySelector("#leaders tbody"), stats.leaderboard.map((r, i) => el("tr", {},
      el("td", {dataset: {label: "#"}}, i + 1), el("td", {dataset: {label: "Player"}}, r.name),
      el("td", {dataset: {label: "Kind"}}, r.kind || ""), el("td", {dataset: {label: "Games"}}, r.games),
      el("td", {dataset: {label: "Wins"}}, r.wins), el("td", {dataset: {label: "Win rate"}}, Math.round(r.win_rate * 100) + "%"),
      el("td", {dataset: {label: "Score"}}, Math.round(r.score * 100) / 100))));
  }

  let last = null, drawnWidth = 0;
  function draw() {
    if (!last) return;
    drawnWidth = $("plot").clientWidth;
    const [svg, legend] = plot(last.series);
    clear($("plot"), svg);
    clear($("legend"), legend || []);
  }
  window.addEventListener("resize", () => { if ($("plot").clientWidth !== drawnWidth) draw(); });

  document.addEventListener("DOMContentLoaded", async () => {
    await Hub.nav("/stats");
    try {
      const types = (await Hub.request("GET", "/api/types")).types;
      Hub.append($("f-type"), types.map(t => el("option", {value: t.name}, t.name)));
    } catch (e) { Hub.error(e); }
    $("filter").addEventListener("submit", ev => { ev.preventDefault(); load(); });
    load();
  });
})();
