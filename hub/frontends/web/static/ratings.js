// Ratings: one game type's leaderboard and its best players' ratings over time (inline SVG).
"use strict";
(() => {
  const {el, clear} = Hub;
  const $ = id => document.getElementById(id);
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

  // μ of each of the best players after each of their rated games.
  const plot = lines => Hub.linePlot($("plot"), lines.map(s => ({name: s.name, points: s.points.map(p => [p[0], p[1]])})),
    {id: "rating-svg", label: "ratings over time", empty: "No rated games yet.", when: t => new Date(t * 1000).toLocaleString()});

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
