// The lobby: game types | sortable game list with filters | details and create form.
"use strict";

(() => {
  const {el, clear} = Hub;
  // people need more time than the engines' defaults (made for network bots)
  const DEFAULT_OPTIONS = {nmmorris: {move_time_ms: 120000}, kingdomino: {answer_seconds: 60}};
  const games = new Map();
  let types = [], selected = null, typeFilter = null, sort = {key: "created", dir: -1};

  const $ = id => document.getElementById(id);

  function players(g) { return g.seats.filter(s => s.player).length; }
  function sortValue(g, key) {
    if (key === "players") return players(g);
    if (key === "seats") return g.seats.length;
    return (g[key] === null || g[key] === undefined) ? "" : String(g[key]).toLowerCase();
  }

  function visible() {
    const hideEmpty = $("hide-empty").checked, hideFull = $("hide-full").checked, hideOver = $("hide-over").checked;
    return [...games.values()].filter(g =>
      (!typeFilter || g.type === typeFilter) &&
      !(hideEmpty && players(g) === 0) &&
      !(hideFull && players(g) === g.seats.length) &&
      !(hideOver && g.state === "over"));
  }

  function renderList() {
    const rows = visible().sort((a, b) => {
      const x = sortValue(a, sort.key), y = sortValue(b, sort.key);
      return (x < y ? -1 : x > y ? 1 : 0) * sort.dir || (a.id < b.id ? -1 : 1);
    });
    document.querySelectorAll("#games th.sortable").forEach(th =>
      th.setAttribute("aria-sort", th.dataset.key === sort.key ? (sort.dir > 0 ? "ascending" : "descending") : "none"));
    clear(document.querySelector("#games tbody"), rows.map(g =>
      el("tr", {class: g.id === selected ? "selected" : "", dataset: {id: g.id},
          onclick: () => select(g.id)},
        el("td", {}, g.type), el("td", {}, g.name),
        el("td", {}, players(g) + "/" + g.seats.length),
        el("td", {}, g.seats.map(s => s.player || s.kind).join(", ")),
        el("td", {class: "state-" + g.state}, g.paused ? "paused: " + g.paused : g.state),
        el("td", {}, g.frontend), el("td", {}, g.observers),
        el("td", {class: "small"}, Hub.time(g.created)))));
    $("empty").hidden = rows.length > 0;
    renderTypes();
  }

  function renderTypes() {
    const counts = {};
    for (const g of games.values()) counts[g.type] = (counts[g.type] || 0) + 1;
    clear($("types"),
      el("li", {}, el("button", {class: typeFilter ? "" : "current", onclick: () => { typeFilter = null; renderList(); }},
        "All games (" + games.size + ")")),
      types.map(t => el("li", {}, el("button", {
        class: typeFilter === t.name ? "current" : "", title: t.summary, dataset: {type: t.name},
        onclick: () => { typeFilter = t.name; chooseType(t.name); renderList(); }},
        t.name + " (" + (counts[t.name] || 0) + ")"))));
  }

  function select(id) {
    selected = id;
    renderList();
    renderDetails();
  }

  // What the selected game's public view says per seat: stacks, scores, pieces.
  let detailView = {id: null, view: null};
  async function loadDetailView(id) {
    try {
      const g = await Hub.request("GET", "/api/games/" + id);
      if (selected === id) { detailView = {id, view: g.view}; renderDetails(); }
    } catch (e) { /* the list shows what is known */ }
  }
  function seatExtra(view, seat) {
    if (!view) return "";
    if (Array.isArray(view.players)) {
      const p = view.players.find(x => x.seat === seat);
      if (p && p.bankroll !== undefined) return " · stack " + p.bankroll;
    }
    if (Array.isArray(view.scores) && view.scores[seat] !== undefined) return " · " + view.scores[seat] + " points";
    if (Array.isArray(view.in_hand) && view.in_hand[seat] !== undefined) return " · " + view.in_hand[seat] + " in hand";
    return "";
  }

  function renderDetails() {
    const box = $("details");
    const g = games.get(selected);
    if (g && detailView.id !== g.id) { detailView = {id: g.id, view: null}; loadDetailView(g.id); }
    const view = g && detailView.id === g.id ? detailView.view : null;
    if (!g) { clear(box, el("h2", {}, "Details"), el("p", {class: "muted"}, "Select a game in the list.")); return; }
    const mnm = g.frontends.includes("mnm");
    const bots = (types.find(t => t.name === g.type) || {bots: []}).bots;
    const my = Hub.session && Hub.session.seats ? Hub.session.seats[g.id] : undefined;
    clear(box,
      el("h2", {}, g.name),
      el("p", {}, el("b", {}, g.type), g.variant ? " · " + g.variant : "", " · ",
        el("span", {class: "state-" + g.state}, g.paused ? "paused: " + g.paused : g.state),
        " · front end " + g.frontend),
      el("p", {}, "Game id: ", el("span", {class: "gameid", id: "detail-id"}, g.id)),
      mnm ? el("p", {class: "small"}, "MNM clients: paste this Game-ID into your client",
        g.port ? " and connect to port " + g.port : "", ".") : null,
      g.result ? el("p", {class: "result"}, g.result.summary || JSON.stringify(g.result)) : null,
      el("ul", {class: "seat-list"}, g.seats.map(s => el("li", {},
        "Seat " + s.seat + ": ", s.player ? el("b", {}, s.player) : el("i", {class: "muted"}, "free"),
        " (" + s.kind + (s.present === false ? ", left" : "") + ")", seatExtra(view, s.seat),
        !s.player && g.state !== "over" && bots.length ? el("span", {}, " ",
          el("button", {class: "secondary small", onclick: () => giveBot(g, s.seat, bots[0])}, "bot: " + bots[0])) : null))),
      el("div", {class: "row"},
        el("a", {class: "button", href: "/game/" + g.id, id: "open-game"}, my !== undefined ? "Play" : "Watch / play"),
        el("a", {href: "/api/games/" + g.id + "/transcript"}, "transcript")));
  }

  async function giveBot(g, seat, bot) {
    try {
      const answer = await Hub.write("POST", "/api/games/" + g.id + "/bots", {seat, bot});
      games.set(g.id, answer.game);
      renderList(); renderDetails();
      Hub.ok("Seat " + seat + " is played by " + answer.player);
    } catch (e) { Hub.error(e); }
  }

  // -- create form ---------------------------------------------------------------------
  function chooseType(name) {
    $("c-type").value = name;
    typeChanged();
  }

  function typeChanged() {
    const t = types.find(x => x.name === $("c-type").value);
    if (!t) return;
    $("c-summary").textContent = t.summary + " (" + t.min_seats + "–" + t.max_seats + " seats; front ends: " + t.frontends.join(", ") + ")";
    clear($("c-variant"), t.variants.map(v => el("option", {value: v}, v)));
    $("c-variant-box").hidden = t.variants.length === 0;
    clear($("c-seats"));
    for (let i = 0; i < t.default_seats; i++) addSeat(t, i === 0 ? "human" : (t.bots.length ? "bot:" + t.bots[0] : "open"));
    $("c-options").value = JSON.stringify(DEFAULT_OPTIONS[t.name] || {});
  }

  function addSeat(t, value) {
    const rows = $("c-seats");
    const i = rows.children.length;
    if (i >= t.max_seats) return;
    const select = el("select", {name: "seat" + i, "aria-label": "seat " + i},
      el("option", {value: "human"}, "me (web player)"),
      el("option", {value: "open"}, "open (anyone)"),
      t.bots.map(b => el("option", {value: "bot:" + b}, "bot: " + b)));
    select.value = value;
    rows.append(el("div", {class: "seat-row"}, el("span", {}, "Seat " + i), select));
  }

  async function create(ev) {
    ev.preventDefault();
    const t = types.find(x => x.name === $("c-type").value);
    if (!t) { Hub.error("choose a game type"); return; }
    let options;
    try { options = JSON.parse($("c-options").value || "{}"); }
    catch (e) { Hub.error("options: not valid JSON (" + e.message + ")"); return; }
    const seats = [...$("c-seats").querySelectorAll("select")].map(s => s.value);
    const mine = seats.indexOf("human");
    if (mine >= 0 && t.needs_account) {
      const session = await Hub.getSession();
      if (!session.logged_in) {
        Hub.error("log in to sit at a " + t.name + " table: the chips come from your account (or make seat " + mine + " open)");
        return;
      }
    }
    const body = {type: t.name, name: $("c-name").value.trim() || null,
      variant: t.variants.length ? $("c-variant").value : null, seats, options};
    $("c-submit").disabled = true;
    try {
      const g = await Hub.write("POST", "/api/games", body);
      games.set(g.id, g);
      select(g.id);
      Hub.ok("Created " + g.name + " (" + g.id + ")");
      if (mine >= 0) {
        await Hub.write("POST", "/api/games/" + g.id + "/seats", {seat: mine});
        location.href = "/game/" + g.id;
      }
    } catch (e) { Hub.error(e); }
    finally { $("c-submit").disabled = false; }
  }

  async function start() {
    Hub.nav("/");
    try {
      const answer = await Hub.request("GET", "/api/types");
      types = answer.types;
    } catch (e) { Hub.error(e); }
    clear($("c-type"), types.map(t => el("option", {value: t.name}, t.name)));
    if (types.length) typeChanged();
    $("c-type").addEventListener("change", typeChanged);
    $("c-add-seat").addEventListener("click", () => {
      const t = types.find(x => x.name === $("c-type").value); if (t) addSeat(t, "open"); });
    $("c-remove-seat").addEventListener("click", () => {
      const t = types.find(x => x.name === $("c-type").value); const rows = $("c-seats");
      if (t && rows.children.length > t.min_seats) rows.lastChild.remove(); });
    $("create").addEventListener("submit", create);
    for (const id of ["hide-empty", "hide-full", "hide-over"]) $(id).addEventListener("change", renderList);
    document.querySelectorAll("#games th.sortable").forEach(th => th.addEventListener("click", () => {
      sort = {key: th.dataset.key, dir: sort.key === th.dataset.key ? -sort.dir : 1};
      renderList();
    }));
    Hub.stream("/api/lobby/events", {
      snapshot: data => { games.clear(); for (const g of data.games) games.set(g.id, g); renderList(); renderDetails(); },
      game: g => { games.set(g.id, g); renderList(); if (g.id === selected) { renderDetails(); loadDetailView(g.id); } },
      removed: data => { games.delete(data.id); renderList(); if (data.id === selected) renderDetails(); },
    }, status => { $("live").textContent = status; $("live").className = "small status-" + status; });
  }

  document.addEventListener("DOMContentLoaded", start);
})();
