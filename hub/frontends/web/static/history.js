// History: finished games, newest first; a game's replay on its board, step by step;
// the panels the games bring (their own words: hands, shuffles...).
"use strict";
(() => {
  const {el, clear} = Hub;
  const $ = id => document.getElementById(id);
  const SPEEDS = [0.5, 1, 2, 4, 8];
  //: kinds that are not steps of their own (they still change the board)
  const QUIET = new Set(["turn", "state", "seat_open"]);
  let player = null;

  async function load() {
    const q = new URLSearchParams();
    if ($("f-type").value) q.set("type", $("f-type").value);
    if ($("f-player").value.trim()) q.set("player", $("f-player").value.trim());
    q.set("limit", "200");
    let games = [];
    try { games = await Hub.request("GET", "/api/history?" + q); } catch (e) { Hub.error(e); }
    clear($("history").tBodies[0], games.map(g => el("tr", {dataset: {id: g.game_id}, tabindex: 0,
        onclick: () => replay(g.game_id), onkeydown: ev => { if (ev.key === "Enter") replay(g.game_id); }},
      el("td", {class: "small", dataset: {label: "Finished"}}, Hub.time(g.finished)),
      el("td", {dataset: {label: "Type"}}, g.type), el("td", {dataset: {label: "Name"}}, g.name),
      el("td", {dataset: {label: "Players"}}, g.players.map(p => (p.winner ? "★ " : "") + p.name + (p.score !== null ? " (" + p.score + ")" : "")).join(", ")),
      el("td", {dataset: {label: "Result"}}, g.summary || ""))));
    $("none").hidden = games.length > 0;
  }

  // The replay player: the board as it was after each step, the events in words.
  async function replay(gameId) {
    const box = $("replay");
    box.hidden = false;
    if (player) player.stop();
    let data;
    try { data = await Hub.request("GET", "/api/games/" + encodeURIComponent(gameId) + "/replay"); }
    catch (e) { Hub.error(e, box); return; }
    const game = data.game;
    await GameScripts.load(game.type, data.script, data.styles || null);
    const r = window.GameRenderers[game.type] || {};
    const names = game.seats.map(s => s.player || "seat " + s.seat);
    const apply = r.replay && r.replay.apply;
    // steps: the start, then one per event that says something (quiet ones fold in)
    const steps = [{view: data.start, index: -1}];
    let view = data.start;
    data.events.forEach((event, i) => {
      if (apply) { try { view = apply(view, event, names); } catch (e) { /* the words still tell */ } }
      if (!QUIET.has(event.kind)) steps.push({view, index: i});
      else steps[steps.length - 1].view = view;
    });
    const words = event => GameScripts.describe(game.type, event, names);
    let at = 0, timer = null, speed = 1;
    const boardBox = el("div", {class: "replay-board", id: "replay-board"});
    const log = el("ol", {class: "log replay-log", id: "replay-log", tabindex: 0, "aria-label": "what happened"});
    const counter = el("span", {class: "small", id: "replay-counter"});
    const slider = el("input", {type: "range", min: 0, max: steps.length - 1, value: 0, id: "replay-slider",
      "aria-label": "step", oninput: () => { stop(); show(Number(slider.value)); }});
    const playButton = el("button", {id: "replay-play", onclick: () => timer ? stop() : play()}, "▶ play");
    const speedSelect = el("select", {id: "replay-speed", "aria-label": "speed",
      onchange: () => { speed = Number(speedSelect.value); if (timer) { stop(); play(); } }},
      SPEEDS.map(x => el("option", {value: x, selected: x === 1}, x + "×")));
    function show(n) {
      at = Math.max(0, Math.min(steps.length - 1, n));
      const step = steps[at];
      const ctx = {game, view: step.view, seat: null, legal: [], turn: null, myTurn: false,
        act: () => false, el, clear, names, clock: () => null};
      const draw = r.replayBoard || (apply ? r.board : null);
      try { clear(boardBox, draw ? draw(ctx) : el("p", {class: "muted"}, "This game draws no board for replays: the events tell what happened.")); }
      catch (e) { clear(boardBox, el("p", {class: "muted"}, "cannot draw this step: " + e.message)); }
      const shown = steps.slice(1, at + 1).map(s => data.events[s.index]);
      clear(log, shown.map((e, i) => el("li", {class: i === shown.length - 1 ? "current" : ""}, words(e))));
      log.scrollTop = log.scrollHeight;
      counter.textContent = "step " + at + " of " + (steps.length - 1) + (starts.length > 1
        ? " · " + chapter.word + " " + starts.filter(n => n <= at).length + " of " + starts.length : "");
      slider.value = String(at);
    }
    // chapters (a game's own word, as poker's hands): the steps where one starts
    const chapter = r.replay && r.replay.chapter;
    const starts = chapter ? steps.map((s, n) => n).filter(n => n > 0 && chapter.starts(data.events[steps[n].index])) : [];
    const jump = delta => {
      stop();
      if (delta > 0) show(starts.find(n => n > at) ?? steps.length - 1);
      else show([...starts].reverse().find(n => n < at) ?? 0);
    };
    const chapters = starts.length > 1 ? [
      el("button", {class: "secondary", id: "replay-prev-chapter", onclick: () => jump(-1)}, "⏮ previous " + chapter.word),
      el("button", {class: "secondary", id: "replay-next-chapter", onclick: () => jump(1)}, "next " + chapter.word + " ⏭"),
    ] : [];
    function play() {
      if (at >= steps.length - 1) show(0);
      playButton.textContent = "❚❚ pause";
      timer = setInterval(() => { show(at + 1); if (at >= steps.length - 1) stop(); }, 1000 / speed);
    }
    function stop() { if (timer) clearInterval(timer); timer = null; playButton.textContent = "▶ play"; }
    player = {stop};
    const result = game.result;
    clear(box, el("h2", {}, "Replay: " + game.name),
      el("p", {class: "small"}, game.type + (game.variant ? " · " + game.variant : "") + " · " + names.join(", ") +
        (result && result.summary ? " · " + result.summary : "") + (data.complete ? "" : " · (only the last events were kept)")),
      el("div", {class: "row replay-controls"},
        el("button", {class: "secondary", id: "replay-first", onclick: () => { stop(); show(0); }, "aria-label": "first step"}, "«"),
        el("button", {class: "secondary", id: "replay-prev", onclick: () => { stop(); show(at - 1); }, "aria-label": "back"}, "◀ back"),
        playButton,
        el("button", {class: "secondary", id: "replay-next", onclick: () => { stop(); show(at + 1); }, "aria-label": "step"}, "step ▶"),
        el("button", {class: "secondary", id: "replay-last", onclick: () => { stop(); show(steps.length - 1); }, "aria-label": "last step"}, "»"),
        ...chapters, el("label", {class: "inline"}, "speed ", speedSelect), counter),
      slider,
      el("div", {class: "replay-layout"}, boardBox, log));
    show(0);
    box.scrollIntoView({block: "start"});
  }

  document.addEventListener("DOMContentLoaded", async () => {
    await Hub.nav("/history");
    try {
      const types = await GameScripts.typeInfo();
      Hub.append($("f-type"), types.map(t => Hub.el("option", {value: t.name}, t.name)));
    } catch (e) { Hub.error(e); }
    $("filter").addEventListener("submit", ev => { ev.preventDefault(); load(); });
    await load();
    const wanted = new URLSearchParams(location.search).get("game");
    if (wanted) replay(wanted);
    await panels();
  });

  // The games' own panels (their web view's IWebAssets.history script registers
  // HistoryPanels[key] = {title, draw(box)}); each drawn once, in its own section.
  async function panels() {
    window.HistoryPanels = window.HistoryPanels || {};
    const types = await GameScripts.typeInfo();
    const urls = [...new Set(types.map(t => t.history).filter(Boolean))];
    await Promise.all(urls.map(url => new Promise(resolve => {
      const tag = el("script", {src: url});
      tag.addEventListener("load", resolve);
      tag.addEventListener("error", () => { Hub.error("a game's history panel did not load"); resolve(); });
      document.head.append(tag);
    })));
    for (const [key, panel] of Object.entries(window.HistoryPanels)) {
      const box = el("section", {class: "panel", id: "panel-" + key, "aria-label": panel.title}, el("h2", {}, panel.title));
      $("game-panels").append(box);
      try { await panel.draw(box); } catch (e) { Hub.error(e, box); }
    }
  }
})();

