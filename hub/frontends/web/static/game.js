// The game page: watch live, take a seat, play with only legal actions offered, queue a
// premove while the others think, cancel a game of one's own that waits, chat; an
// optional sound when the turn comes (off by default).
// Each game type's page script (its factory's IWebView.script, served at
// /plugin-scripts/<type>.js) registers a renderer: GameRenderers[type] = {board, actions,
// describe, status, replay}; see docs/web.md.
"use strict";

const GamePage = (() => {
  const {el, clear} = Hub;
  const $ = id => document.getElementById(id);
  const gameId = decodeURIComponent(location.pathname.split("/").filter(Boolean)[1] || "");
  const state = {game: null, view: null, seat: null, legal: [], turn: null, events: [], gone: false,
    clockKey: null, until: 0, total: 0, types: null, received: 0, premove: null, wasMine: false};
  let live = null, chat = null;

  function renderer() {
    return (state.game && window.GameRenderers[state.game.type]) || GenericRenderer;
  }

  function seatNames() {
    return state.game ? state.game.seats.map(s => s.player || "seat " + s.seat) : [];
  }

  // What a renderer gets: the state plus a way to act.
  function context() {
    return {game: state.game, view: state.view, seat: state.seat, legal: state.legal,
      turn: state.turn, myTurn: state.legal.length > 0, act, el, clear, names: seatNames(),
      clock: turnClock, premove, premoved: state.premove ? state.premove.label : null,
      cancelPremove};
  }

  // -- premoves: a move chosen while another player is to act, sent when our turn comes
  // (``choose(legal)`` returns the action then, or null: it is no longer legal;
  // ``keep(action)``, optional: whether it stays queued for the turn after).
  function premove(label, choose, keep) {
    state.premove = {label, choose, keep};
    render();
  }

  function cancelPremove() {
    if (!state.premove) return;
    state.premove = null;
    render();
  }

  // A premove's action, when our turn has come (called as the legal actions arrive).
  function playPremove() {
    const queued = state.premove;
    if (!queued || !state.legal.length || state.acting || state.game.state === "over") return;
    state.premove = null;
    let action = null;
    try { action = queued.choose(state.legal); } catch (e) { action = null; }
    if (action) {
      if (queued.keep && queued.keep(action)) state.premove = queued;
      act(action);
    } else { Hub.notify("Your premove (" + queued.label + ") is not legal now: it was dropped.", "ok", $("turn-box")); render(); }
  }

  // -- sounds (off by default; the switch is remembered in this browser) --------------
  const Sounds = (() => {
    let audio = null;
    const KEY = "gamehub.sounds";
    const on = () => { try { return localStorage.getItem(KEY) === "on"; } catch (e) { return false; } };
    function set(value) {
      try { localStorage.setItem(KEY, value ? "on" : "off"); } catch (e) { /* private mode */ }
      if (value && !audio && window.AudioContext) audio = new AudioContext();  // after a click
      if (value) play("turn");
    }
    // A short chime: two notes for our turn, one low note when our time runs short.
    function play(kind) {
      if (!on()) return;
      if (!audio && window.AudioContext) audio = new AudioContext();
      if (!audio) return;
      const notes = kind === "turn" ? [660, 880] : [330];
      notes.forEach((hz, i) => {
        const osc = audio.createOscillator(), gain = audio.createGain();
        const t = audio.currentTime + i * 0.13;
        osc.frequency.value = hz;
        gain.gain.setValueAtTime(0.0001, t);
        gain.gain.exponentialRampToValueAtTime(0.15, t + 0.02);
        gain.gain.exponentialRampToValueAtTime(0.0001, t + 0.12);
        osc.connect(gain).connect(audio.destination);
        osc.start(t); osc.stop(t + 0.13);
      });
      state.sounded = (state.sounded || 0) + 1;  // (tests count the sounds played)
    }
    return {on, set, play};
  })();

  // Our turn began (a sound) and, once, a warning when our clock runs short.
  function turnSounds() {
    const mine = state.legal.length > 0;
    if (mine && !state.wasMine) { Sounds.play("turn"); state.warned = false; }
    state.wasMine = mine;
  }
  setInterval(() => {
    if (!state.wasMine || state.warned || !state.total) return;
    if (state.until - performance.now() < Math.min(5000, state.total * 0.2)) { state.warned = true; Sounds.play("low"); }
  }, 500);

  // The turn's clock counts to the server's deadline: the same after a redraw or a
  // reconnect (the key is the turn's deadline on the server).
  function setTurn(turn) {
    state.turn = turn || null;
    if (!turn || typeof turn.timeleft_ms !== "number") return;
    const key = turn.seat + "@" + turn.deadline;
    if (key !== state.clockKey) {
      state.clockKey = key;
      state.until = performance.now() + turn.timeleft_ms;
      state.total = turn.total_ms || turn.timeleft_ms;
    }
  }

  function turnClock(label) {
    const t = state.turn;
    if (!t || typeof t.timeleft_ms !== "number") return null;
    return Hub.clock(state.until, state.total, label || "time left");
  }

  async function act(action) {
    // Offer nothing until the stream tells what comes next (its events may arrive
    // before this request's answer).
    const before = state.legal;
    state.legal = [];
    state.acting = true;
    render();
    try {
      await Hub.write("POST", "/api/games/" + gameId + "/actions", {action});
      return true;
    } catch (e) {
      if (!state.legal.length) { state.legal = before; render(); }
      Hub.error(e, $("actions-box"));
      return false;
    } finally {
      state.acting = false;
    }
  }

  async function takeSeat(seat) {
    try {
      const answer = await Hub.write("POST", "/api/games/" + gameId + "/seats", {seat});
      await Hub.getSession(true);
      Hub.ok("You sit at seat " + answer.seat, $("seats-box"));
      live.reopen();
    } catch (e) { Hub.error(e, $("seats-box")); }
  }

  async function leave() {
    state.leaving = true;
    try {
      await Hub.write("POST", "/api/games/" + gameId + "/leave", {});
      await Hub.getSession(true);
      Hub.ok("You left the game", $("seats-box"));
      live.reopen();
    } catch (e) { state.leaving = false; Hub.error(e, $("seats-box")); }
  }

  // A game of one's own that waits for players: cancel it (its page and the lobby say
  // it is gone).
  async function cancelGame() {
    try {
      await Hub.write("DELETE", "/api/games/" + encodeURIComponent(gameId));
      state.gone = true;
      live.close();
      clear($("turn"), el("b", {}, "You cancelled this game. "), el("a", {href: "/"}, "Back to the lobby"));
      Hub.ok("Game " + gameId + " cancelled", $("turn-box"));
    } catch (e) { Hub.error(e, $("turn-box")); }
  }

  function mayCancel(g) {
    const s = Hub.session;
    if (!s || g.state !== "waiting" || g.creator !== s.name) return false;
    return !g.seats.some(x => x.player && x.kind !== "bot" && x.present !== false && x.player !== s.name);
  }

  async function giveBot(seat, bot) {
    try {
      const answer = await Hub.write("POST", "/api/games/" + gameId + "/bots", {seat, bot});
      Hub.ok("Seat " + seat + " is played by " + answer.player, $("seats-box"));
    } catch (e) { Hub.error(e, $("seats-box")); }
  }

  function botsFor(type) {
    const t = (state.types || []).find(x => x.name === type);
    return t ? t.bots : [];
  }

  function avatar(name, seat) {
    return el("span", {class: "avatar seat-colour-" + (seat % 8), "aria-hidden": "true"}, (name || "?").slice(0, 1).toUpperCase());
  }

  function renderSeats() {
    const g = state.game;
    const over = g.state === "over";
    const toMove = state.turn ? state.turn.seat : null;
    const bots = botsFor(g.type);
    clear($("seats"), g.seats.map(s => {
      const free = !s.player && !over && (s.kind === "open" || s.kind === "human")
        && (!s.reserved || (Hub.session && s.reserved === Hub.session.name));
      const botSelect = free && bots.length && Hub.mayGiveBot(g) ? el("select", {"aria-label": "bot for seat " + s.seat},
        bots.map(b => el("option", {value: b}, b))) : null;
      const mine = s.seat === state.seat;
      const acting = s.seat === toMove && !over;
      return el("li", {class: "seat" + (mine ? " seat-me" : "") + (acting ? " to-act" : "") + (s.present === false ? " gone" : ""), dataset: {seat: s.seat}},
        el("div", {class: "seat-head"}, avatar(s.player || "·", s.seat),
          el("span", {class: "seat-name"}, s.player ? s.player : el("i", {class: "muted"}, s.reserved ? "reserved for " + s.reserved : "free seat")),
          el("span", {class: "badge kind-" + s.kind}, s.kind === "client" ? "network" : s.kind === "human" ? "web" : s.kind),
          mine ? el("span", {class: "badge you"}, "you") : null,
          s.present === false ? el("span", {class: "badge"}, "left") : null,
          acting ? turnClock(s.player + "'s time") : null),
        free && state.seat === null ? el("div", {class: "row"},
          el("button", {class: "take-seat", dataset: {seat: s.seat}, onclick: () => takeSeat(s.seat)}, "Take seat " + s.seat)) : null,
        botSelect ? el("div", {class: "row"}, botSelect,
          el("button", {class: "secondary give-bot", onclick: () => giveBot(s.seat, botSelect.value)}, "Give to bot")) : null,
        mine && !over ? el("div", {class: "row"},
          el("button", {class: "secondary", id: "leave", onclick: leave}, "Leave")) : null);
    }));
  }

  function renderWatchers() {
    const g = state.game;
    const names = g.watchers || [];
    const others = Math.max(0, (g.observers || 0) - names.length - g.seats.filter(s => s.player && s.kind !== "bot" && s.present !== false).length);
    clear($("watchers"), names.length || others ? [
      names.map(n => el("li", {class: "watcher"}, avatar(n, 7), el("span", {}, n))),
      others > 0 && !names.length ? el("li", {class: "muted small"}, others + " watching") : null,
    ] : el("li", {class: "muted small"}, "Nobody is watching yet."));
  }

  function renderTurn() {
    const g = state.game;
    const box = $("turn");
    box.className = "turn-banner";
    if (g.state === "over") { clear(box, el("b", {}, "Game over"), " · ", el("a", {href: "/history?game=" + g.id, id: "replay-link"}, "replay it")); return; }
    const t = state.turn;
    const r = renderer();
    if (g.state === "waiting" && !g.paused) {
      const sitting = g.seats.filter(s => s.player).map(s => s.player);
      const free = g.seats.filter(s => !s.player).length;
      clear(box, el("b", {}, "Waiting for players"), " · ",
        sitting.length ? sitting.join(", ") + (sitting.length === 1 ? " sits" : " sit") + " here" : "nobody sits here yet",
        free ? " · " + free + " free seat" + (free === 1 ? "" : "s") : "",
        mayCancel(g) ? el("button", {class: "secondary danger-outline", id: "cancel-game", onclick: cancelGame}, "Cancel this game") : null);
      return;
    }
    const shown = Hub.shownState(g);
    if (shown !== "running") {  // a state of another kind (a paused table, say): say it
      box.classList.add("state-" + shown);
      clear(box, el("b", {}, Hub.words(shown)),
        shown === "paused" ? [" · ", el("span", {id: "paused"}, g.paused)] : null);
      return;
    }
    // our seat may act (in a game where all move at once, the turn announced last may
    // be another seat's): it is our turn
    const mine = state.legal.length > 0 || (t !== null && t.seat === state.seat);
    if (!t && !mine) {
      const status = r.status ? r.status(context()) : null;
      clear(box, status || el("span", {}, "Playing…"));
      return;
    }
    if (mine) box.classList.add("mine");
    // the announced turn's words and clock when it is ours, or we only watch it
    const shownTurn = t !== null && (t.seat === state.seat || !mine) ? t : null;
    const words = shownTurn && r.turnText ? r.turnText(shownTurn, context()) : "";
    clear(box, el("b", {class: "turn-who"}, mine ? "Your turn" : Hub.who(seatNames(), t.seat) + " to play"),
      words ? el("span", {class: "small"}, words) : null,
      shownTurn ? turnClock(mine ? "your time" : "time left") : null,
      state.premove ? el("span", {class: "premove small", id: "premove"}, "Premove: " + state.premove.label,
        el("button", {class: "secondary", id: "premove-cancel", onclick: cancelPremove, "aria-label": "cancel the premove"}, "cancel")) : null);
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

  function describe(event) { return GameScripts.describe(state.game.type, event, seatNames()); }

  // The events panel: drawn whole from a snapshot, then one line per event.
  function logLine(e) { return el("div", {class: "log-line kind-" + e.kind}, describe(e)); }

  function renderLog(event) {
    const log = $("log");
    const stick = log.scrollTop + log.clientHeight >= log.scrollHeight - 4;
    if (event) {
      log.append(logLine(event));
      while (log.children.length > 300) log.firstChild.remove();
    } else {
      clear(log, state.events.slice(-300).map(logLine));
    }
    if (stick || !log.dataset.drawn) log.scrollTop = log.scrollHeight;
    log.dataset.drawn = "1";
  }

  function render() {
    const g = state.game;
    if (!g) return;
    document.title = g.name + " · Gamehub";
    $("title").textContent = g.name;
    const badge = $("game-state");
    const shown = Hub.shownState(g);
    badge.textContent = shown;
    badge.title = g.paused && shown === "paused" ? "paused: " + g.paused : "";
    badge.className = "badge state state-" + shown;
    const info = (state.types || []).find(x => x.name === g.type) || {};
    clear($("subtitle"), g.type + (g.variant ? " · " + g.variant : "") + " · id ",
      el("span", {class: "gameid"}, g.id),
      g.frontends.includes("mnm") && g.state !== "over" ? " (MNM Game-ID)" : "",
      state.seat !== null ? " · you are seat " + state.seat : " · watching",
      info.rules ? [" · ", el("a", {href: info.rules, id: "rules-link"}, "rules")] : null);
    renderSeats();
    renderWatchers();
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
    $("replay-nav").hidden = g.state !== "over";
  }

  function view(data) {
    state.game = data.game;
    state.view = data.view;
    state.seat = data.seat;
    state.legal = data.legal || [];
    setTurn(data.turn);
    if (state.seat === null || state.game.state === "over") state.premove = null;
    render();
    turnSounds();
    playPremove();
  }

  function snapshot(data) {
    const r = window.GameRenderers[data.game.type];
    state.events = data.events || [];
    if (r && r.reset) r.reset(state.events, data.game);
    chat.reset(data.chat);
    view(data);
    renderLog();
  }

  // A shared shuffle (hub.model.SHUFFLE): a seated player's page adds its own entropy
  // by itself, between the commitment and the deal (the deal does not wait long).
  async function contribute(data) {
    if (state.seat === null || state.seat === undefined || !(window.crypto && crypto.getRandomValues)) return;
    const value = Array.from(crypto.getRandomValues(new Uint8Array(32)), b => b.toString(16).padStart(2, "0")).join("");
    try {
      await Hub.write("POST", "/api/games/" + gameId + "/actions", {action: {name: "entropy", value, number: data.number}});
    } catch (e) { /* the deal came first, or this seat gave one already: nothing to do */ }
  }

  function gameEvent(event) {
    const r = renderer();
    if (event.kind === "shuffle") contribute(event.data || {});
    if (r.event) r.event(event, state);
    if (event.kind === "turn") {
      setTurn(event.data);
      state.legal = event.data.seat === state.seat ? (event.data.legal || []) : [];
      if (state.legal.length) { turnSounds(); playPremove(); }
    }
    if (event.kind === "over") { state.legal = []; setTurn(null); }
    state.events.push(event);
    state.received += 1;  // every event since the page opened (the list keeps the last 1000)
    if (state.events.length > 1000) state.events.splice(0, state.events.length - 1000);
    renderLog(event);
  }

  // A game missing on reconnect may be resuming (a restarted hub, or another hub of the
  // cluster taking it over): the page stays paused, its stream retrying, and says the
  // game is gone only after GONE_AFTER misses in a row (the retries wait 1, 2, 4, 8 s:
  // some 15 s, time for a restarted or another hub to resume it).
  const GONE_AFTER = 5;
  let misses = 0;
  async function checkGone() {
    try {
      await Hub.request("GET", "/api/games/" + gameId);
      misses = 0;
    } catch (e) {
      if (e.status === 404 && ++misses >= GONE_AFTER && !state.gone) {
        state.gone = true;
        live.close();
        clear($("turn"), el("b", {}, "No game " + gameId + " on this hub (it ended and was removed, or the hub restarted). "),
          el("a", {href: "/history?game=" + encodeURIComponent(gameId)}, "Replay"), " · ", el("a", {href: "/"}, "Lobby"));
        Hub.error("game " + gameId + " is not on this hub");
      }
    }
  }

  async function start() {
    $("sounds").checked = Sounds.on();
    $("sounds").addEventListener("change", ev => Sounds.set(ev.target.checked));
    chat = Hub.chatPanel("/api/games/" + encodeURIComponent(gameId) + "/chat", "Table chat");
    $("chat-box").replaceWith(chat.panel);
    chat.panel.id = "chat-box";
    $("transcript-link").href = "/api/games/" + encodeURIComponent(gameId) + "/transcript";
    $("replay-nav").href = "/history?game=" + encodeURIComponent(gameId);
    await Hub.nav("");  // the session first: the stream then knows who watches
    state.types = await GameScripts.typeInfo();
    try {
      const first = await Hub.request("GET", "/api/games/" + encodeURIComponent(gameId));
      await GameScripts.load(first.type);  // before the first snapshot is drawn
    } catch (e) {
      if (e.status !== 404) Hub.error(e);
    }
    live = Hub.stream("/api/games/" + encodeURIComponent(gameId) + "/events", {
      snapshot, view, game: gameEvent, chat: line => chat.add(line),
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
      if (status === "live") misses = 0;
    });
  }

  document.addEventListener("DOMContentLoaded", start);
  return {state, act, render, premove, cancelPremove, sound: Sounds.play, reconnect: () => live.reopen()};
})();
