// The game page: watch live, take a seat, play with only legal actions offered.
// Per-game scripts register a renderer: GameRenderers[type] = {board(ctx), actions(ctx)}.
"use strict";

window.GameRenderers = window.GameRenderers || {};

const GamePage = (() => {
  const {el, clear} = Hub;
  const $ = id => document.getElementById(id);
  const gameId = decodeURIComponent(location.pathname.split("/").filter(Boolean)[1] || "");
  const state = {game: null, view: null, seat: null, legal: [], turn: null, log: [], types: null, gone: false};
  let live = null, turnTimer = null;

  function renderer() {
    return (state.game && window.GameRenderers[state.game.type]) || GenericRenderer;
  }

  // A game plugin may bring its own page script (IWebView.script): load it once.
  const loading = {};
  async function loadPluginScript(type) {
    if (window.GameRenderers[type] || loading[type]) return;
    loading[type] = true;
    let types = state.types;
    if (!types) {
      try { types = state.types = (await Hub.request("GET", "/api/types")).types; } catch (e) { return; }
    }
    const t = types.find(x => x.name === type);
    if (!t || !t.script) return;
    const tag = document.createElement("script");
    tag.src = t.script;
    tag.addEventListener("load", () => render());
    tag.addEventListener("error", () => Hub.error("the page script of " + type + " did not load"));
    document.head.append(tag);
  }

  // What a renderer gets: the state plus a way to act.
  function context() {
    return {game: state.game, view: state.view, seat: state.seat, legal: state.legal,
      turn: state.turn, myTurn: state.legal.length > 0, act, el, clear, names: seatNames()};
  }

  function seatNames() {
    return state.game ? state.game.seats.map(s => s.player || "seat " + s.seat) : [];
  }

  async function act(action) {
    // Offer nothing until the stream tells what comes next (its events may arrive
    // before this request's answer).
    const before = state.legal;
    state.legal = [];
    render();
    try {
      await Hub.write("POST", "/api/games/" + gameId + "/actions", {action});
      return true;
    } catch (e) {
      if (!state.legal.length) { state.legal = before; render(); }
      Hub.error(e);
      return false;
    }
  }

  async function takeSeat(seat) {
    try {
      const answer = await Hub.write("POST", "/api/games/" + gameId + "/seats", {seat});
      await Hub.getSession(true);
      Hub.ok("You sit at seat " + answer.seat);
      live.reopen();
    } catch (e) { Hub.error(e); }
  }

  async function leave() {
    state.leaving = true;
    try {
      await Hub.write("POST", "/api/games/" + gameId + "/leave", {});
      await Hub.getSession(true);
      Hub.ok("You left the game");
      live.reopen();
    } catch (e) { state.leaving = false; Hub.error(e); }
  }

  async function giveBot(seat, bot) {
    try {
      const answer = await Hub.write("POST", "/api/games/" + gameId + "/bots", {seat, bot});
      Hub.ok("Seat " + seat + " is played by " + answer.player);
    } catch (e) { Hub.error(e); }
  }

  async function botsFor(type) {
    if (!state.types) {
      try { state.types = (await Hub.request("GET", "/api/types")).types; }
      catch (e) { state.types = []; }
    }
    const t = state.types.find(x => x.name === type);
    return t ? t.bots : [];
  }

  function renderSeats() {
    const g = state.game;
    const over = g.state === "over";
    const toMove = state.turn ? state.turn.seat : null;
    botsFor(g.type).then(bots => {
      clear($("seats"), g.seats.map(s => {
        const free = !s.player && !over && (s.kind === "open" || s.kind === "human");
        const botSelect = free && bots.length ? el("select", {"aria-label": "bot for seat " + s.seat},
          bots.map(b => el("option", {value: b}, b))) : null;
        return el("li", {class: s.seat === state.seat ? "seat-me" : "", dataset: {seat: s.seat}},
          s.seat === toMove && !over ? el("span", {class: "turn-mark"}, "▶ ") : "",
          "Seat " + s.seat + ": ", s.player ? s.player : el("i", {class: "muted"}, "free"),
          " (" + s.kind + (s.present === false ? ", left" : "") + ")",
          s.seat === state.seat ? " — you" : "",
          free && state.seat === null ? el("div", {class: "row"},
            el("button", {class: "take-seat", dataset: {seat: s.seat}, onclick: () => takeSeat(s.seat)}, "Take this seat")) : null,
          botSelect ? el("div", {class: "row"}, botSelect,
            el("button", {class: "secondary give-bot", onclick: () => giveBot(s.seat, botSelect.value)}, "Give to bot")) : null,
          s.seat === state.seat && !over ? el("div", {class: "row"},
            el("button", {class: "secondary", id: "leave", onclick: leave}, "Leave")) : null);
      }));
    });
  }

  function renderTurn() {
    const g = state.game;
    if (turnTimer) { clearInterval(turnTimer); turnTimer = null; }
    if (g.state === "over") { clear($("turn"), "Game over."); return; }
    if (g.paused) { clear($("turn"), el("span", {id: "paused"}, "paused: " + g.paused)); return; }
    if (g.state === "waiting") { clear($("turn"), "Waiting for players to take the free seats."); return; }
    const t = state.turn;
    if (!t) { clear($("turn"), "Running."); return; }
    const who = t.seat === state.seat ? "Your turn" : "Turn: " + (seatNames()[t.seat] || "seat " + t.seat);
    const started = Date.now();
    const tick = () => {
      let text = who;
      if (typeof t.timeleft_ms === "number") {
        const left = Math.max(0, t.timeleft_ms - (Date.now() - started));
        text += " · " + Math.ceil(left / 1000) + " s left";
      }
      clear($("turn"), el("span", {class: t.seat === state.seat ? "turn-mark" : ""}, text));
    };
    tick();
    if (typeof t.timeleft_ms === "number") turnTimer = setInterval(tick, 500);
  }

  function renderResult() {
    const g = state.game, box = $("result");
    const result = g.result || (state.view && state.view.result);
    if (g.state !== "over" || !result) { box.hidden = true; return; }
    box.hidden = false;
    const scores = result.scores || [];
    clear(box, el("div", {id: "result-summary"}, "Result: " + (result.summary || "game over")),
      scores.length ? el("table", {id: "result-scores", class: "small"},
        el("tbody", {}, g.seats.map(s => el("tr", {},
          el("td", {}, s.player || "seat " + s.seat),
          el("td", {class: "score", dataset: {seat: s.seat}}, String(scores[s.seat])),
          el("td", {}, (result.winners || []).includes(s.seat) ? "winner" : ""))))) : null);
  }

  function renderLog() {
    clear($("log"), state.log.slice(-200).map(line => el("div", {}, line)));
    $("log").scrollTop = $("log").scrollHeight;
  }

  function render() {
    const g = state.game;
    if (!g) return;
    document.title = g.name + " · Gamehub";
    $("title").textContent = g.name;
    clear($("subtitle"), g.type + (g.variant ? " · " + g.variant : "") + " · ",
      el("span", {class: "state-" + g.state, id: "game-state"}, g.paused ? "paused: " + g.paused : g.state), " · id ",
      el("span", {class: "gameid"}, g.id),
      g.frontends.includes("mnm") ? " (MNM Game-ID)" : "",
      state.seat !== null ? " · you are seat " + state.seat : " · watching");
    renderSeats();
    renderTurn();
    renderResult();
    const r = renderer();
    const ctx = context();
    try {
      clear($("board"), r.board ? r.board(ctx) : GenericRenderer.board(ctx));
    } catch (e) {
      clear($("board"), el("p", {class: "muted"}, "cannot draw this view: " + e.message), GenericRenderer.board(ctx));
    }
    const actions = (r.actions || GenericRenderer.actions)(ctx);
    $("actions-box").hidden = state.seat === null || g.state === "over";
    clear($("actions"), actions);
  }

  function describe(event) {
    const d = event.data || {};
    const r = renderer();
    if (r.describe) {
      const text = r.describe(event, seatNames());
      if (text) return text;
    }
    if (d.line) return d.line;
    if (d.text) return (d.seat !== undefined ? (seatNames()[d.seat] || "seat " + d.seat) + ": " : "") + d.text;
    if (d.move !== undefined && d.seat !== undefined) return (seatNames()[d.seat] || "seat " + d.seat) + ": " + (typeof d.kind === "string" ? d.kind : event.kind) + " " + d.move;
    if (event.kind === "turn") return "turn: " + (seatNames()[d.seat] || "seat " + d.seat);
    if (event.kind === "over") return "game over: " + ((d.result && d.result.summary) || "");
    const copy = Object.assign({}, d); delete copy.legal;
    return event.kind + " " + JSON.stringify(copy);
  }

  function snapshot(data) {
    state.game = data.game;
    loadPluginScript(data.game.type);
    state.view = data.view;
    state.seat = data.seat;
    state.legal = data.legal || [];
    if (state.legal.length && (!state.turn || state.turn.seat !== state.seat)) {
      state.turn = Object.assign({}, state.turn || {}, {seat: state.seat});
    }
    render();
  }

  function gameEvent(event) {
    const r = renderer();
    if (r.event) r.event(event, state);
    if (event.kind === "turn") {
      state.turn = event.data;
      if (event.data.seat === state.seat) state.legal = event.data.legal || [];
      else state.legal = [];
    }
    if (event.kind === "over") { state.legal = []; state.turn = null; }
    state.log.push(describe(event));
    renderLog();
  }

  async function checkGone() {
    try {
      await Hub.request("GET", "/api/games/" + gameId);
    } catch (e) {
      if (e.status === 404) {
        state.gone = true;
        live.close();
        clear($("turn"), el("b", {}, "No game " + gameId + " on this hub (it ended and was removed, or the hub restarted). "),
          el("a", {href: "/history"}, "History"), " · ", el("a", {href: "/"}, "Lobby"));
        Hub.error("game " + gameId + " is not on this hub");
      }
    }
  }

  function start() {
    Hub.nav("");
    $("transcript-link").href = "/api/games/" + gameId + "/transcript";
    live = Hub.stream("/api/games/" + encodeURIComponent(gameId) + "/events", {
      snapshot, view: snapshot, game: gameEvent,
      removed: () => { live.close(); Hub.notify("This game was removed from the hub.", "error"); },
      "seat-lost": data => {
        if (!state.leaving) Hub.notify("You no longer sit at seat " + data.seat + "; watching now.", "error");
        state.leaving = false;
        Hub.getSession(true).catch(() => null);
        live.reopen();
      },
    }, status => {
      $("live").textContent = status; $("live").className = "small status-" + status;
      if (status === "reconnecting") checkGone();
    });
  }

  document.addEventListener("DOMContentLoaded", start);
  return {state, act, render};
})();

// The generic renderer: the view as data, the legal actions as buttons.
const GenericRenderer = {
  board(ctx) {
    return Hub.el("details", {open: true}, Hub.el("summary", {}, "Game state"),
      Hub.el("pre", {class: "view"}, JSON.stringify(ctx.view, null, 1)));
  },
  actions(ctx) {
    const {el} = Hub;
    if (!ctx.legal.length) return [el("span", {class: "muted"}, ctx.seat === null ? "" : "Not your turn.")];
    return ctx.legal.map(action => {
      const textFields = Object.entries(action).filter(([, v]) => v === "");
      if (textFields.length) {
        const inputs = textFields.map(([k]) => el("input", {name: k, placeholder: k, maxlength: 200, class: "action-input"}));
        const form = el("form", {class: "row action-form", onsubmit: ev => {
          ev.preventDefault();
          const chosen = Object.assign({}, action);
          inputs.forEach(i => { chosen[i.name] = i.value; });
          ctx.act(chosen);
        }}, inputs, el("button", {type: "submit", class: "action"}, Object.keys(action).join(" ")));
        return form;
      }
      return el("button", {class: "action", onclick: () => ctx.act(action)}, Hub.actionLabel(action));
    });
  },
};
