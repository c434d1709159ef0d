// History: finished games, newest first; a game's transcript step by step.
"use strict";
(() => {
  const {el, clear} = Hub;
  const $ = id => document.getElementById(id);

  async function load() {
    const q = new URLSearchParams();
    if ($("f-type").value) q.set("type", $("f-type").value);
    if ($("f-player").value.trim()) q.set("player", $("f-player").value.trim());
    q.set("limit", "200");
    let games = [];
    try { games = await Hub.request("GET", "/api/history?" + q); } catch (e) { Hub.error(e); }
    clear($("history").tBodies[0], games.map(g => el("tr", {dataset: {id: g.game_id}, onclick: () => replay(g)},
      el("td", {class: "small"}, Hub.time(g.finished)), el("td", {}, g.type), el("td", {}, g.name),
      el("td", {}, g.players.map(p => (p.winner ? "★ " : "") + p.name + (p.score !== null ? " (" + p.score + ")" : "")).join(", ")),
      el("td", {}, g.summary || ""))));
    $("none").hidden = games.length > 0;
  }

  async function replay(g) {
    const box = $("replay");
    box.hidden = false;
    let text = "";
    try { text = await (await fetch("/api/games/" + g.game_id + "/transcript")).text(); }
    catch (e) { Hub.error(e); return; }
    const lines = text.split("\n").filter(Boolean);
    let step = 0;
    const shown = el("div", {class: "log", id: "replay-log"});
    const counter = el("span", {class: "small"});
    function show() {
      clear(shown, lines.slice(0, step + 1).map((l, i) => el("div", {class: i === step ? "seat-me" : ""}, l)));
      shown.scrollTop = shown.scrollHeight;
      counter.textContent = "step " + (step + 1) + " of " + lines.length;
    }
    const verify = g.result && (g.result.commitment || g.result.shuffle) ? el("p", {class: "small"},
      "Shuffle commitment: ", el("code", {}, JSON.stringify(g.result.commitment || g.result.shuffle))) : null;
    clear(box, el("h2", {}, "Replay: " + g.name + " (" + g.game_id + ")"),
      el("p", {class: "small"}, g.summary || ""), verify,
      el("div", {class: "row"},
        el("button", {class: "secondary", onclick: () => { step = 0; show(); }}, "⏮"),
        el("button", {class: "secondary", id: "replay-prev", onclick: () => { step = Math.max(0, step - 1); show(); }}, "◀ back"),
        el("button", {id: "replay-next", onclick: () => { step = Math.min(lines.length - 1, step + 1); show(); }}, "step ▶"),
        el("button", {class: "secondary", onclick: () => { step = lines.length - 1; show(); }}, "⏭"), counter),
      shown, el("a", {href: "/api/games/" + g.game_id + "/transcript"}, "whole transcript"));
    show();
    box.scrollIntoView();
  }

  document.addEventListener("DOMContentLoaded", async () => {
    Hub.nav("/history");
    try {
      const types = (await Hub.request("GET", "/api/types")).types;
      Hub.append($("f-type"), types.map(t => Hub.el("option", {value: t.name}, t.name)));
    } catch (e) { Hub.error(e); }
    $("filter").addEventListener("submit", ev => { ev.preventDefault(); load(); });
    load();
  });
})();
