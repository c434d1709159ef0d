// Statistics: cumulative score per player over time (inline SVG), leaderboard.
"use strict";
(() => {
  const {el, clear} = Hub;
  const $ = id => document.getElementById(id);

  // Each player's cumulative score after each finished game.
  const plot = series => Hub.linePlot($("plot"), Object.keys(series).map(name => ({name, points: series[name]})),
    {id: "plot-svg", label: "results over time", empty: "No finished games yet.", zero: true});

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
    clear($("legend"), legend);
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
